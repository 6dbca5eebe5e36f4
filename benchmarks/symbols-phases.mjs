#!/usr/bin/env node
// Where the time of the flat extraction goes, on a real corpus (symbols-real.mjs fetches them), as a fresh process
// meets it (cold: the extraction's code compiles as it runs): parse and copy, the flat tree, the query matcher, the
// extractor, finalizeSymbols, the references, each timed around its calls. With --turbofan instead: how many
// TurboFan compiles a `comity symbols --json --no-cache --jobs 1` over the corpus makes, and their summed time
// (`node --trace-opt`; compiles run beside the main thread, and a function compiled again after its optimised code
// was thrown away counts again). With --jobs N instead: whole `comity symbols --json --no-cache --jobs N` processes
// over the corpus, wall time and CPU time (user and system, read by GNU time when /usr/bin/time is there). With several --root (the repo folders of builds to compare, e.g. a worktree of an
// earlier commit), the builds take turns, run by run, and each figure is a median.
// Usage: node benchmarks/symbols-phases.mjs [--corpus ts|py] [--runs 7] [--turbofan | --jobs N] [--root DIR ...]
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median, REAL_CORPORA, realCorpusFiles, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "ts" },
    runs: { type: "string", default: "7" },
    turbofan: { type: "boolean", default: false },
    jobs: { type: "string" },
    root: { type: "string", multiple: true },
    child: { type: "string" },
  },
});
const corpusDir = path.join(REAL_CORPORA, values.corpus);

/** The corpus's files, as symbols-real.mjs lists them. */
function corpusFiles() {
  if (!fs.existsSync(path.join(corpusDir, ".done"))) throw new Error(`${corpusDir} is missing: run node benchmarks/symbols-real.mjs --runs 1 --corpus ${values.corpus} first`);
  return realCorpusFiles(values.corpus);
}

/** One cold pass in this process over the corpus, with the build at `root`: ms by phase. */
async function child(root) {
  const lang = values.corpus === "ts" ? "typescript" : "python";
  const load = (p) => import(pathToFileURL(path.join(root, "dist", p)).href);
  const [
    { LANGUAGES },
    { loadFlatParsers },
    { FlatTree, FlatAccess, flatLanguage },
    { matchTree },
    { parseQuery },
    { extractTypeScript },
    { extractPython },
    { finalizeSymbols },
    { extractReferences },
    { indexLexical },
    { loadContentHasher },
  ] = await Promise.all(
    [
      "symbols/languages.js",
      "parse/flat-parsers.js",
      "parse/flat-tree.js",
      "parse/query/match-query.js",
      "parse/query/parse-query.js",
      "symbols/typescript/extract-typescript.js",
      "symbols/python/extract-python.js",
      "symbols/raw-symbol.js",
      "symbols/extract-references.js",
      "symbols/normalize.js",
      "snapshot/content-hasher.js",
    ].map(load),
  );
  // The engine's own query and split of its matches: the measured build's, or, for a build older than
  // combined-query.js, this one's (the same code, moved there from symbol-extractor.js).
  const queryModule = ["dist", "symbols", "combined-query.js"];
  const { combinedQuery, splitMatches } = await import(pathToFileURL(path.join(fs.existsSync(path.join(root, ...queryModule)) ? root : path.join(here, ".."), ...queryModule)).href);
  const hasher = await loadContentHasher();
  const spec = LANGUAGES.find((l) => l.id === lang);
  const parser = (await loadFlatParsers([spec], "native")).get(lang);
  const patterns = parseQuery(combinedQuery(spec));
  const flatLang = flatLanguage(parser.language.types, (id) => parser.language.nodeTypeIsNamed(id), parser.language.fields);
  const texts = corpusFiles().map((f) => fs.readFileSync(f, "utf8"));
  const ms = { parse: 0, "flat tree": 0, match: 0, split: 0, lexical: 0, extract: 0, finalize: 0, references: 0 };
  const timed = (k, f) => {
    const t = performance.now();
    const r = f();
    ms[k] += performance.now() - t;
    return r;
  };
  const start = performance.now();
  for (const text of texts) {
    const data = timed("parse", () => parser.parse(text));
    const tree = timed("flat tree", () => new FlatTree(text, flatLang, data));
    const matches = timed("match", () => matchTree(patterns, 0, new FlatAccess(tree)));
    const parts = timed("split", () => splitMatches(matches));
    timed("lexical", () => indexLexical(tree, text, parts.lexical));
    const raw = timed("extract", () => (lang === "python" ? extractPython(tree, parts.definitions) : extractTypeScript(tree, parts.definitions, { isDeclarationFile: false, commonJs: false })));
    timed("finalize", () => finalizeSymbols(raw, (s) => hasher.xxh64(s)));
    timed("references", () => extractReferences(parts.references));
  }
  const total = performance.now() - start;
  process.stdout.write(JSON.stringify({ ...ms, "all but the parse": total - ms.parse, total }));
}

