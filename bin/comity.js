#!/usr/bin/env node
import { runCli } from "../dist/cli/main.js";

// The commands that extract the symbols of many files run for seconds: for them, TurboFan's inlining costs more
// compiling (on V8's background threads, beside the parse workers on the same cores) than the inlined code gains
// back (benchmarks/README.md, "no inlining"). Set before any code is hot, and only there: a hook has no need to load
// `node:v8`, and `serve` runs for days.
if (process.argv[2] === "symbols" || process.argv[2] === "analyze") (await import("node:v8")).setFlagsFromString("--no-turbo-inlining");

// A reader that stops early (`comity ... | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

/** All of stdin, up to a bound (a hook payload over it fails open without being held whole). */
async function readStdin(limit = 5 * 1024 * 1024) {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > limit) {
      chunks.push(chunk.subarray(0, 1));
      process.stdin.destroy();
      return "x".repeat(limit + 1);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  stdinIsTTY: process.stdin.isTTY === true,
  readStdin,
});
// Exit as soon as the output is flushed: an idle keep-alive socket or worker must not hold the process
// (a hook's host is waiting on it).
process.exitCode = code;
process.stdout.write("", () => process.exit(code));
