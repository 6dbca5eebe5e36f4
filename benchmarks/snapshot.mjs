#!/usr/bin/env node
// Snapshot benchmark on a generated 100,000-file repo: snapshot before, a command that changes
// 10 files, snapshot after and diff, against `git status --porcelain=v2 -uall` before and after
// (the anchor) in the same run. Prints ratios, peak memory and the snapshot's size on disk.
// Usage: npm run bench:snapshot [-- --files N --runs N] [--attributes text|filter]
// `--attributes text`: the same repo with a committed `.gitattributes` of `* text=auto eol=lf` (most real repos have
// one); `--attributes filter`: one that names a clean/smudge filter, where the engine walks.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { diffSnapshots, discoverRepos, loadContentHasher, takeSnapshot } from "../dist/index.js";
import { generateBigRepo } from "./generate-big-repo.mjs";
import { machine, median, sh, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { files: { type: "string", default: "100000" }, runs: { type: "string", default: "5" }, attributes: { type: "string" } } });
const files = Number(values.files);
const runs = Number(values.runs);
const ATTRIBUTES = { text: "* text=auto eol=lf\n", filter: "* text=auto eol=lf\n*.bin filter=lfs diff=lfs merge=lfs -text\n" };
if (values.attributes !== undefined && !(values.attributes in ATTRIBUTES)) throw new Error("--attributes: text or filter");
const big = generateBigRepo({ files, dir: path.join(os.tmpdir(), "comity-bench", `repo-${files}${values.attributes === undefined ? "" : `-attributes-${values.attributes}`}`) });
const root = big.dir;
if (values.attributes !== undefined && !fs.existsSync(path.join(root, ".gitattributes"))) {
  fs.writeFileSync(path.join(root, ".gitattributes"), ATTRIBUTES[values.attributes]);
  if (values.attributes === "filter") sh("git", ["config", "filter.lfs.clean", "cat"], { cwd: root });
  sh("git", ["add", ".gitattributes"], { cwd: root });
  sh("git", ["-c", "user.name=b", "-c", "user.email=b@e", "commit", "-q", "-m", "attributes"], { cwd: root });
}
const repo = discoverRepos(root, { walkUp: false }).repos[0];
const hasher = await loadContentHasher();
const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-config-"));
const cliEnv = { ...process.env, COMITY_CONFIG_DIR: configDir };
const bin = path.join(here, "..", "bin", "comity.cjs");

let k = 0;
/** The "command": rewrites 10 files (content and size change each time). */
function command() {
  k++;
  for (const rel of big.sample) fs.appendFileSync(path.join(root, rel), `// edit ${k}\n`);
}
const t = (fn) => {
  const s = process.hrtime.bigint();
  const r = fn();
  return [Number(process.hrtime.bigint() - s) / 1e6, r];
};
const at = async (fn) => {
  const s = process.hrtime.bigint();
  const r = await fn();
  return [Number(process.hrtime.bigint() - s) / 1e6, r];
};
const gitStatus = () => sh("git", ["status", "--porcelain=v2", "-uall"], { cwd: root });

// Warm the page cache and git's own index stat data.
gitStatus();
gitStatus();

/** The floor: a bare readdir + lstat walk in one thread, no ignore rules, no hashing, nothing kept. */
function bareWalk(dir) {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (d.name === ".git") continue;
    const p = `${dir}/${d.name}`;
    if (d.isDirectory()) bareWalk(p);
    else fs.lstatSync(p);
  }
}

