#!/usr/bin/env node
// The HTTP routes Comity reads from Python servers' code (`src/contracts/code-routes.ts`, a text reader) against
// Python's own `ast` as the oracle (benchmarks/routes-oracle.py: the decorators of FastAPI and Flask routes, with a
// router's or blueprint's prefix declared in the same module), file by file, on clones the caller brings:
// `--repo DIR` (repeatable). Prints recall and precision per repo, and the routes missed or extra.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { repo: { type: "string", multiple: true, default: [] } } });
const repos = values.repo.filter((r) => fs.existsSync(path.join(r, ".git")));
if (repos.length === 0) {
  console.log("(no repo given or found: pass --repo DIR of a clone; see benchmarks/README.md for the ones measured)");
  process.exit(0);
}
const { routesIn, routeName } = await import(path.join(here, "..", "dist", "contracts", "code-routes.js"));
const rows = [];
const notes = [];
for (const root of repos) {
  const files = execFileSync("git", ["ls-files", "*.py"], { cwd: root, encoding: "utf8" }).trim().split("\n").filter(Boolean);
  const oracle = JSON.parse(execFileSync("python3", [path.join(here, "routes-oracle.py"), ...files], { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 }));
  let found = 0;
  let missed = 0;
  let extra = 0;
  for (const f of files) {
    const ours = new Set(routesIn(f, fs.readFileSync(path.join(root, f), "utf8")).map(routeName));
    const want = new Set(oracle[f] ?? []);
    for (const r of want) {
      if (ours.has(r)) found++;
      else {
        missed++;
        notes.push(`missed in ${path.basename(root)}: ${f}: ${r}`);
      }
    }
    for (const r of ours)
      if (!want.has(r)) {
        extra++;
        notes.push(`extra in ${path.basename(root)}: ${f}: ${r}`);
      }
  }
  const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  rows.push([
    `${path.basename(root)} at ${head}`,
    String(files.length),
    String(found + missed),
    String(found),
    String(missed),
    String(extra),
    (found / Math.max(1, found + missed)).toFixed(3),
    (found / Math.max(1, found + extra)).toFixed(3),
  ]);
}
console.log(table(["repo", "Python files", "routes (ast)", "found", "missed", "extra", "recall", "precision"], rows));
if (notes.length > 0) console.log(`\n${notes.slice(0, 20).join("\n")}`);
