// The pool's parse worker (dist/symbols/parse-worker.js), except that it dies as it reads the file named by
// COMITY_TEST_CRASH_ON: for the tests that check that a pool survives a worker that crashes (and, with
// COMITY_TEST_READY_AFTER_MS, that starts only after that long).
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const target = process.env.COMITY_TEST_CRASH_ON;
const read = fs.readFileSync;
fs.readFileSync = function readOrDie(file, ...rest) {
  if (target !== undefined && typeof file === "string" && (file === target || file.endsWith(`/${target}`))) process.exit(70);
  return read.call(this, file, ...rest);
};
syncBuiltinESMExports();
const wait = Number(process.env.COMITY_TEST_READY_AFTER_MS ?? 0);
if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
await import(new URL("../../dist/symbols/parse-worker.js", import.meta.url).href);
