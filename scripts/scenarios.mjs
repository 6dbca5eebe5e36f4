#!/usr/bin/env node
// `npm run scenarios`: plays every coordination scenario (test/scenarios/cases) through the built CLI, against a real
// `comity serve` and in embedded mode (no server), and prints recall and false alarms per scenario and in total, a
// table per mode. `--mode served|embedded` plays one mode only. `--db URL` runs them on PostgreSQL
// (each scenario in a database of its own is the test suite's job; here one URL is reused, so pass an empty one).
// `--only PREFIX` runs the scenarios whose file starts with it; `-v` prints what each agent saw where one failed;
// `--write` puts the table into benchmarks/README.md between its scenario markers (the record is never edited by
// hand). `COMITY_SCENARIO_BIN=/other/bin/comity.cjs` scores another build. `--daemon`: the hooks go through the
// per-user daemon, as they do by default for a user (each scenario's config folder starts one; without the flag
// each hook runs its event itself).
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { formatTable, loadScenarios, runScenario } from "../test/scenarios/runner.mjs";

const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const verbose = args.includes("-v");
const daemon = args.includes("--daemon");
const modes = args.includes("--mode") ? [args[args.indexOf("--mode") + 1]] : ["served", "embedded"];
const all = [];
const tables = [];
for (const mode of modes) {
  const results = [];
  const started = Date.now();
  for (const scenario of loadScenarios()) {
    if (only !== undefined && !scenario.file.startsWith(only)) continue;
    let r;
    try {
      r = await runScenario(scenario, { mode, daemon });
    } catch (error) {
      // A build that cannot play the scenario (an older CLI without a policy it sets, say) told nobody anything.
      const expected = scenario.steps.reduce((n, s) => n + (s.expect ?? []).length, 0);
      r = {
        name: scenario.name,
        file: scenario.file,
        items: scenario.items ?? [],
        hosts: [],
        skipped: null,
        expected,
        recalled: 0,
        falseAlarms: 0,
        misses: [`could not run: ${String(error).split("\n")[0]}`],
        alarms: [],
        transcript: [],
      };
    }
    if (r.skipped !== null && r.skipped !== undefined) {
      process.stderr.write(`skip ${mode} ${scenario.file}: ${r.skipped}\n`);
      continue;
    }
    results.push(r);
    const ok = r.recalled === r.expected && r.falseAlarms === 0;
    process.stderr.write(`${ok ? "ok  " : "FAIL"} ${mode} ${scenario.file}\n`);
    for (const line of [...r.misses, ...r.alarms]) process.stderr.write(`     ${line}\n`);
    if (!ok && verbose) for (const t of r.transcript) process.stderr.write(`     ${JSON.stringify(t)}\n`);
  }
  all.push(...results);
  const where = mode === "embedded" ? "embedded mode (no server)" : "against comity serve (SQLite)";
  const checked = results.reduce((n, r) => n + (r.checks?.total ?? 0), 0);
  const agreed = results.reduce((n, r) => n + (r.checks?.agreed ?? 0), 0);
  tables.push(
    `${mode === "embedded" ? "Embedded" : "Served"}: ${where}\n\n${formatTable(results)}\n\n${results.length} scenarios in ${((Date.now() - started) / 1000).toFixed(1)} s; check_edit (a dry run) agreed with the PreToolUse hook on ${agreed}/${checked} edits`,
  );
}
const table = tables.join("\n\n");
const footer = `${process.env.COMITY_SCENARIO_BIN === undefined ? "this checkout" : `build ${process.env.COMITY_SCENARIO_BIN}`} (node ${process.version}, ${new Date().toISOString()})`;
process.stdout.write(`${table}\n\n${footer}\n`);
if (args.includes("--write")) {
  const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "benchmarks", "README.md");
  const text = fs.readFileSync(readme, "utf8");
  const [begin, end] = ["<!-- scenarios:begin -->", "<!-- scenarios:end -->"];
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${readme} has no ${begin} … ${end} section`);
  fs.writeFileSync(readme, `${text.slice(0, i + begin.length)}\n${table}\n\n${footer}\n${text.slice(j)}`);
  process.stderr.write(`wrote the table into ${readme}\n`);
}
process.exitCode = all.every((r) => r.recalled === r.expected && r.falseAlarms === 0) ? 0 : 1;
