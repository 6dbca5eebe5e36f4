#!/usr/bin/env node
// The package's install script (`npm install`, `npm ci`): makes Comity's native parser (native/flat_parse.c:
// tree-sitter's runtime parsing into the flat trees the symbol extraction reads, and a bulk stat) available.
// A package that ships a prebuilt parser for this platform that loads here needs nothing more: no compiler. Else it
// is built from source. It is an accelerator: when neither works (no prebuild, no compiler), this says so on one
// line and exits 0, and the engine parses with web-tree-sitter instead, with the same results.
// `npm_config_build_from_source=true` (or `=comity`) builds from source even where a prebuild loads.
import { createRequire } from "node:module";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { NATIVE_DIR, nodeGypRebuild, PREBUILT } from "./node-gyp.mjs";

const fromSource = ["true", "comity"].includes(process.env["npm_config_build_from_source"] ?? "");
if (!fromSource && existsSync(PREBUILT)) {
  try {
    const addon = createRequire(import.meta.url)(PREBUILT);
    if (typeof addon.parse === "function") process.exit(0);
  } catch {
    // made for another libc or runtime: build it here
  }
}
const r = nodeGypRebuild();
if (r.status !== 0) {
  rmSync(join(NATIVE_DIR, "build"), { recursive: true, force: true });
  const why =
    r.error?.message ??
    String(r.stderr ?? "")
      .split("\n")
      .find((l) => /error/i.test(l)) ??
    `exit ${r.status}`;
  process.stderr.write(`comity: the native parser was not built (${why.trim().slice(0, 200)}); files are parsed with web-tree-sitter instead, with the same results\n`);
}
