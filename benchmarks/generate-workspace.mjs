#!/usr/bin/env node
// Seeded generator of a synthetic multi-repo workspace for the discovery benchmark:
// dozens of repos, nested clones, linked worktrees, submodules, node_modules folders
// and tens of thousands of files. Usage: node benchmarks/generate-workspace.mjs [DIR] [--seed N] [--repos N] [--files N]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { rng, sh } from "./lib.mjs";

/** Outside any repo (not under this project), so walking up from it finds nothing. */
export const DEFAULT_WORKSPACE = path.join(os.tmpdir(), "comity-bench", "workspace");

/** Creates (or reuses, when the same parameters built it) a workspace and returns its summary. */
export function generateWorkspace({ dir = DEFAULT_WORKSPACE, seed = 42, repos = 40, files = 40000 } = {}) {
  const stamp = path.join(dir, ".generated.json");
  const params = { seed, repos, files, version: 1 };
  if (fs.existsSync(stamp)) {
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
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
  };
  const git = (cwd, ...args) => sh("git", ["-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], { cwd, env });
  const perRepo = Math.floor(files / repos);
  let fileCount = 0;
  let nodeModulesFiles = 0;
  const counts = { main: 0, nested: 0, worktree: 0, submodule: 0 };

  const writeTree = (root, n) => {
    for (let i = 0; i < n; i++) {
      const d = path.join(root, "src", `m${pick(20)}`, `s${pick(8)}`);
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, `f${i}.ts`), `export const v${i} = ${pick(1e6)};\n`);
    }
    fileCount += n;
  };

  const roots = [];
  for (let r = 0; r < repos; r++) {
    const group = `group-${r % 5}`;
    const root = path.join(dir, group, `repo-${String(r).padStart(2, "0")}`);
    fs.mkdirSync(root, { recursive: true });
    git(root, "init", "-q");
    writeTree(root, perRepo);
    if (r % 3 === 0) {
      // node_modules: pruned by discovery, walked by `find`.
      for (let i = 0; i < 1500; i++) {
        const d = path.join(root, "node_modules", `pkg${pick(150)}`, "lib");
        fs.mkdirSync(d, { recursive: true });
        fs.writeFileSync(path.join(d, `i${i}.js`), "module.exports = 1;\n");
      }
      nodeModulesFiles += 1500;
    }
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "init");
    counts.main++;
    roots.push(root);
  }
  // Nested clones inside other repos (one in an ignored folder).
  for (let i = 0; i < 6; i++) {
    const outer = roots[(i * 7) % roots.length];
    const src = roots[(i * 7 + 1) % roots.length];
    const where = i % 2 === 0 ? "vendor" : "ignored-build";
    fs.mkdirSync(path.join(outer, where), { recursive: true });
    if (where === "ignored-build") fs.appendFileSync(path.join(outer, ".gitignore"), "ignored-build/\n");
    git(path.join(outer, where), "clone", "-q", src, `nested-${i}`);
    counts.nested++;
  }
  // Linked worktrees beside their main repos.
  for (let i = 0; i < 4; i++) {
    const main = roots[(i * 5 + 2) % roots.length];
    git(main, "worktree", "add", "-q", `${main}-wt${i}`, "-b", `wt-${i}`);
    counts.worktree++;
  }
  // Submodules.
  for (let i = 0; i < 4; i++) {
    const parent = roots[(i * 11 + 3) % roots.length];
    const child = roots[(i * 11 + 4) % roots.length];
    git(parent, "submodule", "add", "-q", child, `deps/sub-${i}`);
    git(parent, "commit", "-q", "-m", "submodule");
    counts.submodule++;
  }
  const summary = { params, counts, files: fileCount, nodeModulesFiles, totalRepos: counts.main + counts.nested + counts.worktree + counts.submodule };
  fs.writeFileSync(stamp, JSON.stringify(summary, null, 2));
  return summary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { seed: { type: "string" }, repos: { type: "string" }, files: { type: "string" } } });
  const summary = generateWorkspace({
    ...(positionals[0] ? { dir: path.resolve(positionals[0]) } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
    ...(values.repos ? { repos: Number(values.repos) } : {}),
    ...(values.files ? { files: Number(values.files) } : {}),
  });
  console.log(JSON.stringify(summary, null, 2));
}
