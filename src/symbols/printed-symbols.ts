import type { FileSymbols } from "./types.js";

/**
 * The part of a file's entry in `comity.symbols/1` JSON that depends on its
 * content alone, as `JSON.stringify` writes it: `"language":…,"symbols":[…],
 * "references":[…]`, each symbol without its detail. The symbol cache keeps
 * it beside each result, so that printing a warm run copies text instead of
 * decoding records and encoding them again.
 */
export function printedSymbols(r: Pick<FileSymbols, "language" | "symbols" | "references">): string {
  const body = JSON.stringify({ language: r.language, symbols: r.symbols.map(shownSymbol), references: r.references });
  return body.slice(1, -1);
}

/**
 * One file's entry in `comity.symbols/1` JSON, on one line (its path, what {@link printedSymbols} says, its
 * diagnostics), as UTF-8 pieces: the printed form as the bytes it was read as (a warm run copies the cache's bytes
 * to the output: decoding them into a string and encoding it again was a third of a warm run's work).
 */
export function printedFileBytes(path: string, printed: Uint8Array, diagnostics: FileSymbols["diagnostics"]): readonly Uint8Array[] {
  return [Buffer.from(`{"path":${JSON.stringify(path)},`), printed, diagnostics.length === 0 ? NO_DIAGNOSTICS : Buffer.from(`,"diagnostics":${JSON.stringify(diagnostics)}}`)];
}

/** The end of a line without diagnostics, most files' (shared: pieces are only read). */
const NO_DIAGNOSTICS = Buffer.from(`,"diagnostics":[]}`);

/** A symbol as `comity symbols --json` shows it: the record without its detail (built field by field: reading `detail` of a cached record would decode it, for nothing). */
export function shownSymbol(s: FileSymbols["symbols"][number]): Omit<FileSymbols["symbols"][number], "detail"> {
  return { name: s.name, qualified_name: s.qualified_name, kind: s.kind, exported: s.exported, range: s.range, signature_hash: s.signature_hash, body_hash: s.body_hash, signature: s.signature };
}