const rows = { git: [], floor: [], cold: [], warm: [], cached: [], walk: [], walkWarm: [], cli: [] };
let lastCounts = null;
let cliRss = 0;
let changed = 0;
for (let i = 0; i < runs; i++) {
  // Anchor: git status before and after.
  const [g1] = t(gitStatus);
  command();
  const [g2] = t(gitStatus);
  rows.git.push(g1 + g2);
  const [f1] = t(() => bareWalk(root));
  const [f2] = t(() => bareWalk(root));
  rows.floor.push(f1 + f2);

  // Ours, in-process, first snapshot without a stat cache (the index vouches for clean files).
  const [s1, before] = await at(() => takeSnapshot(repo, { hasher }));
  command();
  const [s2, after] = await at(() => takeSnapshot(repo, { hasher, previous: before.snapshot }));
  const [d] = t(() => diffSnapshots(before.snapshot, after.snapshot));
  changed = diffSnapshots(before.snapshot, after.snapshot).length;
  rows.cold.push(s1 + s2 + d);
  lastCounts = after.counts;

  // Ours, in-process, with the previous snapshot as the stat cache for the "before" too.
  const [w1, before2] = await at(() => takeSnapshot(repo, { hasher, previous: after.snapshot }));
  command();
  const [w2, after2] = await at(() => takeSnapshot(repo, { hasher, previous: before2.snapshot }));
  rows.warm.push(w1 + w2 + t(() => diffSnapshots(before2.snapshot, after2.snapshot))[0]);

  // The same with a private copy of the index for git status (its untracked cache), as the CLI and the hook run it.
  const statusIndex = { dir: path.join(configDir, "status-index") };
  const [u1, before3] = await at(() => takeSnapshot(repo, { hasher, previous: after2.snapshot, statusIndex }));
  command();
  const [u2, after3] = await at(() => takeSnapshot(repo, { hasher, previous: before3.snapshot, statusIndex }));
  rows.cached.push(u1 + u2 + t(() => diffSnapshots(before3.snapshot, after3.snapshot))[0]);

  // The walk (the engine's fallback where git status could hide a change): every path stat-ed and vouched for.
  const [k1, wb] = await at(() => takeSnapshot(repo, { hasher, engine: "walk" }));
  command();
  const [k2, wa] = await at(() => takeSnapshot(repo, { hasher, engine: "walk", previous: wb.snapshot }));
  rows.walk.push(k1 + k2 + t(() => diffSnapshots(wb.snapshot, wa.snapshot))[0]);
  const [k3, wb2] = await at(() => takeSnapshot(repo, { hasher, engine: "walk", previous: wa.snapshot }));
  command();
  const [k4, wa2] = await at(() => takeSnapshot(repo, { hasher, engine: "walk", previous: wb2.snapshot }));
  rows.walkWarm.push(k3 + k4 + t(() => diffSnapshots(wb2.snapshot, wa2.snapshot))[0]);

  // Ours as the hook runs it: two separate processes, the snapshot stored on disk in between.
  const id = `bench-${i}`;
  const run = (args) => spawnSync(process.execPath, ["--import", path.join(here, "report-rss.mjs"), bin, ...args], { cwd: root, env: cliEnv, encoding: "utf8" });
  const [c1, r1] = t(() => run(["snapshot", "take", "--id", id]));
  command();
  const [c2, r2] = t(() => run(["snapshot", "diff", "--id", id]));
  if (r1.status !== 0 || r2.status !== 0) throw new Error(r1.stderr + r2.stderr);
  for (const r of [r1, r2]) cliRss = Math.max(cliRss, Number(/PEAK_RSS_KIB=(\d+)/.exec(r.stderr)?.[1] ?? 0));
  rows.cli.push(c1 + c2);
}
// Put the edited files back: the repo is shared with the analyze benchmark.
sh("git", ["checkout", "--", "."], { cwd: root });
// The size of one stored snapshot: take one and look at the file before the diff removes it.
spawnSync(process.execPath, [bin, "snapshot", "take", "--id", "size"], { cwd: root, env: cliEnv });
// A snapshot relative to the index keeps the index beside it as a hard link to git's file: no bytes of its own.
const snapFiles = fs.readdirSync(path.join(configDir, "snapshots")).filter((f) => f.startsWith("s-"));
const own = (f) => {
  const st = fs.statSync(path.join(configDir, "snapshots", f));
  return f.endsWith(".idx") && st.nlink > 1 ? 0 : st.size;
};
const snapBytes = snapFiles.reduce((n, f) => n + own(f), 0);
const linked = snapFiles.some((f) => f.endsWith(".idx") && own(f) === 0);
fs.rmSync(configDir, { recursive: true, force: true });

const G = median(rows.git);
const fmt = (x) => x.toFixed(0);
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
console.log(`machine: ${machine()}, git ${sh("git", ["--version"]).trim().split(" ")[2]}`);
console.log(
  `repo: ${files} files${values.attributes === undefined ? "" : `, with a committed .gitattributes: ${JSON.stringify(ATTRIBUTES[values.attributes])}`}; each run changes 10 files (diff found ${changed}); median of ${runs} runs; last after-snapshot: ${JSON.stringify(lastCounts)}\n`,
);
console.log(
  table(
    ["what (before + after)", "median ms", "× git status", "peak RSS", "target"],
    [
      ["git status --porcelain=v2 -uall, twice (anchor)", fmt(G), "1.00", "", ""],
      ["floor: bare readdir + lstat walk, one thread, twice", fmt(median(rows.floor)), (median(rows.floor) / G).toFixed(2), "", ""],
      [
        "takeSnapshot ×2 + diff, in-process, no previous snapshot (engine: auto)",
        fmt(median(rows.cold)),
        (median(rows.cold) / G).toFixed(2),
        "",
        `≤ 2 × git status: ${median(rows.cold) <= 2 * G ? "met" : "NOT met"}`,
      ],
      [
        "takeSnapshot ×2 + diff, in-process, stat cache warm (engine: auto)",
        fmt(median(rows.warm)),
        (median(rows.warm) / G).toFixed(2),
        "",
        `≤ 2 ×: ${median(rows.warm) <= 2 * G ? "met" : "NOT met"}`,
      ],
      [
        "same, git status on a private copy of the index (untracked cache; CLI and hook)",
        fmt(median(rows.cached)),
        (median(rows.cached) / G).toFixed(2),
        "",
        `≤ 2 ×: ${median(rows.cached) <= 2 * G ? "met" : "NOT met"}`,
      ],
      [
        "same, engine: walk (the fallback), first snapshot from the index",
        fmt(median(rows.walk)),
        (median(rows.walk) / G).toFixed(2),
        `${mib(process.resourceUsage().maxRSS)} (this process, all rows)`,
        "(fallback: no target of its own)",
      ],
      ["same, engine: walk, stat cache warm", fmt(median(rows.walkWarm)), (median(rows.walkWarm) / G).toFixed(2), "", ""],
      ["comity snapshot take + diff, two processes (as the hook)", fmt(median(rows.cli)), (median(rows.cli) / G).toFixed(2), mib(cliRss), `≤ 2 ×: ${median(rows.cli) <= 2 * G ? "met" : "NOT met"}`],
    ],
  ),
);
console.log(`\nsnapshot on disk: ${(snapBytes / 1024).toFixed(1)} KiB for ${files} files${linked ? " (plus the git index it is relative to, hard-linked: no copy)" : ""}`);
