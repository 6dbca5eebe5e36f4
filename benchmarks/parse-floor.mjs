#!/usr/bin/env node
// The engine's floor for symbols-real.mjs: a whole process that reads and parses every file it is given with
// the parser `comity symbols` uses on many files, and does nothing else:
// - --parser native (the default when it is built): Comity's native parser (native/flat_parse.c), which returns
//   each tree as the flat copy the extraction reads, so its floor includes that copy;
// - --parser wasm: web-tree-sitter, initialised the way the engine does (the engine's fallback), parse only.
// With --threads N (N > 1), N worker threads parse, each taking the next file from a shared counter (the engine's
// pool: its workers parse, its main thread waits).
// Usage: node benchmarks/parse-floor.mjs [--threads N] [--parser native|wasm] ts|py FILE...
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, workerData } from "node:worker_threads";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "dist", "tree-sitter");

/** Parses files[i] for each i taken from the shared counter, until none is left. */
async function parseAll(parser, lang, files, next) {
  const parse = parser === "native" ? await nativeParse(lang) : await wasmParse(lang);
  for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) parse(files[i]);
}

/** The engine's native parser and grammar, loaded as the engine loads them. */
async function nativeParse(lang) {
  const { openFlatParser } = await import(path.join(dist, "load-flat-parser.js"));
  const { loadNativeGrammar } = await import(path.join(dist, "load-native.js"));
  const { addon, problem } = openFlatParser();
  if (addon === null) throw new Error(`the native parser does not load: ${problem}`);
  const grammar = loadNativeGrammar(lang === "py" ? "tree-sitter-python" : "tree-sitter-typescript");
  const language = (lang === "py" ? grammar : grammar.typescript).language;
  return (file) => {
    if (addon.parse(language, fs.readFileSync(file, "utf8")) === null) throw new Error(`${file}: no tree`);
  };
}

async function wasmParse(lang) {
  const { Parser, Language } = await import("web-tree-sitter");
  const { initWebTreeSitter } = await import(path.join(dist, "init-web-tree-sitter.js"));
  await initWebTreeSitter(Parser);
  const wasm = lang === "py" ? "tree-sitter-python/tree-sitter-python.wasm" : "tree-sitter-typescript/tree-sitter-typescript.wasm";
  const language = await Language.load(fileURLToPath(import.meta.resolve(wasm)));
  const parser = new Parser();
  parser.setLanguage(language);
  return (file) => {
    const tree = parser.parse(fs.readFileSync(file, "utf8"));
    if (tree === null) throw new Error(`${file}: no tree`);
    tree.delete();
  };
}

if (isMainThread) {
  const args = process.argv.slice(2);
  const threads = args[0] === "--threads" ? Number(args.splice(0, 2)[1]) : 1;
  const parser = args[0] === "--parser" ? args.splice(0, 2)[1] : (await import(path.join(dist, "load-flat-parser.js"))).bestFlatParserKind();
  const [lang, ...files] = args;
  const next = new Int32Array(new SharedArrayBuffer(4));
  if (threads <= 1) await parseAll(parser, lang, files, next);
  else {
    const workers = Array.from({ length: threads }, () => new Worker(fileURLToPath(import.meta.url), { workerData: { parser, lang, files, next } }));
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve, reject) => {
            w.once("error", reject);
            w.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`a worker exited with ${code}`))));
          }),
      ),
    );
  }
  process.stdout.write(`${files.length} files parsed\n`);
} else {
  await parseAll(workerData.parser, workerData.lang, workerData.files, workerData.next);
}
