#!/usr/bin/env node
// The engine's floor for symbols-real.mjs: a whole process that reads and parses every file it is given with
// the same backend `comity symbols` uses on many files (web-tree-sitter, initialised the way the engine does),
// and does nothing else. Usage: node benchmarks/parse-floor.mjs ts|py FILE...
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [lang, ...files] = process.argv.slice(2);
const { Parser, Language } = await import("web-tree-sitter");
const { initWebTreeSitter } = await import(path.join(here, "..", "dist", "tree-sitter", "init-web-tree-sitter.js"));
await initWebTreeSitter(Parser);
const wasm = lang === "py" ? "tree-sitter-python/tree-sitter-python.wasm" : "tree-sitter-typescript/tree-sitter-typescript.wasm";
const language = await Language.load(fileURLToPath(import.meta.resolve(wasm)));
const parser = new Parser();
parser.setLanguage(language);
for (const f of files) {
  const tree = parser.parse(fs.readFileSync(f, "utf8"));
  if (tree === null) throw new Error(`${f}: no tree`);
  tree.delete();
}
process.stdout.write(`${files.length} files parsed\n`);
