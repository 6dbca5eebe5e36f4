#!/usr/bin/env node
// Symbols on real code, as whole processes, against a native tree-sitter tool parsing the same files with the same
// threads (issue "Symbols at tree-sitter speed on real code"). Corpora, offline once fetched: the TypeScript
// sources that `effect` and `rxjs` ship in their npm packages (pinned, `npm pack`), and the standard library of
// this machine's python3. Anchors in the same run: ast-grep (`@ast-grep/cli`, a dev dependency) with a pattern
// that matches every function, at 1 and 2 threads; universal-ctags; and the engine's floor, a process that only
// parses the same files with the same parser (parse-floor.mjs: Comity's native parser, which also makes the flat
// copy), at 1 and 2 threads, with web-tree-sitter's (the fallback when the native parser is not built) on one
// thread beside it. The native parser must be built (npm ci builds it): the run stops otherwise. Every figure is a whole
// process, Node's or the tool's start-up included; Comity's is `comity symbols --json --no-cache --jobs N` over the
// corpus's files. The run checks that both parsers (the native one, and web-tree-sitter, the fallback where it is not
// built) print the same bytes.
// Usage: node benchmarks/symbols-real.mjs [--runs 3] [--corpus ts|py|go|rs|java]
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { ensureTool, listFiles, machine, median, REAL_CORPORA, realCorpusFiles, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const astGrep = path.join(here, "..", "node_modules", ".bin", "ast-grep");
const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, corpus: { type: "string", default: "all" }, "max-files": { type: "string" } } });
/** A smoke run's cap: the first N files of each corpus (by path), copied to a folder of their own so every tool reads the same. */
const maxFiles = values["max-files"] === undefined ? null : Number(values["max-files"]);
const runs = Number(values.runs);
const PACKAGES = ["effect@3.18.4", "rxjs@7.8.2"];
const base = REAL_CORPORA;

/** The TypeScript corpus: each package's `src/`, unpacked from `npm pack` once. */
function tsCorpus() {
  const dir = path.join(base, "ts");
  if (!fs.existsSync(path.join(dir, ".done"))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const spec of PACKAGES) {
      const name = spec.split("@")[0];
      const out = execFileSync("npm", ["pack", spec, "--silent", "--pack-destination", dir], { encoding: "utf8" }).trim().split("\n").pop();
      const target = path.join(dir, name);
      fs.mkdirSync(target);
      execFileSync("tar", ["xzf", path.join(dir, out), "-C", target, "--strip-components=1", "package/src"]);
      fs.rmSync(path.join(dir, out));
    }
    fs.writeFileSync(path.join(dir, ".done"), PACKAGES.join("\n"));
  }
  return { dir, files: realCorpusFiles("ts") };
}

/** A corpus copied once from the folder `source()` finds (the files `keep` names, none that `skip` does), so that every tool reads exactly the same files. */
function copiedCorpus(id, source, keep, skip) {
  const dir = path.join(base, id);
  if (!fs.existsSync(path.join(dir, ".done"))) {
    const src = source();
    fs.rmSync(dir, { recursive: true, force: true });
    for (const f of listFiles(src, keep, skip)) {
      const to = path.join(dir, path.relative(src, f));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(f, to);
    }
    fs.writeFileSync(path.join(dir, ".done"), src);
  }
  return { dir, files: realCorpusFiles(id) };
}

/** The Python corpus: this machine's standard library (its .py files, without site-packages). */
const pyCorpus = () =>
  copiedCorpus("py", () => execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: "utf8" }).trim(), /\.py$/, /(^|\/)site-packages\//);

/** The Go corpus: this machine's Go standard library (Debian's golang-go: GOROOT/src without tests, testdata and vendored code). */
const goCorpus = () =>
  copiedCorpus(
    "go",
    () => {
      if (!ensureTool("go", "golang-go")) throw new Error("go is missing: apt-get install golang-go");
      return path.join(execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim(), "src");
    },
    /\.go$/,
    /(^|\/)(testdata|vendor)\/|_test\.go$/,
  );

/** The Rust corpus: this machine's Rust standard library (Debian's rust-src: library/ without tests and benches). */
const rsCorpus = () =>
  copiedCorpus(
    "rs",
    () => {
      const src = fs.existsSync("/usr/src")
        ? fs
            .readdirSync("/usr/src")
            .filter((d) => d.startsWith("rustc-"))
            .sort()
            .pop()
        : undefined;
      if (src === undefined) throw new Error("the Rust standard library's sources are missing: apt-get install rust-src");
      return path.join("/usr/src", src, "library");
    },
    /\.rs$/,
    /(^|\/)(tests|benches)\//,
  );

/**
 * The Java corpus: this machine's JDK 17 sources of java.base's `java.*` packages (Debian's openjdk-17-source),
 * unpacked once so that every tool reads exactly the same files.
 */
