import { expect } from "vitest";
import { type CompatLanguage, compareSymbols, type SymbolChange } from "../../src/symbols/compare-symbols.js";
import type { SymbolExtractor } from "../../src/symbols/symbol-extractor.js";

/** One held pair of a language's compatibility table: the change expected for `name`, its verdict and one reason. */
export interface CompatRow {
  readonly row: string;
  readonly before: string;
  readonly after: string;
  readonly name: string;
  readonly change: SymbolChange["change"];
  readonly compatibility: SymbolChange["compatibility"];
  readonly code?: string;
}

/** Extracts both versions of `file` (`prefix` before each), compares them by `language`'s rules, and checks the row. */
export function checkCompatRow(extractor: SymbolExtractor, language: CompatLanguage, file: string, prefix: string, r: CompatRow): void {
  const b = extractor.extract(file, prefix + r.before);
  const a = extractor.extract(file, prefix + r.after);
  expect(b.diagnostics, r.row).toEqual([]);
  expect(a.diagnostics, r.row).toEqual([]);
  const changes = compareSymbols(b.symbols, a.symbols, language);
  const c = changes.find((x) => x.qualified_name === r.name);
  expect(c, `${r.row}: no change for ${r.name} in ${JSON.stringify(changes.map((x) => [x.qualified_name, x.change]))}`).toBeDefined();
  expect(c?.change, r.row).toBe(r.change);
  expect(c?.compatibility, `${r.row}: ${JSON.stringify(c?.reasons)}`).toBe(r.compatibility);
  if (r.code !== undefined)
    expect(
      c?.reasons.map((x) => x.code),
      r.row,
    ).toContain(r.code);
}
