import { startExtractPool, type ExtractPool, type StartPoolOptions } from "../../src/symbols/start-extract-pool.js";

/**
 * Starts pools whose workers die as they read the file named `crashOn` (its path's last segments): `extractMany`'s
 * `startPool`. Their thread does not share the jobs (`share: false`: every job is a worker's), unless `share` says so;
 * `readyAfterMs`: each worker waits that long before it loads the parse worker.
 */
export function crashingPools(crashOn: string, options: { share?: boolean; readyAfterMs?: number } = {}): (pool: StartPoolOptions) => ExtractPool {
  return (pool) => {
    process.env["COMITY_TEST_CRASH_ON"] = crashOn;
    process.env["COMITY_TEST_READY_AFTER_MS"] = String(options.readyAfterMs ?? 0);
    return startExtractPool({ ...pool, share: options.share ?? false, workerUrl: new URL("./crashing-worker.mjs", import.meta.url) });
  };
}
