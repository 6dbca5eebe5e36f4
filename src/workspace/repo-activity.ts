import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";
import { nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import type { Snapshot } from "../snapshot/snapshot.js";
import type { Repo } from "./repo.js";

/**
 * When a repo was last active (ms since the epoch): the newest of its
 * `HEAD`, `index` and `logs/HEAD` (commits, checkouts, staging), and, where a
 * snapshot of it exists, the newest working-tree change it saw. 0 when none
 * can be read.
 */
export function repoActivityMs(repo: Repo, options: { fs?: SyncFs; latestSnapshot?: Snapshot | null } = {}): number {
  const fs = options.fs ?? nodeSyncFs;
  let newest = 0;
  if (repo.gitDir !== null) {
    for (const f of ["HEAD", "index", path.join("logs", "HEAD")]) {
      try {
        newest = Math.max(newest, fs.statSync(path.join(repo.gitDir, f)).mtimeMs);
      } catch {
        // not there (an unborn repo has no index)
      }
    }
  }
  for (const e of options.latestSnapshot?.entries ?? []) if (e.type !== "dir") newest = Math.max(newest, e.mtimeMs);
  return newest;
}

/** Most recently active first; ties broken by root, so "the 8 most active" is well defined. Pure. */
export function rankByActivity<T extends { readonly root: string; readonly activityMs: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => b.activityMs - a.activityMs || compareStrings(a.root, b.root));
}
