#!/usr/bin/env node
// Seeded generator of one large repo (default 100,000 files in nested folders, committed),
// for the snapshot benchmark. Usage: node benchmarks/generate-big-repo.mjs [DIR] [--files N] [--seed N]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { rng, runGeneratorScript, sh } from "./lib.mjs";

export const DEFAULT_BIG_REPO = path.join(os.tmpdir(), "comity-bench", "big-repo");

/** Creates (or reuses, when the same parameters built it) a committed repo of `files` files. */
export function generateBigRepo({ dir = DEFAULT_BIG_REPO, files = 100_000, seed = 7 } = {}) {
  const stamp = path.join(path.dirname(dir), `${path.basename(dir)}.json`);
  const params = { files, seed, version: 1 };
  if (fs.existsSync(stamp) && fs.existsSync(path.join(dir, ".git"))) {
    const old = JSON.parse(fs.readFileSync(stamp, "utf8"));
    if (JSON.stringify(old.params) === JSON.stringify(params)) return old;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const rand = rng(seed);
  const pick = (n) => Math.floor(rand() * n);
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@example.com",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@example.com",
  };
  const git = (...args) => sh("git", ["-c", "init.defaultBranch=main", ...args], { cwd: dir, env });
  git("init", "-q");
  const paths = [];
  for (let i = 0; i < files; i++) {
    // About 10 files per folder, three levels deep, like a large monorepo's source tree.
    const rel = `packages/p${pick(50)}/src/m${pick(40)}/s${pick(5)}/f${i}.${["ts", "py", "js", "json"][pick(4)]}`;
    fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), `// ${i}\nexport const v${i} = ${pick(1e9)};\n`.repeat(1 + pick(8)));
    paths.push(rel);
  }
  fs.writeFileSync(path.join(dir, ".gitignore"), "node_modules/\n*.log\ndist/\n");
  git("add", "-A");
  git("commit", "-q", "-m", "generated");
  const summary = { params, files, dir, sample: paths.filter((_, i) => i % Math.floor(files / 10) === 0).slice(0, 10) };
  fs.writeFileSync(stamp, JSON.stringify(summary, null, 2));
  return summary;
}

runGeneratorScript(import.meta.url, generateBigRepo);
