import * as fs from "node:fs";
import type { SnapshotMemo } from "../snapshot/command-snapshots.js";
import type { SnapshotResult } from "../snapshot/snapshot.js";
import type { Repo } from "../workspace/repo.js";
import type { WatchedRoots } from "./watched-roots.js";

export interface SnapshotMemoOptions {
  readonly roots: WatchedRoots;
  /** A kept snapshot is taken again after this long all the same. Default 10 minutes. */
  readonly maxAgeMs?: number;
  /** At most this many files in all the snapshots kept (the least recently used repo goes first). Default 500,000. */
  readonly maxEntries?: number;
  readonly clock?: () => number;
}

interface Kept {
  readonly result: SnapshotResult;
  /** The git settings it was taken under. */
  readonly settings: string;
  /** Each root the snapshot read (the work tree, its git folders) and its generation when the snapshot began. */
  readonly gens: ReadonlyMap<string, number>;
  readonly atMs: number;
}

/**
 * The daemon's last snapshot of each repo, reused while its change watch saw nothing under the repo or its git
 * folders since that snapshot began: a shell command that changed nothing costs no `git status` before or after it.
 * A repo is watched from its first snapshot and reused from its second on; a snapshot with diagnostics (a walk, a
 * file it could not read) is never reused. `stats` counts the snapshots reused.
 */
export function createSnapshotMemo(options: SnapshotMemoOptions): SnapshotMemo & { stats(): { readonly reused: number; readonly taken: number } } {
  const { roots } = options;
  const maxAgeMs = options.maxAgeMs ?? 600_000;
  const maxEntries = options.maxEntries ?? 500_000;
  const clock = options.clock ?? Date.now;
  const kept = new Map<string, Kept>();
  let entries = 0;
  let reused = 0;
  let taken = 0;
  const drop = (root: string): void => {
    const k = kept.get(root);
    if (k === undefined) return;
    entries -= k.result.snapshot.entries.length;
    kept.delete(root);
  };
  /** The real folders a snapshot of the repo reads; null where one is missing. */
  const foldersOf = (repo: Repo): string[] | null => {
    try {
      const out = [repo.root, repo.gitDir, repo.commonDir].filter((p): p is string => p !== null).map((p) => fs.realpathSync(p));
      return [...new Set(out)];
    } catch {
      return null;
    }
  };
  return {
    kept(repo, settings) {
      const k = kept.get(repo.root);
      if (k === undefined) return null;
      if (k.settings !== settings || !roots.refresh() || clock() - k.atMs > maxAgeMs || !roots.unchanged(k.gens)) {
        drop(repo.root);
        return null;
      }
      kept.delete(repo.root);
      kept.set(repo.root, k);
      reused++;
      return k.result;
    },
    begin(repo, settings) {
      taken++;
      drop(repo.root);
      const folders = foldersOf(repo);
      if (folders === null || !roots.refresh()) return null;
      // A repo not watched yet is from now: its next snapshot is kept.
      const gens = roots.generationsOf(folders);
      if (gens === null) return null;
      const atMs = clock();
      return (result) => {
        if (result.diagnostics.length > 0) return;
        // Changed while it was taken: it may hold a half-done state.
        if (!roots.refresh() || !roots.unchanged(gens)) return;
        kept.set(repo.root, { result, settings, gens, atMs });
        entries += result.snapshot.entries.length;
        for (const root of kept.keys()) {
          if (entries <= maxEntries) break;
          drop(root);
        }
      };
    },
    stats: () => ({ reused, taken }),
  };
}