function javaCorpus() {
  const dir = path.join(base, "java");
  if (!fs.existsSync(path.join(dir, ".done"))) {
    const zip = "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip";
    if (!fs.existsSync(zip)) throw new Error("the JDK's sources are missing: apt-get install openjdk-17-source");
    fs.rmSync(dir, { recursive: true, force: true });
    const unpack = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor n in z.namelist():\n    if n.startswith('java.base/java/') and n.endswith('.java'): z.extract(n, sys.argv[2])\n";
    execFileSync("python3", ["-c", unpack, zip, dir]);
    fs.writeFileSync(path.join(dir, ".done"), zip);
  }
  return { dir, files: realCorpusFiles("java") };
}

const time = (cmd, args, opts = {}) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30, ...opts });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 && !(cmd === astGrep && r.status === 1)) throw new Error(`${path.basename(cmd)} ${args.slice(0, 4).join(" ")}: exit ${r.status}: ${String(r.stderr).slice(0, 300)}`);
  return ms;
};
const haveCtags = ensureTool("ctags", "universal-ctags");
if (!fs.existsSync(astGrep)) throw new Error("ast-grep is missing: npm ci installs @ast-grep/cli");
const { problem } = (await import(path.join(here, "..", "dist", "parse", "native-parser.js"))).openFlatParser();
if (problem !== null) throw new Error(`the native parser does not load (${problem}): run node scripts/build-native.mjs`);

