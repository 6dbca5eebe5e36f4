import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";
import { nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import type { Repo } from "./repo.js";

/**
 * When a repo was last active (ms since the epoch): the newest of its
 * `HEAD`, `index` and `logs/HEAD` (commits, checkouts, staging), and, where
 * the hooks noted one, the last working-tree change an agent's command made
 * (`SnapshotStore.agentActivity`). 0 when none can be read. Never what
 * `comity analyze` saw itself: a run must not rank the next one.
 */
export function repoActivityMs(repo: Repo, options: { fs?: SyncFs; agentActivityMs?: number | null } = {}): number {
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
  return Math.max(newest, options.agentActivityMs ?? 0);
}

/** Most recently active first; ties broken by root, so "the 8 most active" is well defined. Pure. */
export function rankByActivity<T extends { readonly root: string; readonly activityMs: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => b.activityMs - a.activityMs || compareStrings(a.root, b.root));
}
