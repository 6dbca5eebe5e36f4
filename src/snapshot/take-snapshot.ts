import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { errorCode } from "../fs/sync-fs.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { IndexEntry } from "../git/read-git-index.js";
import { processConfigEnv } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import { loadContentHasher, nodeWorktreeFs, type ContentHasher, type WorktreeFs } from "./content-hasher.js";
import { walkedDiagnostic } from "./git-status-view.js";
import { indexMatches, scanWorktree } from "./scan-worktree.js";
import { XXH64_HEX_LENGTH, type Snapshot, type SnapshotEntry, type SnapshotResult } from "./snapshot.js";
import { DEFAULT_RACY_MARGIN_MS, sameStat } from "./stat-cache.js";
import type { StatusIndexOptions } from "./status-index.js";
import { takeGitSnapshot } from "./take-git-snapshot.js";
import type { StatEntry } from "./stat-entry.js";

export { DEFAULT_RACY_MARGIN_MS } from "./stat-cache.js";
export type { SnapshotResult } from "./snapshot.js";

export interface SnapshotOptions {
  readonly fs?: WorktreeFs;
  readonly hasher?: ContentHasher;
  /** The previous snapshot of the same repo: its stat data spares re-hashing unchanged files. */
  readonly previous?: Snapshot | null;
  /** Milliseconds since the epoch; `Date.now` by default. */
  readonly clock?: () => number;
  readonly configEnv?: GitConfigEnv;
  readonly racyMarginMs?: number;
  /**
   * Worker threads for the walk: `"auto"` (default) uses one per core when the
   * index or the previous snapshot has 20,000 paths or more, none otherwise.
   */
  readonly workers?: number | "auto";
  /**
   * `"auto"` (default): relative to the git index from one `git status`
   * where git's view is complete (see `takeGitSnapshot`), else a walk.
   * `"walk"`: always walk and hash every path (the snapshot lists them all).
   */
  readonly engine?: "auto" | "walk";
  /** Where git status may keep private copies of large repos' indexes (`privateStatusIndex`); none by default. */
  readonly statusIndex?: StatusIndexOptions | null;
}

/**
 * Snapshots a repo's working tree: every tracked and untracked path git can
 * see, with stat data and a content hash. Content is read only where nothing
 * vouches for it: an entry of `previous` with the same stat (and not racy), or
 * a clean git index entry with the same stat, stands for it. Files modified
 * at or after the start (less a margin for coarse timestamps) are hashed and
 * marked racy, so the next snapshot hashes them again.
 *
 * @example
 * const before = (await takeSnapshot(repo)).snapshot;
 * // ... a shell command runs ...
 * const after = (await takeSnapshot(repo, { previous: before })).snapshot;
 * diffSnapshots(before, after);
 */
export async function takeSnapshot(repo: Repo, options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const fs = options.fs ?? nodeWorktreeFs;
  const hasher = options.hasher ?? (await loadContentHasher());
  const clock = options.clock ?? Date.now;
  const startedMs = clock();
  const racyCutoff = startedMs - (options.racyMarginMs ?? DEFAULT_RACY_MARGIN_MS);
  const configEnv = options.configEnv ?? processConfigEnv();
  // git reads the real disk: an injected file system (tests of odd cases) always walks.
  let walked: Diagnostic | null = null;
  if ((options.engine ?? "auto") === "auto" && fs === nodeWorktreeFs) {
    const viaGit = takeGitSnapshot(repo, { fs, hasher, configEnv, startedMs, racyCutoff, previous: options.previous ?? null, statusIndex: options.statusIndex ?? null });
    if (!("walk" in viaGit)) return viaGit;
    // Slower on a large tree, and worth knowing why.
    walked = walkedDiagnostic(viaGit.walk);
  }
  const scan = await scanWorktree(repo, {
    fs,
    configEnv,
    workers: options.workers ?? "auto",
    expectedPaths: options.previous?.entries.length ?? 0,
  });
  const diagnostics: Diagnostic[] = [...(walked === null ? [] : [walked]), ...scan.diagnostics];
  const previous = options.previous?.root === repo.root ? options.previous : null;
  const entries = [...scan.entries].sort((a, b) => compareStrings(a.path, b.path));
  const prev = previous?.entries ?? [];
  const counts = { hashed: 0, fromPrevious: 0, fromIndex: 0 };
  const kept: StatEntry[] = [];
  // Both lists are sorted by path: a merge join finds each path's previous entry without a map.
  let j = 0;
  for (const s of entries) {
    while (j < prev.length && compareStrings((prev[j] as SnapshotEntry).path, s.path) < 0) j++;
    const p = prev[j];
    const before = p !== undefined && p.path === s.path ? p : undefined;
    if (s.type === "dir") {
      kept.push(s);
      continue;
    }
    s.racy = s.mtimeMs >= racyCutoff;
    try {
      s.hash = contentHash(s, s.racy, before, scan.trusted, fs, repo.root, hasher, counts);
    } catch (error) {
      // Deleted or made unreadable mid-walk: leave it out rather than invent content.
      if (errorCode(error) !== "ENOENT") diagnostics.push(diagnostic("unreadable_file", "warning", s.path, `cannot read (${errorCode(error)})`));
      continue;
    }
    kept.push(s);
  }
  const paths = kept.filter((e) => e.type !== "dir").length;
  return { snapshot: { version: 1, root: repo.root, startedMs, entries: kept }, diagnostics, counts, nested: scan.nested, paths };
}

function contentHash(
  s: StatEntry,
  racy: boolean,
  prev: SnapshotEntry | undefined,
  trusted: (path: string) => IndexEntry | undefined,
  fs: WorktreeFs,
  root: string,
  hasher: ContentHasher,
  counts: { hashed: number; fromPrevious: number; fromIndex: number },
): string {
  if (s.type === "symlink") {
    counts.hashed++;
    return hasher.xxh64(fs.readlinkSync(`${root}/${s.path}`));
  }
  if (prev !== undefined && prev.type === "file" && prev.hash !== null) {
    if (!prev.racy && !racy && sameStat(prev, s)) {
      counts.fromPrevious++;
      return prev.hash;
    }
    // Hash the way the previous snapshot did, so the two can be compared.
    counts.hashed++;
    const abs = `${root}/${s.path}`;
    return prev.hash.length === XXH64_HEX_LENGTH ? hasher.xxh64File(fs, abs, s.size) : hasher.gitBlobFile(fs, abs, s.size);
  }
  // Only a path the previous snapshot did not have is looked up in the index.
  const idx = racy ? undefined : trusted(s.path);
  if (idx !== undefined && indexMatches(idx, s)) {
    counts.fromIndex++;
    return idx.oid;
  }
  counts.hashed++;
  return hasher.xxh64File(fs, `${root}/${s.path}`, s.size);
}