const rows = [];
const verdicts = [];
const identical = [];
const corpora = [
  ["TypeScript", tsCorpus, "function $F($$$A) { $$$B }", "ts"],
  ["Python", pyCorpus, "def $F($$$A): $$$B", "py"],
  ["Go", goCorpus, "func $F($$$A) { $$$B }", "go"],
  ["Rust", rsCorpus, "fn $F($$$A) { $$$B }", "rs"],
  ["Java", javaCorpus, "class $C { $$$B }", "java"],
].filter(([, , , id]) => values.corpus === "all" || values.corpus === id);
/** The first `n` files of a corpus, in a folder of their own. */
function firstFiles(corpus, n, id) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `comity-bench-${id}-first${n}-`));
  const files = [...corpus.files].sort().slice(0, n);
  for (const f of files) {
    const to = path.join(dir, path.relative(corpus.dir, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  return { dir, files: files.map((f) => path.join(dir, path.relative(corpus.dir, f))) };
}
for (const [lang, load, pattern, sgLang] of corpora) {
  const corpus = maxFiles === null ? load() : firstFiles(load(), maxFiles, sgLang);
  const bytes = corpus.files.reduce((n, f) => n + fs.statSync(f).size, 0);
  const mbps = (ms) => (bytes / 1e6 / (ms / 1000)).toFixed(2);
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-symbols-"));
  const env = { ...process.env, COMITY_CONFIG_DIR: configDir };
  const floorScript = path.join(here, "parse-floor.mjs");
  // Each round runs every process once, one after the other, and each ratio is taken within a round (the median of
  // the rounds' ratios is shown): this machine's speed drifts over tens of seconds, by as much as a quarter, and
  // runs of one tool taken together, then of the other, put that drift into the ratio.
  const processes = {
    sg1: () => time(astGrep, ["run", "--pattern", pattern, "--lang", sgLang, "--json=stream", "--threads", "1", corpus.dir]),
    ours1: () => time(process.execPath, [bin, "symbols", "--json", "--no-cache", "--jobs", "1", ...corpus.files], { env }),
    node: () => time(process.execPath, ["-e", "0"]),
    // The engine's own floor: the same parser parsing the same files in a whole process, and nothing else, on one
    // thread and on two worker threads (as the engine's pool parses); and web-tree-sitter's, the fallback's.
    floor1: () => time(process.execPath, [floorScript, "--parser", "native", sgLang, ...corpus.files]),
    wasm1: () => time(process.execPath, [floorScript, "--parser", "wasm", sgLang, ...corpus.files]),
    sg2: () => time(astGrep, ["run", "--pattern", pattern, "--lang", sgLang, "--json=stream", "--threads", "2", corpus.dir]),
    ours2: () => time(process.execPath, [bin, "symbols", "--json", "--no-cache", "--jobs", "2", ...corpus.files], { env }),
    floor2: () => time(process.execPath, [floorScript, "--threads", "2", "--parser", "native", sgLang, ...corpus.files]),
    ...(haveCtags ? { ctags: () => time("ctags", ["-R", "--fields=+S", "--output-format=json", "-f", "-", corpus.dir]) } : {}),
    // The cache: a cold run fills it, the warm one reads it (both whole processes, the default threads).
    cold: () => {
      fs.rmSync(path.join(configDir, "symbols"), { recursive: true, force: true });
      return time(process.execPath, [bin, "symbols", "--json", ...corpus.files], { env });
    },
    warm: () => time(process.execPath, [bin, "symbols", "--json", ...corpus.files], { env }),
  };
  const rounds = Array.from({ length: runs }, () => Object.fromEntries(Object.entries(processes).map(([k, run]) => [k, run()])));
  // The two parsers (the native one, and web-tree-sitter where it is not built) on the whole corpus: the same bytes,
  // or no figures.
  {
    const printed = (extra) => execFileSync(process.execPath, [bin, "symbols", "--json", "--no-cache", "--jobs", "2", ...corpus.files], { env: { ...env, ...extra }, maxBuffer: 1 << 30 });
    const [nativeOut, wasmOut] = [printed({}), printed({ COMITY_FLAT_PARSER: "wasm" })];
    if (!nativeOut.equals(wasmOut)) throw new Error(`${lang}: the output through web-tree-sitter differs from the native parser's`);
    identical.push(`${lang}: both parsers give the same ${nativeOut.length} bytes (md5 ${createHash("md5").update(nativeOut).digest("hex")})`);
  }
  fs.rmSync(configDir, { recursive: true, force: true });
  const ms = (k) => median(rounds.map((r) => r[k]));
  const ratio = (a, b) => median(rounds.map((r) => r[a] / r[b]));
  // The rounds' lowest and highest ratio beside the median: how far this machine's noise moved it in this run.
  const spread = (a, b, digits) => {
    const all = rounds.map((r) => r[a] / r[b]);
    return rounds.length < 2 ? "" : ` (${Math.min(...all).toFixed(digits)}-${Math.max(...all).toFixed(digits)})`;
  };
  const label = `${lang}: ${corpus.files.length} files, ${(bytes / 1e6).toFixed(1)} MB`;
  const row = (what, k, anchor) => rows.push([`${label}; ${what}`, ms(k).toFixed(0), mbps(ms(k)), anchor === null ? "1.00" : `${ratio(anchor, k).toFixed(2)}${spread(anchor, k, 2)}`]);
  row("ast-grep, 1 thread (anchor)", "sg1", null);
  row("parse and copy, Comity's native parser, 1 thread (the engine's floor)", "floor1", "sg1");
  row("parse only, web-tree-sitter, 1 thread (the fallback's floor)", "wasm1", "sg1");
  row("comity symbols --jobs 1", "ours1", "sg1");
  row("ast-grep, 2 threads (anchor)", "sg2", null);
  row("parse and copy, Comity's native parser, 2 threads (the engine's floor)", "floor2", "sg2");
  row("comity symbols --jobs 2 (a worker parses, the main thread extracts and parses)", "ours2", "sg2");
  if (haveCtags) rows.push([`${label}; ctags`, ms("ctags").toFixed(0), mbps(ms("ctags")), `${ratio("sg2", "ctags").toFixed(2)} (of ast-grep 2 threads)`]);
  rows.push([
    `${label}; comity symbols, cache cold then warm`,
    `${ms("cold").toFixed(0)} / ${ms("warm").toFixed(0)}`,
    "",
    `${ratio("cold", "warm").toFixed(1)}x faster warm${spread("cold", "warm", 1)}`,
  ]);
  rows.push([`${label}; node -e 0 (anchor of the warm run)`, ms("node").toFixed(0), "", ""]);
  // Targets: two threads against ast-grep's two (TypeScript 0.4, Python 0.7: the parse alone is about 0.9), and a
  // warm re-run within 100 ms of Node's own start.
  const target = sgLang === "ts" ? 0.4 : sgLang === "go" || sgLang === "rs" || sgLang === "java" ? 0.5 : 0.7;
  const r2 = ratio("sg2", "ours2");
  verdicts.push([`${lang}, 2 threads: comity ÷ ast-grep throughput ≥ ${target}`, r2.toFixed(2), r2 >= target ? "met" : "NOT met"]);
  const over = median(rounds.map((r) => r.warm - r.node));
  verdicts.push([`${lang}: warm re-run within 100 ms of node -e 0`, `+${over.toFixed(0)} ms`, over <= 100 ? "met" : "NOT met"]);
}
console.log(
  `machine: ${machine()}; corpora: ${PACKAGES.join(", ")} (src/), python3 ${execFileSync("python3", ["-c", "import sys; print(sys.version.split()[0])"], { encoding: "utf8" }).trim()} stdlib; ${runs} rounds, each running every process once; median ms, and the median of the rounds' ratios (lowest-highest round in brackets); whole processes\n`,
);
console.log(table(["process", "median ms", "MB/s", "throughput ÷ ast-grep (same threads)"], rows));
console.log("");
for (const line of identical) console.log(`${line}.`);
if (identical.length > 0) console.log("");
console.log(table(["target", "figure", "verdict"], verdicts));
