/**
 * Worker thread of the symbol pool: loads the extractor once, then reads,
 * extracts (through the cache) and posts back each batch of files it is sent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { diagnostic } from "../errors/diagnostic.js";
import { cachedExtract } from "./extract-with-cache.js";
import { jobBytes, type ExtractJob } from "./extract-pool.js";
import { languageOf } from "./languages.js";
import { createSymbolCache, packSymbols } from "./symbol-cache.js";
import { createSymbolExtractor, type ParserBackend } from "./symbol-extractor.js";
import type { FileSymbols } from "./types.js";

interface Data {
  readonly cacheDir: string | null;
  readonly backend: ParserBackend | null;
}

const data = workerData as Data;
const extractor = await createSymbolExtractor(data.backend === null ? {} : { backend: data.backend });
const cache = data.cacheDir === null ? null : createSymbolCache(data.cacheDir);

parentPort?.on("message", (batch: readonly ExtractJob[]) => {
  const out: FileSymbols[] = batch.map((job) => {
    try {
      // Test hook: makes this worker die on one file, to check that the pool survives a crash.
      if (process.env["COMITY_TEST_CRASH_ON"] !== undefined && job.path === process.env["COMITY_TEST_CRASH_ON"]) process.exit(70);
      const r = cachedExtract(job.path, jobBytes(job), extractor, cache);
      if (job.cacheKey !== undefined) cache?.set(job.cacheKey, languageOf(job.path)?.id ?? "none", r);
      return r;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { path: job.path, language: null, symbols: [], references: [], diagnostics: [diagnostic("unreadable_file", "warning", job.path, message)] };
    }
  });
  // In the cache's compact form (an array of strings and numbers a symbol, its detail as one JSON string): it
  // clones faster than the records, and the pool's thread then builds no detail object until someone reads one.
  parentPort?.postMessage(out.map((r) => [r.path, packSymbols(r)]));
});
parentPort?.postMessage("ready");
