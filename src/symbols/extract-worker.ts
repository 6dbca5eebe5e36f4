/**
 * Worker thread of the symbol pool: loads the extractor once, then reads,
 * extracts and posts back each batch of files it is sent, as entry texts
 * that the pool's thread stores (it has looked in the cache already).
 */
import { parentPort, workerData } from "node:worker_threads";
import { extractForPool, type PoolBatch } from "./extract-pool.js";
import { createSymbolExtractor, type ParserBackend } from "./symbol-extractor.js";
import type { LanguageId } from "./types.js";

interface Data {
  readonly cacheDir: string | null;
  readonly backend: ParserBackend | null;
  /** The languages to load; null: all (a pool started before its jobs were known). */
  readonly languages: readonly LanguageId[] | null;
}

const data = workerData as Data;
const extractor = await createSymbolExtractor({ ...(data.backend === null ? {} : { backend: data.backend }), ...(data.languages === null ? {} : { languages: data.languages }) });

parentPort?.on("message", (batch: PoolBatch) => {
  const out = batch.jobs.map((job) => {
    // Test hook: makes this worker die on one file, to check that the pool survives a crash.
    if (process.env["COMITY_TEST_CRASH_ON"] !== undefined && job.path === process.env["COMITY_TEST_CRASH_ON"]) process.exit(70);
    return extractForPool(job, extractor, data.cacheDir !== null, batch.printedOnly);
  });
  parentPort?.postMessage(out);
});
parentPort?.postMessage("ready");
