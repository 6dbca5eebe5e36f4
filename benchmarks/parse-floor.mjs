#!/usr/bin/env node
// The engine's floor for symbols-real.mjs: a whole process that reads and parses every file it is given with
// the parser `comity symbols` uses on many files, and does nothing else:
// - --parser native (the default when it is built): Comity's native parser (native/flat_parse.c), which returns
//   each tree as the flat copy the extraction reads, so its floor includes that copy;
// - --parser wasm: web-tree-sitter, initialised the way the engine does (the engine's fallback), with the same copy.
// With --threads N (N > 1), N worker threads parse, each taking the next file from a shared counter (the engine's
// pool: its workers parse, its main thread waits).
// Usage: node benchmarks/parse-floor.mjs [--threads N] [--parser native|wasm] ts|py FILE...
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, workerData } from "node:worker_threads";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "dist");

/** Parses files[i] for each i taken from the shared counter, until none is left. */
async function parseAll(parser, lang, files, next) {
  const parse = await layerParse(parser, lang);
  for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) parse(files[i]);
}

/** The engine's parse layer (src/parse/), with the parser asked for: each file's flat copy, as the extraction reads it. */
async function layerParse(kind, lang) {
  const { loadFlatParsers } = await import(path.join(dist, "parse", "flat-parsers.js"));
  const { LANGUAGES } = await import(path.join(dist, "symbols", "languages.js"));
  const id = lang === "py" ? "python" : lang === "go" ? "go" : lang === "rs" ? "rust" : lang === "java" ? "java" : "typescript";
  const parser = (
    await loadFlatParsers(
      LANGUAGES.filter((l) => l.id === id),
      kind,
    )
  ).get(id);
  if (parser === undefined || parser.kind !== kind) throw new Error(`the ${kind} parser does not load`);
  return (file) => parser.parse(fs.readFileSync(file, "utf8"));
}

if (isMainThread) {
  const args = process.argv.slice(2);
  const threads = args[0] === "--threads" ? Number(args.splice(0, 2)[1]) : 1;
  const parser = args[0] === "--parser" ? args.splice(0, 2)[1] : (await import(path.join(dist, "parse", "native-parser.js"))).bestFlatParserKind();
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
