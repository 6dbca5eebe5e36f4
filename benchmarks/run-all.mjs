#!/usr/bin/env node
// `npm run bench`: generates the benchmark workspaces (seeded), runs every benchmark of the engine,
// each with its native anchor in the same run, and ends with one table of every target: the figure,
// its anchor ratio and whether the target is met. `npm run bench -- --quick` is a smoke run (a few minutes):
// smaller workspaces and fewer runs, so its figures are not the record. `--only NAME` (repeatable) runs the
// suites whose name starts with NAME; `--write` (which `npm run bench` passes) puts each suite's output into
// benchmarks/README.md between its `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` markers, and a
// full run's table of targets between `bench:summary`'s (the README's tables come from here, not from hand).
// A quick run writes nothing: its figures are not the record.
import * as fs from "node:fs";
import * as os from "node:os";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { ensureTool, machine, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, only: { type: "string", multiple: true }, write: { type: "boolean", default: false } } });
const quick = values.quick;
ensureTool("ctags", "universal-ctags");
ensureTool("hyperfine", "hyperfine"); // not required by the scripts; installed for people timing by hand

const suites = [
  ["discovery", "discovery.mjs", quick ? ["--runs", "2"] : ["--runs", "9"]],
  ["snapshots", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2"] : ["--files", "100000", "--runs", "7"]],
  ["snapshots, * text=auto eol=lf", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2", "--attributes", "text"] : ["--files", "100000", "--runs", "5", "--attributes", "text"]],
  ["snapshots, a clean/smudge filter", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2", "--attributes", "filter"] : ["--files", "100000", "--runs", "3", "--attributes", "filter"]],
  ["symbols", "symbols.mjs", quick ? ["--files", "150", "--runs", "1"] : ["--files", "1500", "--runs", "3"]],
  ["symbols, real code against ast-grep", "symbols-real.mjs", quick ? ["--runs", "1", "--max-files", "150"] : ["--runs", "5"]],
  ["hook", "hook.mjs", quick ? ["--runs", "5"] : ["--runs", "15"]],
  ["claude code, real CLI", "real-claude-code.mjs", quick ? ["--runs", "1", "--edits", "4", "--no-stopped"] : ["--runs", "9", "--edits", "10"]],
  ["shell pair, real code", "shell-pair.mjs", quick ? ["--runs", "3"] : ["--runs", "15"]],
  ["analyze through the daemon", "analyze-daemon.mjs", quick ? ["--files", "20000", "--runs", "3"] : ["--files", "20000", "--runs", "15"]],
  ["analyze", "analyze.mjs", quick ? ["--files", "10000", "--changes", "200"] : ["--files", "100000", "--changes", "2000"]],
  // A clone of babel/babel at the commit the README names, at $COMITY_BENCH_BABEL (skipped, saying so, without one).
  [
    "monorepo users, babel",
    "monorepo-users.mjs",
    [
      "--repo",
      process.env.COMITY_BENCH_BABEL ?? path.join(os.tmpdir(), "comity-bench", "babel"),
      "--file",
      "packages/babel-helper-plugin-utils/src/index.ts",
      "--symbol",
      "declare",
      "--insert",
      "meta: { name: string }",
      "--runs",
      quick ? "2" : "9",
    ],
  ],
  // A clone of nocobase/nocobase at the commit the README names, at $COMITY_BENCH_NOCOBASE (skipped without one).
  [
    "monorepo users, nocobase",
    "monorepo-users.mjs",
    [
      "--repo",
      process.env.COMITY_BENCH_NOCOBASE ?? path.join(os.tmpdir(), "comity-bench", "nocobase"),
      "--file",
      "packages/core/utils/src/uid.ts",
      "--symbol",
      "uid",
      "--insert",
      "prefix: string",
      "--runs",
      quick ? "2" : "9",
    ],
  ],
  // A clone of saleor/saleor-dashboard at the commit the README names, at $COMITY_BENCH_SALEOR (skipped, saying so, without one).
  [
    "contract users, saleor-dashboard",
    "contract-users.mjs",
    ["--repo", process.env.COMITY_BENCH_SALEOR ?? path.join(os.tmpdir(), "comity-bench", "saleor-dashboard"), "--schema", "schema.graphql", "--fields", quick ? "4" : "24"],
  ],
  // Clones of Netflix/dispatch and fastapi/full-stack-fastapi-template at the commits the README names (skipped without).
  [
    "routes in code, against Python's ast",
    "routes-oracle.mjs",
    [
      "--repo",
      process.env.COMITY_BENCH_DISPATCH ?? path.join(os.tmpdir(), "comity-bench", "dispatch"),
      "--repo",
      process.env.COMITY_BENCH_FASTAPI_TEMPLATE ?? path.join(os.tmpdir(), "comity-bench", "full-stack-fastapi-template"),
    ],
  ],
  ["mcp", "mcp.mjs", quick ? ["--runs", "10"] : ["--runs", "40"]],
  ["serve", "serve-load.mjs", quick ? ["--runs", "2"] : ["--runs", "5"]],
  ["serve, three replicas", "serve-replicas.mjs", quick ? ["--agents", "100", "--events", "12", "--think-ms", "1500"] : []],
  ["serve, one noisy team", "serve-noisy.mjs", quick ? ["--runs", "1", "--rows", "10000"] : ["--runs", "3"]],
  ["denials, two agents on one file set", "denials.mjs", quick ? ["--no-before"] : []],
];

const write = values.write && !quick;
if (values.write && quick) console.log("(--quick: nothing is written to benchmarks/README.md; its figures are not the record)");
const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);
const started = Date.now();

/** Puts `body` between the README's markers for `name`; says where it went, or that the README has no such markers. */
function writeBlock(name, body) {
  const [begin, end] = [`<!-- bench:${name}:begin -->`, `<!-- bench:${name}:end -->`];
  const text = fs.readFileSync(readme, "utf8");
  const [i, j] = [text.indexOf(begin), text.indexOf(end)];
  if (i < 0 || j < i) return `(not written: benchmarks/README.md has no ${begin} ... ${end})`;
  fs.writeFileSync(readme, `${text.slice(0, i)}${begin}\n\n${body}\n\n${text.slice(j)}`);
  return "(written to benchmarks/README.md)";
}

const summary = [];
const readme = path.join(here, "README.md");
const today = new Date().toISOString().slice(0, 16).replace("T", " ");
for (const [name, script, args] of suites.filter(([n]) => values.only === undefined || values.only.some((o) => n.startsWith(o)))) {
  console.log(`\n## ${name}: node benchmarks/${script} ${args.join(" ")}\n`);
  const t = Date.now();
  const r = spawnSync(process.execPath, [path.join(here, script), ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  process.stdout.write(r.stdout);
  if (r.status !== 0) {
    process.stdout.write(`(failed: ${r.stderr.split("\n").slice(-5).join(" ")})\n`);
    summary.push([name, "(benchmark failed)", "", "", "NOT met"]);
    continue;
  }
  console.log(`(${seconds(t)} s)`);
  if (write) console.log(writeBlock(name, `\`node benchmarks/${script} ${args.join(" ")}\`, ${today} UTC (${seconds(t)} s):\n\n${r.stdout.trim()}`));
  // Every table row with a target verdict goes into the summary.
  for (const line of r.stdout.split("\n")) {
    if (!line.startsWith("|") || !/\bmet\b/.test(line)) continue;
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    summary.push([
      name,
      cells[0] ?? "",
      cells[1] ?? "",
      cells
        .slice(2, -1)
        .filter((c) => c !== "")
        .join(", "),
      cells.at(-1) ?? "",
    ]);
  }
}
const summaryTable = table(["suite", "what", "figure (ms)", "anchor ratio / memory", "target"], summary);
console.log(`\n## Summary (${quick ? "quick smoke run: not the record" : "full run"}; ${machine()})\n`);
console.log(summaryTable);
// Only a run of every suite is the record of every target.
if (write && values.only === undefined) {
  console.log(writeBlock("summary", `\`npm run bench\`, ${today} UTC, every suite (${seconds(started)} s); ${machine()}:\n\n${summaryTable}`));
}
