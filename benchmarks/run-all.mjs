#!/usr/bin/env node
// `npm run bench`: generates the benchmark workspaces (seeded), runs every benchmark of the engine,
// each with its native anchor in the same run, and ends with one table of every target: the figure,
// its anchor ratio and whether the target is met. `npm run bench -- --quick` is a smoke run (< 2 min):
// smaller workspaces and fewer runs, so its figures are not the record. `--only NAME` (repeatable) runs the
// suites whose name starts with NAME; `--write` puts each suite's output into benchmarks/README.md between
// its `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` markers, where it has them (the README's
// tables come from here, not from hand).
import * as fs from "node:fs";
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
  ["discovery", "discovery.mjs", quick ? ["--runs", "3"] : ["--runs", "9"]],
  ["snapshots", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2"] : ["--files", "100000", "--runs", "7"]],
  ["snapshots, * text=auto eol=lf", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2", "--attributes", "text"] : ["--files", "100000", "--runs", "5", "--attributes", "text"]],
  ["snapshots, a clean/smudge filter", "snapshot.mjs", quick ? ["--files", "10000", "--runs", "2", "--attributes", "filter"] : ["--files", "100000", "--runs", "3", "--attributes", "filter"]],
  ["symbols", "symbols.mjs", quick ? ["--files", "150", "--runs", "1"] : ["--files", "1500", "--runs", "3"]],
  ["symbols, real code against ast-grep", "symbols-real.mjs", quick ? ["--runs", "1"] : ["--runs", "5"]],
  ["hook", "hook.mjs", quick ? ["--runs", "5"] : ["--runs", "15"]],
  ["analyze", "analyze.mjs", quick ? ["--files", "10000", "--changes", "200"] : ["--files", "100000", "--changes", "2000"]],
  ["serve", "serve-load.mjs", quick ? ["--runs", "2"] : ["--runs", "5"]],
  ["serve, one noisy team", "serve-noisy.mjs", quick ? ["--runs", "1", "--rows", "10000"] : ["--runs", "3"]],
];

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
  console.log(`(${((Date.now() - t) / 1000).toFixed(0)} s)`);
  if (values.write) {
    const [begin, end] = [`<!-- bench:${name}:begin -->`, `<!-- bench:${name}:end -->`];
    const text = fs.readFileSync(readme, "utf8");
    const [i, j] = [text.indexOf(begin), text.indexOf(end)];
    if (i >= 0 && j > i) {
      const block = `${begin}\n\n\`node benchmarks/${script} ${args.join(" ")}\`${quick ? " (quick)" : ""}, ${today} UTC:\n\n${r.stdout.trim()}\n\n`;
      fs.writeFileSync(readme, text.slice(0, i) + block + text.slice(j));
      console.log(`(written to benchmarks/README.md)`);
    }
  }
  // Every table row with a target verdict goes into the summary.
  for (const line of r.stdout.split("\n")) {
    if (!line.startsWith("|") || !/\bmet\b/.test(line)) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    summary.push([name, cells[0] ?? "", cells[1] ?? "", cells.slice(2, -1).filter((c) => c !== "").join(", "), cells.at(-1) ?? ""]);
  }
}
console.log(`\n## Summary (${quick ? "quick smoke run: not the record" : "full run"}; ${machine()})\n`);
console.log(table(["suite", "what", "figure (ms)", "anchor ratio / memory", "target"], summary));
