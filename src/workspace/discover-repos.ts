import * as path from "node:path";
import { ComityError } from "../errors/comity-error.js";
import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { errorCode, nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import type { DiscoveryCache, WalkedFolder } from "./discovery-cache.js";
import { readGitEntry } from "./read-git-entry.js";
import type { Repo, RepoKind } from "./repo.js";

/**
 * Folder names never entered by default: package-manager stores, virtualenvs
 * and build caches. They hold hundreds of thousands of files and no work trees
 * of the user's own.
 */
export const DEFAULT_PRUNE: readonly string[] = [
  ".cache",
  ".gradle",
  ".mypy_cache",
  ".next",
  ".nox",
  ".nuxt",
  ".parcel-cache",
  ".pnpm-store",
  ".pytest_cache",
  ".ruff_cache",
  ".svelte-kit",
  ".terraform",
  ".tox",
  ".turbo",
  ".venv",
  "__pycache__",
  "bower_components",
  "node_modules",
  "venv",
];

export interface DiscoverOptions {
  /** File-system calls; the real ones by default. */
  readonly fs?: SyncFs;
  /** Folder names never entered (replaces {@link DEFAULT_PRUNE}). */
  readonly prune?: readonly string[];
  /** How many folder levels below the root are entered. Default 64. */
  readonly maxDepth?: number;
  /** Enter symlinked folders (each real folder once, so loops end). Default false, like git. */
  readonly followSymlinks?: boolean;
  /** Also find the repo the root sits inside, walking up as git does. Default true. */
  readonly walkUp?: boolean;
  /** Folder a relative root is resolved against; the process's by default. */
  readonly cwd?: string;
  /**
   * The last walk of the same root, kept between runs: a folder whose stat is
   * unchanged (and not changed within {@link RACY_FOLDER_MS} of that walk) is
   * not read again. Not used with `followSymlinks`.
   */
  readonly cache?: DiscoveryCache | null;
  /** Milliseconds since the epoch, for the cache's racy rule; `Date.now` by default. */
  readonly clock?: () => number;
}

/** A folder changed this close to (or after) the cached walk may have changed again within one timestamp tick: it is read again. */
export const RACY_FOLDER_MS = 2000;

/** The repos under (and around) one folder. */
export interface Discovery {
  /** The real path of the folder that was walked. */
  readonly root: string;
  /** Sorted by root. */
  readonly repos: readonly Repo[];
  /** Problems with folders (unreadable, too deep); per-repo ones sit in each repo. */
  readonly diagnostics: readonly Diagnostic[];
}

interface Found {
  root: string;
  isFile: boolean;
}

/**
 * Finds every git work tree under `root` in one walk: `.git` folders, and
 * `.git` files (linked worktrees, submodules). Nested repos and repos inside
 * git-ignored folders are found (`.gitignore` does not apply to discovery).
 * `.git` is never entered; heavy folders are pruned; symlinks are not
 * followed unless asked, and then each real folder is entered once. When
 * `root` itself sits inside a repo, that repo is found by walking up.
 *
 * @throws {ComityError} `ROOT_NOT_FOUND`, `ROOT_NOT_A_DIRECTORY` or `ROOT_UNREADABLE`.
 * @example
 * const { repos } = discoverRepos("/work");
 * for (const repo of repos) console.log(repo.root, repo.kind);
 */
export function discoverRepos(root: string, options: DiscoverOptions = {}): Discovery {
  const fs = options.fs ?? nodeSyncFs;
  const realRoot = resolveRoot(fs, root, options.cwd ?? process.cwd());
  const prune = new Set(options.prune ?? DEFAULT_PRUNE);
  const maxDepth = options.maxDepth ?? 64;
  const follow = options.followSymlinks ?? false;
  const diagnostics: Diagnostic[] = [];
  const found: Found[] = [];
  const visited = new Set<string>();
  if (follow) visited.add(folderKey(fs, realRoot));

  // The cache: the last walk's folders, and what this walk saw of each.
  const cache = follow ? null : (options.cache ?? null);
  const cacheKey = JSON.stringify([realRoot, [...prune].sort(compareStrings), maxDepth]);
  const startedMs = (options.clock ?? Date.now)();
  const last = cache?.load(cacheKey) ?? null;
  const trustBefore = last === null ? -Infinity : last.writtenAtMs - RACY_FOLDER_MS;
  const seen = new Map<string, WalkedFolder>();
  let reread = false;

  const stack: Array<{ dir: string; rel: string; depth: number }> = [{ dir: realRoot, rel: "", depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { dir, rel, depth } = item;
    const child = (name: string): string => (dir === path.sep ? path.sep + name : dir + path.sep + name);
    const childRel = (name: string): string => (rel === "" ? name : `${rel}/${name}`);
    let stat: { mtimeMs: number; ctimeMs: number; ino: number } | null = null;
    if (cache !== null) {
      try {
        const st = fs.lstatSync(dir);
        stat = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
      } catch {
        stat = null;
      }
      const before = last?.folders.get(rel);
      if (stat !== null && before !== undefined && sameFolder(before, stat) && before.mtimeMs < trustBefore) {
        // Unchanged since the last walk: what it saw here still holds.
        seen.set(rel, before);
        if (before.unreadable !== null) diagnostics.push(diagnostic("unreadable_folder", "warning", dir, `cannot read folder (${before.unreadable})`));
        if (before.git !== null) found.push({ root: dir, isFile: before.git === "file" });
        for (const name of before.sub) pushChild(stack, child(name), childRel(name), depth, maxDepth, diagnostics);
        continue;
      }
      reread = true;
    }
    const record = { git: null as "dir" | "file" | null, sub: [] as string[], unreadable: null as string | null };
    let entries: ReturnType<SyncFs["readdirSync"]>;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      diagnostics.push(diagnostic("unreadable_folder", "warning", dir, `cannot read folder (${errorCode(error)})`));
      record.unreadable = errorCode(error);
      entries = [];
    }
    for (const entry of entries) {
      const name = entry.name;
      const full = child(name);
      let isDir = entry.isDirectory();
      let isLink = entry.isSymbolicLink();
      if (!isDir && !isLink && !entry.isFile() && isUnknownType(entry)) {
        // Some file systems report DT_UNKNOWN: ask lstat.
        try {
          const st = fs.lstatSync(full);
          isDir = st.isDirectory();
          isLink = st.isSymbolicLink();
        } catch {
          continue;
        }
      }
      if (name === ".git") {
        const kind = gitEntryKind(fs, full, isDir, isLink);
        if (kind !== null) found.push({ root: dir, isFile: kind === "file" });
        record.git = kind;
        continue;
      }
      if (prune.has(name)) continue;
      if (isLink) {
        if (!follow) continue;
        const target = symlinkedFolder(fs, full);
        if (target === null) continue;
        const key = folderKey(fs, target);
        if (visited.has(key)) continue;
        visited.add(key);
        pushChild(stack, target, childRel(name), depth, maxDepth, diagnostics);
        continue;
      }
      if (!isDir) continue;
      if (follow) {
        const key = folderKey(fs, full);
        if (visited.has(key)) continue;
        visited.add(key);
      }
      record.sub.push(name);
      pushChild(stack, full, childRel(name), depth, maxDepth, diagnostics);
    }
    if (stat !== null) seen.set(rel, { ...stat, ...record });
  }
  // Saved when something was read again, or when folders went away.
  if (cache !== null && (reread || seen.size !== (last?.folders.size ?? -1))) cache.save(cacheKey, { writtenAtMs: startedMs, folders: seen });

  if (options.walkUp ?? true) {
    const above = findEnclosingGitEntry(fs, path.dirname(realRoot));
    if (above !== null) found.push(above);
  }
  const repos = buildRepos(fs, realRoot, found);
  diagnostics.sort((a, b) => compareStrings(a.path ?? "", b.path ?? "") || compareStrings(a.code, b.code));
  return { root: realRoot, repos, diagnostics };
}

/**
 * The repo whose work tree holds `dir`: `dir` itself when it has a `.git`,
 * else the nearest one above it, as git finds it. No walk below `dir`.
 *
 * @throws {ComityError} when `dir` is missing or not a folder.
 */
export function findOwningRepo(dir: string, options: { fs?: SyncFs; cwd?: string } = {}): Repo | null {
  const fs = options.fs ?? nodeSyncFs;
  const real = resolveRoot(fs, dir, options.cwd ?? process.cwd());
  const found = findEnclosingGitEntry(fs, real);
  return found === null ? null : (buildRepos(fs, found.root, [found])[0] ?? null);
}

function resolveRoot(fs: SyncFs, root: string, cwd: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(cwd, root));
  } catch (error) {
    throw new ComityError("ROOT_NOT_FOUND", `${root}: no such folder`, { cause: error });
  }
  let isDir = false;
  try {
    isDir = fs.statSync(real).isDirectory();
  } catch (error) {
    throw new ComityError("ROOT_UNREADABLE", `${root}: cannot read (${errorCode(error)})`, { cause: error });
  }
  if (!isDir) throw new ComityError("ROOT_NOT_A_DIRECTORY", `${root}: not a folder`);
  return real;
}

