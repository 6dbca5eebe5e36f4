import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { errorCode } from "../fs/sync-fs.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { Repo } from "../workspace/repo.js";
import { gitBlobId, type ContentHasher, type WorktreeFs } from "./content-hasher.js";
import { readGitStatusView } from "./git-status-view.js";
import { listAttributed, type StatusRecord } from "./git-status.js";
import type { StatusIndexOptions } from "./status-index.js";
import type { IndexedPath, Snapshot, SnapshotEntry, SnapshotResult } from "./snapshot.js";
import { entryAt, vouchedBlobId } from "./stat-cache.js";
import { nonUtf8Name, statEntry, type StatEntry } from "./stat-entry.js";

export interface GitSnapshotContext {
  readonly fs: WorktreeFs;
  readonly hasher: ContentHasher;
  readonly configEnv: GitConfigEnv;
  readonly startedMs: number;
  readonly racyCutoff: number;
  readonly previous: Snapshot | null;
  readonly statusIndex: StatusIndexOptions | null;
}

/**
 * A snapshot relative to the git index, from one `git status` (which stats
 * tracked files on several threads and knows every ignore rule) instead of
 * a walk: only the paths git lists are stat-ed and hashed here. Returns why
 * the caller must walk instead wherever git's view could hide a change:
 * `core.fileMode` or `core.symlinks` off, eol conversion or attributes,
 * assume-unchanged or skip-worktree entries, a split or sparse index, a
 * SHA-256 repo, no git to run, or an index that changed while git ran.
 */
export function takeGitSnapshot(repo: Repo, ctx: GitSnapshotContext): SnapshotResult | { readonly walk: string } {
  const view = readGitStatusView(repo, ctx.fs, ctx.configEnv, ctx.statusIndex);
  if ("walk" in view) return view;
  const { facts, index, indexFile } = view;
  const diagnostics: Diagnostic[] = view.nonUtf8.map(nonUtf8Name);
  const bad = new Set(view.nonUtf8);
  const entries: StatEntry[] = [];
  const indexed: IndexedPath[] = [];
  const missing: string[] = [];
  const nested: string[] = [];
  const counts = { hashed: 0, fromPrevious: 0, fromIndex: 0 };
  const prev = ctx.previous?.root === repo.root ? ctx.previous.entries : [];
  // Paths under a clean/smudge filter, a working-tree encoding or `ident`: git status compares them through a
  // program or a conversion, so a write it would not show is possible there. Each is looked at here, as a listed
  // path, whatever git says (its stat vouching for the previous snapshot's hash, as for any listed file).
  let records: readonly StatusRecord[] = view.records;
  if (view.distrusted !== null) {
    const attributed = listAttributed(repo.root, ctx.configEnv, view.distrusted.pathspecs);
    if (attributed === null) return { walk: `${view.distrusted.reason}, and git ls-files could not list the paths it covers` };
    const listed = new Set(view.records.map((r) => r.path));
    records = [
      ...view.records,
      ...attributed.filter((a) => !listed.has(a.path)).map((a): StatusRecord => ({ kind: "changed", path: a.path, worktree: "M", indexMode: a.mode, indexOid: a.oid, headMode: 0, headOid: "" })),
    ];
    diagnostics.push(
      diagnostic(
        "snapshot_attributed_paths",
        "info",
        null,
        `asked git status, and looked at the ${attributed.length} path(s) under ${view.distrusted.reason.replace(/ in .*$/, "")} itself (git's view of them may hide a write)`,
      ),
    );
  }
  for (const r of records) {
    if (bad.has(r.path)) continue;
    if (r.kind === "untracked" && r.path.endsWith("/")) {
      // git shows a nested repo as an untracked folder and does not enter it.
      const rel = r.path.slice(0, -1);
      if (exists(ctx.fs, `${repo.root}/${rel}/.git`)) nested.push(`${repo.root}/${rel}`);
      continue;
    }
    if (r.kind === "changed") {
      if (r.worktree === ".") continue; // the working file equals the index: nothing to record
      indexed.push({ path: r.path, mode: r.indexMode, oid: r.indexOid });
    }
    const tracked = r.kind !== "untracked";
    const s = statPath(ctx.fs, repo.root, r.path, r.kind === "changed" && r.worktree === "D");
    if (s === null) {
      if (tracked) missing.push(r.path);
      continue;
    }
    if (s.type !== "dir") {
      s.racy = s.mtimeMs >= ctx.racyCutoff;
      try {
        s.hash = blobId(s, entryAt(prev, s.path), ctx, repo.root, counts);
      } catch (error) {
        // Unreadable: kept without a hash (a diff then compares stat data), so a tracked file is not taken for clean.
        if (errorCode(error) === "ENOENT") {
          if (tracked) missing.push(r.path);
          continue;
        }
        diagnostics.push(diagnostic("unreadable_file", "warning", s.path, `cannot read (${errorCode(error)})`));
      }
    }
    entries.push(s);
  }
  for (const g of facts.gitlinks) if (isDir(ctx.fs, `${repo.root}/${g}`)) nested.push(`${repo.root}/${g}`);
  entries.sort((a, b) => compareStrings(a.path, b.path));
  indexed.sort((a, b) => compareStrings(a.path, b.path));
  missing.sort(compareStrings);
  counts.fromIndex = Math.max(0, facts.files - indexed.length);
  const files = entries.filter((e) => e.type !== "dir").length;
  return {
    snapshot: { version: 1, root: repo.root, startedMs: ctx.startedMs, entries, base: { checksum: facts.checksum, index, ...(index.length > 0 ? { file: indexFile } : {}), indexed, missing } },
    diagnostics,
    nested: nested.sort(compareStrings),
    counts,
    // Clean tracked paths, plus every listed file or symlink that is there.
    paths: counts.fromIndex + files,
  };
}

/**
 * lstat of one listed path. A path git calls deleted is looked at only to
 * see a folder that took its place, and only when no folder above it is a
 * symlink (git does not follow one, nor may we).
 */
function statPath(fs: WorktreeFs, root: string, rel: string, deleted: boolean): StatEntry | null {
  let st: ReturnType<WorktreeFs["lstatSync"]>;
  try {
    st = fs.lstatSync(`${root}/${rel}`);
  } catch {
    return null;
  }
  const type = st.isDirectory() ? "dir" : st.isFile() ? "file" : st.isSymbolicLink() ? "symlink" : null;
  if (type === null || (deleted && (type !== "dir" || throughSymlink(fs, root, rel)))) return null;
  if (type === "dir") return { path: rel, type, executable: false, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, hash: null, racy: false };
  return statEntry(rel, type, st);
}

function throughSymlink(fs: WorktreeFs, root: string, rel: string): boolean {
  const parts = rel.split("/");
  for (let i = 1; i < parts.length; i++) {
    try {
      if (fs.lstatSync(`${root}/${parts.slice(0, i).join("/")}`).isSymbolicLink()) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** The git blob id of a listed file or symlink: from the previous snapshot when its stat vouches for it, else read. */
function blobId(s: StatEntry, prev: SnapshotEntry | undefined, ctx: GitSnapshotContext, root: string, counts: { hashed: number; fromPrevious: number }): string {
  const known = vouchedBlobId(prev, s);
  if (known !== undefined) {
    counts.fromPrevious++;
    return known;
  }
  counts.hashed++;
  if (s.type === "symlink") return gitBlobId(ctx.fs.readlinkSync(`${root}/${s.path}`));
  return ctx.hasher.gitBlobFile(ctx.fs, `${root}/${s.path}`, s.size);
}

function exists(fs: WorktreeFs, p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDir(fs: WorktreeFs, p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
