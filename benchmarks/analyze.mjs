#!/usr/bin/env node
// comity analyze at scale: a generated repo (default 100,000 files) with N changed files (default 2,000,
// TypeScript and Python), analysed twice (cold symbol cache, then warm), as whole processes, with
// `git status --porcelain=v2 -uall` as the anchor. Prints time, peak memory and the cache speed-up.
// With --other PATH/bin/comity.cjs (another build, e.g. a worktree of an earlier commit), each pair also runs that
// build cold, right after this one, and the table adds the side-by-side speed-up (the median of the pairs).
// Usage: node benchmarks/analyze.mjs [--files N] [--changes N] [--pairs 3] [--other PATH/bin/comity.cjs]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { generateBigRepo } from "./generate-big-repo.mjs";
import { machine, sh, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: { files: { type: "string", default: "100000" }, changes: { type: "string", default: "2000" }, pairs: { type: "string", default: "3" }, other: { type: "string" } },
});
const files = Number(values.files);
const changes = Number(values.changes);
const pairs = Number(values.pairs);
const big = generateBigRepo({ files, dir: path.join(os.tmpdir(), "comity-bench", `repo-${files}`) });
const root = big.dir;

// One pair: from a clean tree, change `changes` source files (every k-th tracked .ts/.py file: a new required parameter in
// each), take the anchor, then analyse twice with an empty config folder (cold: no symbol, discovery or memo cache),
// then again (the second run). Each pair starts from the same state, edits included, so pairs differ only by noise.
const tracked = () => sh("git", ["ls-files", "*.ts", "*.py"], { cwd: root }).trim().split("\n");
const edit = () => {
  sh("git", ["checkout", "--", "."], { cwd: root });
  const all = tracked();
  const step = Math.max(1, Math.floor(all.length / changes));
  for (const f of all.filter((_, i) => i % step === 0).slice(0, changes)) {
    const p = path.join(root, f);
    const text = fs.readFileSync(p, "utf8");
    fs.writeFileSync(p, f.endsWith(".py") ? `${text}\ndef added_${changes}(a, b):\n    return a\n` : `${text}\nexport function added(a: number, b: string): void {}\n`);
  }
};
const ourBin = path.join(here, "..", "bin", "comity.cjs");
const run = (config, bin = ourBin) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", path.join(here, "report-rss.mjs"), bin, "analyze", root, "--json", "--max-repos", "1", "--timings"], {
    env: { ...process.env, COMITY_CONFIG_DIR: config },
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(r.stderr);
  const doc = JSON.parse(r.stdout);
  return {
    ms,
    rss: Number(/PEAK_RSS_KIB=(\d+)/.exec(r.stderr)?.[1] ?? 0),
    changes: doc.repos[0].changes.length,
    analysed: doc.repos[0].changes.filter((c) => c.symbols !== null).length,
    timings: r.stderr
      .split("\n")
      .filter((l) => / ms$/.test(l))
      .join("; "),
  };
};
const results = [];
const configs = [];
for (let i = 0; i < pairs; i++) {
  edit();
  const t0 = process.hrtime.bigint();
  sh("git", ["status", "--porcelain=v2", "-uall"], { cwd: root });
  const gitMs = Number(process.hrtime.bigint() - t0) / 1e6;
  // Each cold run starts with the disk settled (`sync`: the edits, and the last run's cache, written out), and with
  // --other the two builds take turns going first, so that neither always runs after the other's writes. The config
  // folders are removed at the end: deleting thousands of files slows the file creations of the next seconds (on
  // this machine's ext4, creating a cache entry then took 0.4 ms instead of 0.03).
  const runOther = () => {
    const otherConfig = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-analyze-"));
    configs.push(otherConfig);
    spawnSync("sync");
    return run(otherConfig, path.resolve(values.other));
  };
  let other = values.other !== undefined && i % 2 === 1 ? runOther() : null;
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-analyze-"));
  configs.push(config);
  spawnSync("sync");
  const cold = run(config);
  const warm = run(config);
  if (values.other !== undefined && other === null) other = runOther();
  results.push({ gitMs, cold, warm, other, ratio: cold.ms / warm.ms });
}
sh("git", ["checkout", "--", "."], { cwd: root });
for (const c of configs) fs.rmSync(c, { recursive: true, force: true });

// The pair whose speed-up is the median one is the record (its cold and warm figures belong together).
const mid = [...results].sort((a, b) => a.ratio - b.ratio)[Math.floor((results.length - 1) / 2)];
const { gitMs, cold, warm } = mid;
console.log(`machine: ${machine()}`);
console.log(`repo: ${files} files, ${changes} changed (${cold.changes} reported, ${cold.analysed} with symbols); ${pairs} pairs of runs, the median pair shown`);
console.log(`pairs (cold / second run, ms): ${results.map((r) => `${r.cold.ms.toFixed(0)} / ${r.warm.ms.toFixed(0)} = ${r.ratio.toFixed(1)} x`).join("; ")}\n`);
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
const peak = Math.max(...results.map((r) => r.cold.rss));
console.log(
  table(
    ["what", "ms", "× git status", "peak RSS", "target"],
    [
      ["git status --porcelain=v2 -uall (anchor)", gitMs.toFixed(0), "1.00", "", ""],
      [
        "comity analyze, cold symbol cache",
        cold.ms.toFixed(0),
        (cold.ms / gitMs).toFixed(1),
        mib(peak),
        `all ${changes} reported: ${results.every((r) => r.cold.changes === changes) ? "met" : "NOT met"}; < 1 GiB: ${peak < 1024 * 1024 ? "met" : "NOT met"}`,
      ],
      [
        "comity analyze, second run (warm cache)",
        warm.ms.toFixed(0),
        (warm.ms / gitMs).toFixed(1),
        mib(warm.rss),
        `≥ 10 × faster than cold: ${cold.ms / warm.ms >= 10 ? "met" : "NOT met"} (${(cold.ms / warm.ms).toFixed(1)} ×, median of ${pairs})`,
      ],
    ],
  ),
);
console.log(`\ncold phases: ${cold.timings}\nwarm phases: ${warm.timings}`);
if (values.other !== undefined) {
  const speedups = results.map((r) => r.other.ms / r.cold.ms).sort((a, b) => a - b);
  const median = speedups[Math.floor((speedups.length - 1) / 2)];
  console.log(`\nside by side, cold (this build / ${values.other}, ms): ${results.map((r) => `${r.cold.ms.toFixed(0)} / ${r.other.ms.toFixed(0)}`).join("; ")}`);
  console.log(`other build's phases (last pair): ${results.at(-1).other.timings}`);
  console.log(`cold speed-up over the other build: ${median.toFixed(2)} x (median of ${pairs}); target ≥ 1.5 x: ${median >= 1.5 ? "met" : "NOT met"}`);
}
