import { languageOf } from "./languages.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import type { FileSymbols, LanguageId } from "./types.js";

const extractors = new Map<LanguageId | null, Promise<SymbolExtractor>>();

/**
 * One file's symbols and references, for a caller that does not keep an
 * extractor of its own: each language's grammar and queries are loaded on
 * its first file and kept for the process's later calls (the native backend,
 * default limits). A file of no known language yields an `unsupported_language`
 * diagnostic. For many files: `createSymbolExtractor`, or `extractMany` (a pool).
 *
 * @example
 * (await extractSymbols("src/a.ts", "export function f(a: number) {}")).symbols[0]?.qualified_name; // "f"
 */
export async function extractSymbols(path: string, source: string | Buffer): Promise<FileSymbols> {
  const language = languageOf(path)?.id ?? null;
  let extractor = extractors.get(language);
  if (extractor === undefined) {
    extractor = import("./symbol-extractor.js").then(({ createSymbolExtractor }) => createSymbolExtractor({ languages: language === null ? [] : [language] }));
    // A load that failed is not kept: the next call tries again.
    extractor.catch(() => extractors.delete(language));
    extractors.set(language, extractor);
  }
  return (await extractor).extract(path, source);
}
