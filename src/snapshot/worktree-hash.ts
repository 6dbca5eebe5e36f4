import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { nodeSyncFs } from "../fs/sync-fs.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { RefReader } from "../git/read-refs.js";
import { processConfigEnv } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import { gitBlobId, loadContentHasher, nodeWorktreeFs, type ContentHasher, type WorktreeFs } from "./content-hasher.js";
import { readGitStatusView, walkedDiagnostic, type GitStatusView } from "./git-status-view.js";
import type { StatusIndexOptions } from "./status-index.js";
import type { PathChange, Snapshot, SnapshotEntry } from "./snapshot.js";
import { DEFAULT_RACY_MARGIN_MS, entryAt, vouchedBlobId } from "./stat-cache.js";
import { nonUtf8Name, statEntry, type StatEntry } from "./stat-entry.js";

export interface WorktreeHashResult {
  /** Lowercase hex SHA-256; null when the repo's git data cannot be read. */
  readonly worktree_hash: string | null;
  /** How many paths differ from HEAD (added, deleted, modified, mode or type changed). */
  readonly changed: number;
  /** The paths that differ from the compared commit (HEAD, or `against`), sorted. */
  readonly changes: readonly PathChange[];
  /** For each changed path the compared commit has, its blob id there (to read or cache its old version). */
  readonly baseOids: Readonly<Record<string, string>>;
  /**
   * The working files it read (or took from `previous`), with stat data and
   * git blob id, sorted: pass them back as `previous` next time (a snapshot's
   * entries serve too). Empty when it walked.
   */
  readonly files: readonly SnapshotEntry[];
  readonly diagnostics: readonly Diagnostic[];
}

/** A path's entry in a tree: git mode (`100644`, `100755`, `120000`) and blob id. */
interface TreeBlob {
  readonly mode: string;
  readonly oid: string;
}

/**
 * One hash of a working tree's state against HEAD, the same on any machine
 * for the same HEAD and the same uncommitted changes: SHA-256 over HEAD's id
 * and, for every path whose working copy differs from HEAD (sorted), its
 * path, mode and git blob id (or a deletion mark). A clean tree hashes HEAD
 * alone, so it is stable. What git ignores does not count; untracked files
 * do. Files are read only where the index cannot vouch for them.
 *
 * Limits: a submodule counts by its presence, not by its checked-out commit;
 * with eol conversion or clean filters the blob ids are of the raw bytes, so
 * such a tree hashes the same only on machines with the same settings.
 */
