import { startExtractPool, type ExtractPool, type StartPoolOptions } from "../../src/symbols/start-extract-pool.js";

/** Starts pools whose workers die as they read the file named `crashOn` (its path's last segments): `extractMany`'s `startPool`. */
export function crashingPools(crashOn: string): (options: StartPoolOptions) => ExtractPool {
  return (options) => {
    process.env["COMITY_TEST_CRASH_ON"] = crashOn;
    return startExtractPool({ ...options, workerUrl: new URL("./crashing-worker.mjs", import.meta.url) });
  };
}
