import { diagnostic } from "../errors/diagnostic.js";
import type { FlatTreeData } from "../parse/flat-tree.js";
import { languageOf } from "./languages.js";
import { jobBytes, type ExtractJob } from "./parse-work.js";
import type { SymbolCache } from "./symbol-cache.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import type { TIMED_OUT } from "./tree-parser.js";
import type { FileSymbols } from "./types.js";

/**
 * One job's symbols, extracted and stored in the cache under its content hash (the caller has looked there already).
 * `parsed`: the bytes a parse worker read and their tree (or that its parse went past its limits), read instead of
 * the job's file. `stored`: told the key a result was stored under.
 */
export function extractJob(
  job: ExtractJob,
  extractor: SymbolExtractor,
  cache: Pick<SymbolCache, "set"> | null,
  parsed?: { bytes: Buffer; tree: FlatTreeData | typeof TIMED_OUT | null },
  stored?: (key: string) => void,
): FileSymbols {
  try {
    const bytes = parsed?.bytes ?? jobBytes(job);
    const r = extractor.extract(job.path, bytes, parsed?.tree ?? null);
    if (job.store !== false && cache !== null) {
      const key = extractor.hasher.xxh64(bytes);
      if (cache.set(key, languageOf(job.path)?.id ?? "none", r)) stored?.(key);
    }
    return r;
  } catch (error) {
    return { path: job.path, language: null, symbols: [], references: [], diagnostics: [diagnostic("unreadable_file", "warning", job.path, error instanceof Error ? error.message : String(error))] };
  }
}