export async function worktreeHash(
  repo: Repo,
  options: {
    fs?: WorktreeFs;
    configEnv?: GitConfigEnv;
    hasher?: ContentHasher;
    against?: string | null;
    engine?: "auto" | "walk";
    /** Files read before (an earlier result's `files`, or a snapshot): one whose stat is unchanged is not read again. */
    previous?: Snapshot | null;
    /** Milliseconds since the epoch, for the racy rule; `Date.now` by default. */
    clock?: () => number;
    /** Where git status may keep private copies of large repos' indexes (`privateStatusIndex`); none by default. */
    statusIndex?: StatusIndexOptions | null;
    /** This repo's git status, already started (`readGitStatusViewAsync`, same `statusIndex`, `withIndex: false`): used instead of running git again. */
    statusView?: Promise<GitStatusView | { readonly walk: string }> | null;
  } = {},
): Promise<WorktreeHashResult> {
  const diagnostics: Diagnostic[] = [];
  const none = { worktree_hash: null, changed: 0, changes: [], baseOids: {}, files: [] };
  if (repo.gitDir === null || repo.commonDir === null) return { ...none, diagnostics };
  const fs = options.fs ?? nodeWorktreeFs;
  const hasher = options.hasher ?? (await loadContentHasher());
  const configEnv = options.configEnv ?? processConfigEnv();
  const refs = new RefReader(nodeSyncFs, repo.gitDir, repo.commonDir);
  const head = refs.head();
  const headOid = head.kind === "detached" ? head.oid : head.kind === "symbolic" ? refs.resolve(head.ref) : null;
  if (head.kind === "invalid") return { ...none, diagnostics: [diagnostic("bad_head", "error", null, "HEAD is unreadable")] };

  // The hash is always against HEAD; the listed changes may be against another commit (`--since`).
  const against = options.against ?? headOid;
  // Against HEAD, one git status says which paths differ (it also names HEAD's blob of each): no walk, no tree read.
  if ((options.engine ?? "auto") === "auto" && fs === nodeWorktreeFs && against === headOid) {
    // The hash needs no index bytes: a large repo's index is then not read again while it has not changed.
    const view = (await options.statusView) ?? readGitStatusView(repo, fs, configEnv, options.statusIndex ?? null, { withIndex: false });
    if (!("walk" in view)) {
      const previous = options.previous?.root === repo.root ? options.previous.entries : [];
      return hashFromStatus(repo, view, headOid, { fs, hasher, previous, racyCutoff: (options.clock ?? Date.now)() - DEFAULT_RACY_MARGIN_MS });
    }
    diagnostics.push(walkedDiagnostic(view.walk));
  }
  // The walk (and its ignore rules) load only when git status cannot be used.
  const { indexMatches, scanWorktree } = await import("./scan-worktree.js");
  const scan = await scanWorktree(repo, { fs, configEnv });
  diagnostics.push(...scan.diagnostics);
  let headTree: Map<string, TreeBlob>;
  let baseTree: Map<string, TreeBlob>;
  try {
    headTree = headOid === null ? new Map() : await readHeadTree(repo.commonDir, headOid, scan.index);
    baseTree = against === headOid ? headTree : against === null ? new Map() : await readHeadTree(repo.commonDir, against, null);
  } catch (error) {
    diagnostics.push(diagnostic("head_tree_unreadable", "error", null, `cannot read the commit's tree: ${error instanceof Error ? error.message : String(error)}`));
    return { ...none, diagnostics };
  }

  const working = new Map(scan.entries.filter((e) => e.type !== "dir").map((e) => [e.path, e]));
  // Sparse checkout: skip-worktree paths are absent on purpose, not deleted.
  const sparse = new Set((scan.index?.entries ?? []).filter((e) => e.skipWorktree).map((e) => e.path));
  const blobOf = new Map<string, string | null>();
  const workingBlob = (p: string, w: StatEntry): string | null => {
    if (!blobOf.has(p)) {
      try {
        blobOf.set(p, w.type === "symlink" ? gitBlobId(fs.readlinkSync(`${repo.root}/${p}`)) : hasher.gitBlobFile(fs, `${repo.root}/${p}`, w.size));
      } catch {
        blobOf.set(p, null); // vanished mid-scan
      }
    }
    return blobOf.get(p) ?? null;
  };
  const compare = (tree: Map<string, TreeBlob>): { lines: string[]; changes: PathChange[] } => {
    const lines: string[] = [];
    const changes: PathChange[] = [];
    for (const p of [...new Set([...tree.keys(), ...working.keys()])].sort(compareStrings)) {
      const h = tree.get(p);
      if (h?.mode === "160000") continue; // a submodule: its own repo
      const w = working.get(p);
      if (w === undefined) {
        if (sparse.has(p)) continue;
        lines.push(`${p}\0deleted`);
        changes.push({ path: p, change: "deleted" });
        continue;
      }
      const mode = w.type === "symlink" ? "120000" : w.executable ? "100755" : "100644";
      const idx = scan.trusted(p);
      if (h !== undefined && h.mode === mode && idx !== undefined && idx.oid === h.oid && indexMatches(idx, w)) continue;
      const oid = workingBlob(p, w);
      if (oid === null) {
        lines.push(`${p}\0deleted`);
        changes.push({ path: p, change: "deleted" });
        continue;
      }
      if (h !== undefined && h.mode === mode && h.oid === oid) continue;
      lines.push(`${p}\0${mode}\0${oid}`);
      changes.push({ path: p, change: changeAgainst(h ?? null, { mode, oid }) });
    }
    return { lines, changes };
  };
  const { lines, changes: headChanges } = compare(headTree);
  const changes = baseTree === headTree ? headChanges : compare(baseTree).changes;
  const hash = hashOfLines(headOid, lines);
  const baseOids: Record<string, string> = {};
  for (const c of changes) {
    const b = baseTree.get(c.path);
    if (b !== undefined && b.mode !== "160000") baseOids[c.path] = b.oid;
  }
  return { worktree_hash: hash, changed: lines.length, changes, baseOids, files: [], diagnostics };
}

/** The hash itself: HEAD's id, then one line per path that differs from it. */
function hashOfLines(headOid: string | null, lines: readonly string[]): string {
  return createHash("sha256")
    .update(`comity-worktree/1\n${headOid ?? "unborn"}\n${lines.join("\n")}`, "utf8")
    .digest("hex");
}

type Side = { readonly mode: string; readonly oid: string } | null;

/** How a working file differs from the commit's version of its path (null: the commit has none). */
function changeAgainst(h: Side, w: { readonly mode: string; readonly oid: string }): PathChange["change"] {
  if (h === null) return "added";
  if ((h.mode === "120000") !== (w.mode === "120000")) return "type_changed";
  return h.oid !== w.oid ? "modified" : "mode_changed";
}

