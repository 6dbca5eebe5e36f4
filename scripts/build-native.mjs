#!/usr/bin/env node
// Builds Comity's native parser (native/flat_parse.c: tree-sitter's runtime, from the pinned `tree-sitter`
// package's sources, parsing into the flat copies the symbol extraction reads; native/extract_symbols.cc: the
// extraction of the symbols from them). Run by `npm ci`/`npm install` (the package's
// install script). It is an accelerator: when it cannot be built (no compiler, no headers), this says so on one
// line and exits 0, and the engine parses many files with web-tree-sitter and extracts them in JavaScript instead.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const native = join(dirname(fileURLToPath(import.meta.url)), "..", "native");
// npm puts its own node-gyp on the PATH of the scripts it runs (and names it in npm_config_node_gyp); run by hand,
// the node-gyp npm ships with is used.
const candidates = [process.env["npm_config_node_gyp"], join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js")];
let gyp = candidates.find((p) => p !== undefined && p !== "" && existsSync(p));
if (gyp === undefined) {
  try {
    gyp = createRequire(import.meta.url).resolve("node-gyp/bin/node-gyp.js");
  } catch {
    gyp = undefined;
  }
}
const args = ["rebuild", `--directory=${native}`];
// Without a nodedir, node-gyp downloads Node's headers; the ones installed beside this node are used when present.
const prefix = join(dirname(process.execPath), "..");
if (!process.env["npm_config_nodedir"] && existsSync(join(prefix, "include", "node", "node_api.h"))) args.push(`--nodedir=${prefix}`);
const r = gyp === undefined ? spawnSync("node-gyp", args, { stdio: ["ignore", "ignore", "pipe"], shell: process.platform === "win32" }) : spawnSync(process.execPath, [gyp, ...args], { stdio: ["ignore", "ignore", "pipe"] });
if (r.status !== 0) {
  rmSync(join(native, "build"), { recursive: true, force: true });
  const why = r.error?.message ?? String(r.stderr ?? "").split("\n").find((l) => /error/i.test(l)) ?? `exit ${r.status}`;
  process.stderr.write(`comity: the native parser was not built (${why.trim().slice(0, 200)}); symbols of many files are parsed with web-tree-sitter instead\n`);
}
