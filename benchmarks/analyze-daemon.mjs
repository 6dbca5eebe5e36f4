#!/usr/bin/env node
// `comity analyze` through the per-user daemon on the generated 20,000-file repo, as whole processes, against
// `node -e 0` run by run (interleaved): warm (nothing changed since the last analysis: the daemon answers from
// memory after asking its change watch), and, for scale, the same question after one file was edited (the change is
// seen, so the analysis runs cold and is handed to the daemon) and with the daemon off. `git status` is the
// anchor of the cold rows. Every warm run must have been answered from memory (the daemon's count says so).
// Usage: node benchmarks/analyze-daemon.mjs [--files 20000] [--runs 15]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { generateBigRepo } from "./generate-big-repo.mjs";
import { gitEnv, machine, median, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({ options: { files: { type: "string", default: "20000" }, runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
const root = generateBigRepo({ files: Number(values.files), dir: path.join(os.tmpdir(), "comity-bench", `repo-${values.files}`) }).dir;
const config = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-analyze-daemon-"));
const env = { ...gitEnv(), COMITY_CONFIG_DIR: config };
delete env.COMITY_DAEMON;
const time = (args, runEnv = env) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, env: runEnv, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, stdout: r.stdout };
};
const analyze = [bin, "analyze", "--json"];
const hits = () => JSON.parse(spawnSync(process.execPath, [bin, "daemon", "status", "--json"], { env, encoding: "utf8" }).stdout).analyze.hits;
const git = () => {
  const t = process.hrtime.bigint();
  spawnSync("git", ["status", "--porcelain=v2", "-uall"], { cwd: root, env });
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const edited = spawnSync("git", ["ls-files", "*.ts"], { cwd: root, encoding: "utf8" }).stdout.split("\n")[0];
const editFile = path.join(root, edited);
const original = fs.readFileSync(editFile, "utf8");

try {
  if (spawnSync(process.execPath, [bin, "daemon", "start"], { env }).status !== 0) throw new Error("comity daemon start failed");
  // The first run starts the watch, the second is kept: warm from the third on.
  for (let i = 0; i < 3; i++) time(analyze);
  const cold = time(analyze, { ...env, COMITY_DAEMON: "off" }).stdout;
  const rows = { node: [], warm: [], git: [], edited: [], off: [] };
  const hitsBefore = hits();
  for (let i = 0; i < runs; i++) {
    rows.node.push(time(["-e", "0"]).ms);
    const warm = time(analyze);
    if (warm.stdout !== cold) throw new Error("a warm answer differs from the cold run's");
    rows.warm.push(warm.ms);
  }
  if (hits() - hitsBefore !== runs) throw new Error(`${hits() - hitsBefore} of ${runs} warm runs were answered from memory`);
  for (let i = 0; i < Math.max(3, Math.floor(runs / 3)); i++) {
    fs.writeFileSync(editFile, `${original}\nexport const edit${i} = ${i};\n`);
    rows.git.push(git());
    rows.edited.push(time(analyze).ms);
    rows.off.push(time(analyze, { ...env, COMITY_DAEMON: "off" }).ms);
  }
  const [node, warm, g, e, off] = [median(rows.node), median(rows.warm), median(rows.git), median(rows.edited), median(rows.off)];
  console.log(`machine: ${machine()}; ${values.files} files; median of ${runs} runs (warm), ${rows.edited.length} (after an edit)\n`);
  console.log(
    table(
      ["process", "median ms", "over node -e 0", "target"],
      [
        ["node -e 0 (anchor), interleaved with the row below", node.toFixed(0), "", ""],
        ["comity analyze --json through the daemon, nothing changed (warm)", warm.toFixed(0), `+${(warm - node).toFixed(0)} ms`, `within 30 ms of node: ${warm - node <= 30 ? "met" : "NOT met"}`],
        ["git status --porcelain=v2 -uall after one edit (anchor of the rows below)", g.toFixed(0), "", ""],
        ["comity analyze --json through the daemon, one file edited (runs cold, kept)", e.toFixed(0), `+${(e - node).toFixed(0)} ms`, ""],
        ["comity analyze --json, daemon off", off.toFixed(0), `+${(off - node).toFixed(0)} ms`, ""],
      ],
    ),
  );
} finally {
  fs.writeFileSync(editFile, original);
  spawnSync(process.execPath, [bin, "daemon", "stop"], { env });
  fs.rmSync(config, { recursive: true, force: true });
}
