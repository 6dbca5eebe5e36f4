#!/usr/bin/env node
// Discovery benchmark: comity's walk against `find ROOT -name .git` (the anchor) in the same run.
// Also times the walks we did not choose (promise API, fdir), so the choice stays measured.
// Usage: npm run bench:discovery [-- --runs N]
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fdir } from "fdir";
import { discoverRepos, DEFAULT_PRUNE } from "../dist/index.js";
import { DEFAULT_WORKSPACE, generateWorkspace } from "./generate-workspace.mjs";
import { machine, sh, table, timeMs } from "./lib.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "9" } } });
const runs = Number(values.runs);
const ws = generateWorkspace();
const root = DEFAULT_WORKSPACE;
const prune = new Set(DEFAULT_PRUNE);

// Dead end 1: the same walk on the promise API.
async function asyncWalk(dir, out) {
  let entries;
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const subs = [];
  for (const e of entries) {
    if (e.name === ".git") out.push(dir);
    else if (e.isDirectory() && !prune.has(e.name)) subs.push(asyncWalk(path.join(dir, e.name), out));
  }
  await Promise.all(subs);
}

// Dead end 2: fdir with an exclude callback (it cannot report unreadable folders as diagnostics).
function fdirWalk() {
  return new fdir()
    .withDirs()
    .exclude((name) => name === ".git" || prune.has(name))
    .filter((p, isDir) => (isDir ? false : p.endsWith("/.git")))
    .crawl(root)
    .sync();
}

const findCount = sh("find", [root, "-name", ".git"]).trim().split("\n").length;
const ours = discoverRepos(root);
if (ours.repos.length !== ws.totalRepos || findCount !== ws.totalRepos) {
  throw new Error(`repo counts disagree: comity ${ours.repos.length}, find ${findCount}, generated ${ws.totalRepos}`);
}

const tFind = await timeMs(() => sh("find", [root, "-name", ".git"]), { runs });
// A stricter anchor: find doing the same pruning we do (no .git internals, no node_modules).
const prunedFind = [root, "-name", ".git", "-print", "-prune", "-o", "(", ...DEFAULT_PRUNE.flatMap((n, i) => (i === 0 ? ["-name", n] : ["-o", "-name", n])), ")", "-prune"];
const tFindPruned = await timeMs(() => sh("find", prunedFind), { runs });
const tOurs = await timeMs(() => discoverRepos(root), { runs });
const tAsync = await timeMs(async () => asyncWalk(root, []), { runs });
const tFdir = await timeMs(() => fdirWalk(), { runs });
const cli = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "bin", "comity.cjs");
const tCli = await timeMs(() => sh(process.execPath, [cli, "analyze", root, "--json"]), { runs });
const tNode = await timeMs(() => sh(process.execPath, ["-e", "0"]), { runs });

const ratio = (t) => (t / tFind).toFixed(2);
console.log(`machine: ${machine()}`);
console.log(`workspace: ${ws.totalRepos} repos (${JSON.stringify(ws.counts)}), ${ws.files} source files + ${ws.nodeModulesFiles} in node_modules; median of ${runs} warm runs\n`);
console.log(
  table(
    ["what", "median ms", "× find", "target"],
    [
      ["find ROOT -name .git (anchor, a process)", tFind.toFixed(1), "1.00", ""],
      ["find with the same pruning (stricter anchor)", tFindPruned.toFixed(1), ratio(tFindPruned), ""],
      ["discoverRepos, sync walk (chosen)", tOurs.toFixed(1), ratio(tOurs), `≤ 1.5 × find: ${tOurs <= 1.5 * tFind ? "met" : "NOT met"} (${(tOurs / tFindPruned).toFixed(2)} × pruned find)`],
      ["same walk, promise API (dead end)", tAsync.toFixed(1), ratio(tAsync), ""],
      ["fdir crawl with exclude (dead end)", tFdir.toFixed(1), ratio(tFdir), ""],
      ["comity analyze --json (whole process, 54 repo states)", tCli.toFixed(1), ratio(tCli), ""],
      ["node -e 0 (process start-up, for scale)", tNode.toFixed(1), ratio(tNode), ""],
    ],
  ),
);
