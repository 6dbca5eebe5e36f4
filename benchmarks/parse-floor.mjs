#!/usr/bin/env node
// The engine's floor for symbols-real.mjs: a whole process that reads and parses every file it is given with
// the same backend `comity symbols` uses on many files (web-tree-sitter, initialised the way the engine does),
// and does nothing else. With --threads N (N > 1), N worker threads parse, each taking the next file from a
// shared counter (the engine's pool: its workers parse, its main thread waits).
// Usage: node benchmarks/parse-floor.mjs [--threads N] ts|py FILE...
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, workerData } from "node:worker_threads";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Parses files[i] for each i taken from the shared counter, until none is left. */
async function parseAll(lang, files, next) {
  const { Parser, Language } = await import("web-tree-sitter");
  const { initWebTreeSitter } = await import(path.join(here, "..", "dist", "tree-sitter", "init-web-tree-sitter.js"));
  await initWebTreeSitter(Parser);
  const wasm = lang === "py" ? "tree-sitter-python/tree-sitter-python.wasm" : "tree-sitter-typescript/tree-sitter-typescript.wasm";
  const language = await Language.load(fileURLToPath(import.meta.resolve(wasm)));
  const parser = new Parser();
  parser.setLanguage(language);
  for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) {
    const tree = parser.parse(fs.readFileSync(files[i], "utf8"));
    if (tree === null) throw new Error(`${files[i]}: no tree`);
    tree.delete();
  }
}

if (isMainThread) {
  const args = process.argv.slice(2);
  const threads = args[0] === "--threads" ? Number(args.splice(0, 2)[1]) : 1;
  const [lang, ...files] = args;
  const next = new Int32Array(new SharedArrayBuffer(4));
  if (threads <= 1) await parseAll(lang, files, next);
  else {
    const workers = Array.from({ length: threads }, () => new Worker(fileURLToPath(import.meta.url), { workerData: { lang, files, next } }));
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
  await parseAll(workerData.lang, workerData.files, workerData.next);
}
