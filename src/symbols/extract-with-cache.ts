import { loadContentHasher } from "../snapshot/content-hasher.js";
import { languageOf } from "./languages.js";
import { cachedFor, type SymbolCache } from "./symbol-cache.js";
import type { ParserBackend, SymbolExtractor } from "./symbol-extractor.js";
import type { FileSymbols, LanguageId } from "./types.js";

// Symbol extraction through the content-hash cache, apart from the comparison code (`analyze-file.ts`): what the
// pool's workers and `comity symbols FILE` load.

/** Extraction through the cache: a hit costs one xxhash64 and one small file read. */
export function cachedExtract(repoPath: string, bytes: Buffer, extractor: SymbolExtractor, cache: SymbolCache | null): FileSymbols {
  const hash = extractor.hasher.xxh64(bytes);
  const hit = cachedFor(repoPath, cache?.get(hash, languageOf(repoPath)?.id ?? "none") ?? null);
  return hit ?? extractAndStore(repoPath, bytes, hash, extractor, cache);
}

/** Extraction of content the cache was already asked about (a miss), stored under its hash. */
export function extractAndStore(repoPath: string, bytes: Buffer, hash: string, extractor: SymbolExtractor, cache: SymbolCache | null): FileSymbols {
  const result = extractor.extract(repoPath, bytes);
  cache?.set(hash, languageOf(repoPath)?.id ?? "none", result);
  return result;
}

/**
 * Symbols of a few files (a CLI call, a hook event), loading tree-sitter
 * only when the cache cannot answer: a fully cached call costs a hash and a
 * lookup per file, no grammar. Results in input order.
 */
export async function extractWithCache(
  files: ReadonlyArray<{ readonly path: string; readonly bytes: Buffer }>,
  options: { cache: SymbolCache | null; backend?: ParserBackend },
): Promise<FileSymbols[]> {
  const hasher = await loadContentHasher();
  const hashes = files.map((f) => hasher.xxh64(f.bytes));
  const out: Array<FileSymbols | null> = files.map((f, i) => cachedFor(f.path, options.cache?.get(hashes[i] as string, languageOf(f.path)?.id ?? "none") ?? null));
  const missing = out.flatMap((r, i) => (r === null ? [i] : []));
  if (missing.length > 0) {
    const languages = [...new Set(missing.map((i) => languageOf(files[i]?.path ?? "")?.id).filter((l): l is LanguageId => l !== undefined))];
    // Loaded only on a miss: a fully cached call loads no extractor code (nor tree-sitter).
    const { createSymbolExtractor } = await import("./symbol-extractor.js");
    const extractor = await createSymbolExtractor({ languages, ...(options.backend === undefined ? {} : { backend: options.backend }) });
    for (const i of missing) {
      const f = files[i] as { path: string; bytes: Buffer };
      out[i] = extractAndStore(f.path, f.bytes, hashes[i] as string, extractor, options.cache);
    }
  }
  return out as FileSymbols[];
}