/**
 * The same result from `git status`: a path it does not list is the same in
 * HEAD, the index and the working tree. For a listed path, HEAD's side comes
 * from the record; the working side is the index's where git says the file
 * equals it, absent where git says it is deleted, and read here otherwise.
 */
function hashFromStatus(
  repo: Repo,
  view: GitStatusView,
  headOid: string | null,
  ctx: { fs: WorktreeFs; hasher: ContentHasher; previous: readonly SnapshotEntry[]; racyCutoff: number },
): WorktreeHashResult {
  const { fs, hasher } = ctx;
  const files: SnapshotEntry[] = [];
  const diagnostics: Diagnostic[] = view.nonUtf8.map(nonUtf8Name);
  const bad = new Set(view.nonUtf8);
  const side = (mode: number, oid: string): Side => (mode === 0 ? null : { mode: mode.toString(8), oid });
  const head = new Map<string, Side>();
  const work = new Map<string, Side | "read">();
  for (const r of view.records) {
    if (bad.has(r.path)) continue;
    if (r.kind === "untracked") {
      if (r.path.endsWith("/")) continue; // a nested repo: its own
      if (!head.has(r.path)) head.set(r.path, null);
      work.set(r.path, "read");
      continue;
    }
    if (r.headMode === 0o160000 || (r.kind === "changed" && r.indexMode === 0o160000)) continue; // a submodule
    head.set(r.path, side(r.headMode, r.headOid));
    // An untracked record of the same path (removed from the index, still on disk) says more: keep it.
    if (work.get(r.path) === "read") continue;
    if (r.kind === "unmerged") work.set(r.path, "read");
    else work.set(r.path, r.worktree === "." ? side(r.indexMode, r.indexOid) : r.worktree === "D" ? null : "read");
  }
  const readSide = (p: string): Side => {
    try {
      const st = fs.lstatSync(`${repo.root}/${p}`);
      const type = st.isSymbolicLink() ? "symlink" : st.isFile() ? "file" : null;
      if (type === null) return null; // a folder in its place: its files are listed on their own
      const s = statEntry(p, type, st);
      s.racy = st.mtimeMs >= ctx.racyCutoff;
      s.hash = vouchedBlobId(entryAt(ctx.previous, p), s) ?? (type === "symlink" ? gitBlobId(fs.readlinkSync(`${repo.root}/${p}`)) : hasher.gitBlobFile(fs, `${repo.root}/${p}`, st.size));
      files.push(s);
      return { mode: type === "symlink" ? "120000" : s.executable ? "100755" : "100644", oid: s.hash };
    } catch {
      return null;
    }
  };
  const lines: string[] = [];
  const changes: PathChange[] = [];
  const baseOids: Record<string, string> = {};
  for (const p of [...head.keys()].sort(compareStrings)) {
    const h = head.get(p) ?? null;
    const listed = work.get(p);
    const w = listed === "read" ? readSide(p) : (listed ?? null);
    if (h === null && w === null) continue;
    if (w === null) {
      lines.push(`${p}\0deleted`);
      changes.push({ path: p, change: "deleted" });
    } else if (h === null || h.mode !== w.mode || h.oid !== w.oid) {
      lines.push(`${p}\0${w.mode}\0${w.oid}`);
      changes.push({ path: p, change: changeAgainst(h, w) });
    } else {
      continue;
    }
    if (h !== null) baseOids[p] = h.oid;
  }
  const hash = hashOfLines(headOid, lines);
  files.sort((a, b) => compareStrings(a.path, b.path));
  return { worktree_hash: hash, changed: lines.length, changes, baseOids, files, diagnostics };
}

/**
 * HEAD's files. When the index's cache-tree says the whole index is HEAD's
 * tree (nothing staged), the index already lists them and no object is read.
 */
async function readHeadTree(
  commonDir: string,
  headOid: string,
  index: { entries: ReadonlyArray<{ path: string; mode: number; oid: string }>; rootTree: string | null } | null,
): Promise<Map<string, TreeBlob>> {
  const git = await import("isomorphic-git");
  const cache = {};
  const { commit } = await git.readCommit({ fs: nodeFs, gitdir: commonDir, oid: headOid, cache });
  const out = new Map<string, TreeBlob>();
  if (index !== null && index.rootTree === commit.tree) {
    for (const e of index.entries) out.set(e.path, { mode: e.mode.toString(8), oid: e.oid });
    return out;
  }
  const visit = async (oid: string, prefix: string): Promise<void> => {
    const { tree } = await git.readTree({ fs: nodeFs, gitdir: commonDir, oid, cache });
    for (const entry of tree) {
      const p = prefix === "" ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === "tree") await visit(entry.oid, p);
      else out.set(p, { mode: entry.mode, oid: entry.oid });
    }
  };
  await visit(commit.tree, "");
  return out;
}
