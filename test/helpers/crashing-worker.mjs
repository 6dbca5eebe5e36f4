// The pool's parse worker (dist/symbols/parse-worker.js), except that it dies as it reads the file named by
// COMITY_TEST_CRASH_ON: for the tests that check that a pool survives a worker that crashes.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const target = process.env.COMITY_TEST_CRASH_ON;
const read = fs.readFileSync;
fs.readFileSync = function readOrDie(file, ...rest) {
  if (target !== undefined && typeof file === "string" && (file === target || file.endsWith(`/${target}`))) process.exit(70);
  return read.call(this, file, ...rest);
};
syncBuiltinESMExports();
await import(new URL("../../dist/symbols/parse-worker.js", import.meta.url).href);