/** TurboFan's compiles over a whole `comity symbols` run with the build at `root`. */
function turbofan(root, files) {
  const r = spawnSync(process.execPath, ["--trace-opt", path.join(root, "bin", "comity.cjs"), "symbols", "--json", "--no-cache", "--jobs", "1", ...files], { encoding: "utf8", maxBuffer: 1 << 30 });
  let compiles = 0;
  let ms = 0;
  for (const m of r.stdout.matchAll(/completed compiling .* took ([\d.]+), ([\d.]+), ([\d.]+) ms/g)) {
    compiles++;
    ms += Number(m[1]) + Number(m[2]) + Number(m[3]);
  }
  return { compiles, "compile ms": ms };
}

/** A whole `comity symbols --jobs N` process with the build at `root`: wall ms, and CPU ms when GNU time can say. */
function whole(root, files, env) {
  const args = [path.join(root, "bin", "comity.cjs"), "symbols", "--json", "--no-cache", "--jobs", values.jobs, ...files];
  const gnuTime = fs.existsSync("/usr/bin/time");
  const cpuFile = path.join(os.tmpdir(), `comity-bench-phases-${process.pid}.txt`);
  const t = performance.now();
  const r = gnuTime
    ? spawnSync("/usr/bin/time", ["-o", cpuFile, "-f", "%U %S", process.execPath, ...args], { stdio: ["ignore", "ignore", "pipe"], env, maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env, maxBuffer: 1 << 30 });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`comity symbols failed: ${r.stderr}`);
  if (!gnuTime) return { "wall ms": wall };
  const [user, system] = fs.readFileSync(cpuFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
  fs.rmSync(cpuFile, { force: true });
  return { "wall ms": wall, "CPU ms": (user + system) * 1000 };
}

if (values.child !== undefined) {
  await child(values.child);
} else {
  const roots = values.root ?? [path.join(here, "..")];
  const files = corpusFiles();
  const runs = Number(values.runs);
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const results = roots.map(() => []);
  for (let i = 0; i < runs; i++) {
    roots.forEach((root, k) => {
      if (values.turbofan) results[k].push(turbofan(root, files));
      else if (values.jobs !== undefined) results[k].push(whole(root, files, env));
      else results[k].push(JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--corpus", values.corpus, "--child", root], { encoding: "utf8", env })));
    });
  }
  const keys = Object.keys(results[0][0]);
  console.log(
    `${values.corpus === "ts" ? "TypeScript" : "Python"} corpus, ${files.length} files; ${values.turbofan ? "TurboFan's compiles over comity symbols --jobs 1" : values.jobs !== undefined ? `whole processes of comity symbols --jobs ${values.jobs}` : "one cold pass in a fresh process, by phase"}; median of ${runs} runs, the builds taking turns\n`,
  );
  console.log(
    table(
      ["", ...roots.map((r) => path.relative(process.cwd(), r) || ".")],
      keys.map((k) => [k, ...results.map((rs) => median(rs.map((r) => r[k])).toFixed(0))]),
    ),
  );
}
