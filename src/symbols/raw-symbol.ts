import type { SyntaxNode } from "../parse/syntax.js";
import { compareStrings } from "../errors/diagnostic.js";
import { canonicalSignature, renderSignature } from "./signature.js";
import type { SignatureInfo, SymbolKind, SymbolRecord } from "./types.js";

/** A symbol as a language extractor finds it, before grouping and hashing. */
export interface RawSymbol {
  readonly name: string;
  readonly qualifiedName: string;
  readonly kind: SymbolKind;
  readonly exported: boolean;
  readonly node: SyntaxNode;
  readonly signature: SignatureInfo;
  /** Normalised body text (see `normalizedText`). */
  readonly body: string;
  /** An overload signature without a body (TypeScript): not callable on its own when an implementation follows. */
  readonly overloadSignature: boolean;
}

/**
 * Turns raw symbols into records: declarations sharing a qualified name and
 * kind (overloads, a getter and its setter, a Python `@property` and its
 * setter, a conditional redefinition) become one symbol whose signature lists
 * each; when overload signatures precede an implementation, the
 * implementation's own signature is not part of the API. Sorted by qualified
 * name, then kind.
 */
export function finalizeSymbols(raw: readonly RawSymbol[], hash: (text: string) => string): SymbolRecord[] {
  const groups = new Map<string, RawSymbol[]>();
  for (const r of raw) {
    const key = `${r.qualifiedName}\0${r.kind}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [r]);
    else g.push(r);
  }
  const out: SymbolRecord[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.node.startIndex - b.node.startIndex);
    const first = group[0] as RawSymbol;
    const last = group.at(-1) as RawSymbol;
    let signature = first.signature;
    // (loops, not filter, map and join: arrays of several kinds at one site made this function's optimised code be
    // thrown away and compiled again)
    let body = first.body;
    for (let i = 1; i < group.length; i++) body += `\n${(group[i] as RawSymbol).body}`;
    if (group.length > 1) {
      const overloadsOnly = group.some((g) => g.overloadSignature);
      const overloads: SignatureInfo[] = [];
      for (let i = 0; i < group.length; i++) if (!overloadsOnly || (group[i] as RawSymbol).overloadSignature) overloads.push((group[i] as RawSymbol).signature);
      signature = { ...first.signature, overloads };
    }
    out.push({
      name: first.name,
      qualified_name: first.qualifiedName,
      kind: first.kind,
      exported: group.some((g) => g.exported),
      range: {
        start_line: first.node.startPosition.row + 1,
        start_column: first.node.startPosition.column,
        end_line: last.node.endPosition.row + 1,
        end_column: last.node.endPosition.column,
      },
      signature_hash: hash(canonicalSignature(signature)),
      body_hash: hash(body),
      signature: renderSignature(signature),
      detail: signature,
    });
  }
  return out.sort((a, b) => compareStrings(a.qualified_name, b.qualified_name) || compareStrings(a.kind, b.kind));
}
