#!/usr/bin/env node
// One timed run of symbol extraction over a folder, as its own process (so that start-up,
// grammar loading and workers count, as they do for ctags). Prints one JSON line.
//   --mode engine   : the engine (extractMany: pool of --jobs workers, cache in --cache or none, --backend flat|wasm;
//                     flat, the engine's choice for many files: flat copies made by Comity's native parser)
//   --mode thread   : the engine's extraction on this one thread, no pool, no cache (--backend flat|wasm)
//   --mode wasm     : bare parse + tree-sitter's compiled combined query (definitions, references and lexical as one,
//                     as the engine runs them), one thread, web-tree-sitter and the grammars' .wasm files; no symbol built
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { mode: { type: "string", default: "engine" }, jobs: { type: "string", default: "1" }, cache: { type: "string", default: "none" }, backend: { type: "string", default: "flat" } },
});
const dir = positionals[0];
const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(ts|tsx|js|py)$/.test(e.name)) files.push(p);
  }
};
walk(dir);
files.sort();
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
const t0 = process.hrtime.bigint();
let symbols = 0;

if (values.mode === "engine") {
  const { extractMany } = await import("../dist/symbols/extract-pool.js");
  const results = await extractMany(
    files.map((f) => ({ path: path.relative(dir, f), abs: f })),
    { workers: Number(values.jobs), cacheDir: values.cache === "none" ? null : values.cache, backend: values.backend },
  );
  symbols = results.reduce((n, r) => n + r.symbols.length, 0);
} else if (values.mode === "thread") {
  const { createSymbolExtractor } = await import("../dist/symbols/symbol-extractor.js");
  const extractor = await createSymbolExtractor({ backend: values.backend });
  for (const f of files) symbols += extractor.extract(path.relative(dir, f), fs.readFileSync(f)).symbols.length;
} else {
  const isPy = files[0]?.endsWith(".py");
  const combined = ["definitions", "references", "lexical"].map((name) => fs.readFileSync(path.join(here, "..", "grammars", isPy ? "python" : "typescript", `${name}.scm`), "utf8")).join("\n");
  let parse;
  let query;
  {
    const { Parser, Language, Query } = await import("web-tree-sitter");
    await Parser.init();
    const wasm = isPy ? "tree-sitter-python/tree-sitter-python.wasm" : "tree-sitter-typescript/tree-sitter-typescript.wasm";
    const lang = await Language.load(path.join(here, "..", "node_modules", wasm));
    const parser = new Parser();
    parser.setLanguage(lang);
    query = new Query(lang, combined);
    parse = (text) => parser.parse(text);
  }
  for (const f of files) {
    const tree = parse(fs.readFileSync(f, "utf8"));
    symbols += query.matches(tree.rootNode).length;
    tree.delete?.();
  }
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
process.stdout.write(`${JSON.stringify({ files: files.length, bytes, symbols, ms, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
