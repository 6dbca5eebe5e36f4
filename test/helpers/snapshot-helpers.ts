import * as fs from "node:fs";
import * as path from "node:path";
import { loadContentHasher, type ContentHasher } from "../../src/snapshot/content-hasher.js";
import { diffSnapshots } from "../../src/snapshot/diff-snapshots.js";
import type { PathChange, Snapshot } from "../../src/snapshot/snapshot.js";
import { takeSnapshot, type SnapshotOptions } from "../../src/snapshot/take-snapshot.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import type { Repo } from "../../src/workspace/repo.js";
import type { Sandbox } from "./git-fixture.js";

let hasher: ContentHasher | null = null;

/**
 * The ways a snapshot is taken: relative to the index through `git status`
 * (default), the same with git status on a private copy of the index (its
 * untracked cache; the CLI and the hook run it so, here for every repo
 * size), and a full walk.
 */
export type Engine = "auto" | "status-index" | "walk";
export const ENGINES: readonly Engine[] = ["auto", "status-index", "walk"];

/** The snapshot options of an engine; the private index copies live in the sandbox. */
export function engineOptions(sb: Sandbox, engine: Engine): Pick<SnapshotOptions, "engine" | "statusIndex"> {
  return engine === "status-index" ? { engine: "auto", statusIndex: { dir: path.join(path.dirname(sb.dir), "status-index"), minEntries: 0 } } : { engine };
}

export async function snap(sb: Sandbox, repo: Repo, previous?: Snapshot, engine: Engine = "auto"): Promise<Snapshot> {
  hasher ??= await loadContentHasher();
  const r = await takeSnapshot(repo, { hasher, configEnv: sb.configEnv, ...engineOptions(sb, engine), ...(previous === undefined ? {} : { previous }) });
  return r.snapshot;
}

export function repoAt(root: string): Repo {
  const real = fs.realpathSync(root);
  const repo = discoverRepos(real, { walkUp: false }).repos.find((r) => r.root === real);
  if (repo === undefined) throw new Error(`no repo at ${root}`);
  return repo;
}

/** Snapshot, run `change`, snapshot again with the first as the stat cache, and diff. */
export async function changesOf(sb: Sandbox, root: string, change: () => void, engine: Engine = "auto"): Promise<PathChange[]> {
  const repo = repoAt(root);
  const before = await snap(sb, repo, undefined, engine);
  if (engine !== "walk" && before.base === undefined) throw new Error("expected a snapshot relative to the index");
  change();
  const after = await snap(sb, repo, before, engine);
  return diffSnapshots(before, after);
}

/** Sets a file's times an hour back, so it is neither racy for a snapshot nor for git's index. */
export function age(file: string, seconds = 3600): void {
  const t = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(file, t, t);
}

export function writeAged(root: string, rel: string, text: string): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  age(file);
}