function pushChild(stack: Array<{ dir: string; rel: string; depth: number }>, dir: string, rel: string, depth: number, maxDepth: number, diagnostics: Diagnostic[]): void {
  if (depth + 1 > maxDepth) {
    diagnostics.push(diagnostic("depth_limit", "info", dir, `not entered: deeper than ${maxDepth} levels`));
    return;
  }
  stack.push({ dir, rel, depth: depth + 1 });
}

function sameFolder(a: WalkedFolder, b: { mtimeMs: number; ctimeMs: number; ino: number }): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function isUnknownType(entry: { isBlockDevice(): boolean; isCharacterDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): boolean {
  return !entry.isBlockDevice() && !entry.isCharacterDevice() && !entry.isFIFO() && !entry.isSocket();
}

/** `dir` for a `.git` folder, `file` for a `.git` file; a symlinked `.git` counts as what it points to. */
function gitEntryKind(fs: SyncFs, full: string, isDir: boolean, isLink: boolean): "dir" | "file" | null {
  if (isDir) return "dir";
  if (!isLink) return "file";
  try {
    return fs.statSync(full).isDirectory() ? "dir" : "file";
  } catch {
    return "file"; // dangling: reported by readGitEntry as pointing nowhere
  }
}

function symlinkedFolder(fs: SyncFs, link: string): string | null {
  try {
    const real = fs.realpathSync(link);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

function folderKey(fs: SyncFs, dir: string): string {
  try {
    const st = fs.statSync(dir);
    return `${st.dev}:${st.ino}`;
  } catch {
    return dir;
  }
}

/** Walks up from `start` (inclusive) as git does, looking for a `.git` entry. */
function findEnclosingGitEntry(fs: SyncFs, start: string): Found | null {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const st = fs.statSync(path.join(dir, ".git"));
      return { root: dir, isFile: !st.isDirectory() };
    } catch {
      // not here: keep walking
    }
    if (path.dirname(dir) === dir) return null;
  }
}

function buildRepos(fs: SyncFs, realRoot: string, found: readonly Found[]): Repo[] {
  const unique = new Map<string, Found>();
  for (const f of found) unique.set(f.root, f);
  const roots = new Set(unique.keys());
  const above = new Map<string, string | null>();
  const repos: Repo[] = [];
  for (const f of unique.values()) {
    const entry = readGitEntry(fs, f.root, f.isFile);
    const parent = innermostParent(fs, realRoot, f.root, roots, above);
    let kind: RepoKind = entry.kind;
    if (kind === "main" && parent !== null && isListedSubmodule(fs, parent, f.root)) kind = "submodule";
    repos.push({
      root: f.root,
      gitDir: entry.gitDir,
      commonDir: entry.commonDir,
      kind,
      parent,
      diagnostics: entry.diagnostics,
    });
  }
  repos.sort((a, b) => compareStrings(a.root, b.root));
  return repos;
}

/**
 * Inside the walked folder a parent is one set lookup per path segment; above
 * it, git's own walk up (stat per level), done once and shared by all repos.
 */
function innermostParent(fs: SyncFs, realRoot: string, root: string, roots: ReadonlySet<string>, above: Map<string, string | null>): string | null {
  let dir = path.dirname(root);
  const prefix = realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep;
  const inside = (d: string): boolean => d === realRoot || d.startsWith(prefix);
  for (; inside(dir); dir = path.dirname(dir)) {
    if (roots.has(dir)) return dir;
    if (dir === path.dirname(dir)) return null;
  }
  let answer = above.get(dir);
  if (answer === undefined) {
    answer = findEnclosingGitEntry(fs, dir)?.root ?? null;
    above.set(dir, answer);
  }
  return answer;
}

/** A repo with its own `.git` folder is still a submodule when the parent's `.gitmodules` lists its path. */
function isListedSubmodule(fs: SyncFs, parent: string, root: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(path.join(parent, ".gitmodules"), "utf8");
  } catch {
    return false;
  }
  const rel = path.relative(parent, root).split(path.sep).join("/");
  return text.split("\n").some((line) => {
    const m = /^\s*path\s*=\s*(.+?)\s*$/.exec(line);
    return m?.[1] === rel;
  });
}

/**
 * The repos a command run in `dir` is about: the repo holding it, else the repos under it (4 levels down, never
 * walking up), each with a git folder.
 *
 * @throws {ComityError} when `dir` is missing or not a folder.
 */
export function reposAtOrUnder(dir: string): Repo[] {
  const owner = findOwningRepo(dir);
  return owner !== null ? [owner] : discoverRepos(dir, { maxDepth: 4, walkUp: false }).repos.filter((r) => r.gitDir !== null);
}
