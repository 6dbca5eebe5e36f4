#!/usr/bin/env node
// `npm run scenarios`: plays every coordination scenario (test/scenarios/cases) through the built CLI against a real
// `comity serve` and prints recall and false alarms per scenario and in total. `--db URL` runs them on PostgreSQL
// (each scenario in a database of its own is the test suite's job; here one URL is reused, so pass an empty one).
// `--only PREFIX` runs the scenarios whose file starts with it; `-v` prints what each agent saw where one failed.
import { formatTable, loadScenarios, runScenario } from "../test/scenarios/runner.mjs";

const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const verbose = args.includes("-v");
const results = [];
const started = Date.now();
for (const scenario of loadScenarios()) {
  if (only !== undefined && !scenario.file.startsWith(only)) continue;
  const r = await runScenario(scenario);
  results.push(r);
  const ok = r.recalled === r.expected && r.falseAlarms === 0;
  process.stderr.write(`${ok ? "ok  " : "FAIL"} ${scenario.file}\n`);
  for (const line of [...r.misses, ...r.alarms]) process.stderr.write(`     ${line}\n`);
  if (!ok && verbose) for (const t of r.transcript) process.stderr.write(`     ${JSON.stringify(t)}\n`);
}
process.stdout.write(`${formatTable(results)}\n`);
process.stdout.write(`\n${results.length} scenarios in ${((Date.now() - started) / 1000).toFixed(1)} s (node ${process.version}, ${new Date().toISOString()})\n`);
process.exitCode = results.every((r) => r.recalled === r.expected && r.falseAlarms === 0) ? 0 : 1;
