import { emptySignature } from "../symbols/signature.js";
import type { SignatureInfo, SourceRange, SymbolKind, SymbolRecord } from "../symbols/types.js";

export type { ContractKind } from "../symbols/types.js";

/** xxhash64 (hex) of a string: the hash the symbols of code use, passed in (loading it is the caller's). */
export type HashText = (text: string) => string;

/** What one symbol of a contract is, before it is hashed into a `SymbolRecord`. */
export interface ContractEntry {
  readonly name: string;
  readonly qualified_name: string;
  readonly kind: SymbolKind;
  readonly range: SourceRange;
  /** What consumers depend on, normalised: its hash is the signature hash. */
  readonly signature: string;
  /** Everything else that is part of the declaration (descriptions, deprecations, examples): the body hash's input. */
  readonly body: string;
  readonly detail?: Partial<SignatureInfo>;
}

/** A contract's symbols as the code symbols are: every one public, hashed with `hash`, sorted by qualified name. */
export function contractSymbols(entries: readonly ContractEntry[], hash: HashText): SymbolRecord[] {
  const seen = new Set<string>();
  const out: SymbolRecord[] = [];
  for (const e of entries) {
    // A name declared twice (an extension of a field already declared): the first one stands.
    if (seen.has(e.qualified_name)) continue;
    seen.add(e.qualified_name);
    out.push({
      name: e.name,
      qualified_name: e.qualified_name,
      kind: e.kind,
      exported: true,
      range: e.range,
      signature_hash: hash(e.signature),
      body_hash: hash(e.body),
      signature: e.signature,
      detail: { ...emptySignature(e.name, e.kind), ...e.detail },
    });
  }
  return out.sort((a, b) => (a.qualified_name < b.qualified_name ? -1 : a.qualified_name > b.qualified_name ? 1 : 0));
}

/** A range from 1-based line and column numbers (as YAML and GraphQL count) to the engine's (0-based columns). */
export function rangeOf(startLine: number, startColumn: number, endLine: number, endColumn: number): SourceRange {
  return { start_line: startLine, start_column: Math.max(0, startColumn - 1), end_line: endLine, end_column: Math.max(0, endColumn - 1) };
}
