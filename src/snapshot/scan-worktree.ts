import { availableParallelism } from "node:os";
import * as path from "node:path";
import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { nodeSyncFs } from "../fs/sync-fs.js";
import { gitConfigFiles, loadGitConfig, type GitConfigEnv } from "../git/load-git-config.js";
import type { GitConfigEntry } from "../git/parse-git-config.js";
import { parseGitIndex, type GitIndex, type IndexEntry } from "../git/read-git-index.js";
import type { Repo } from "../workspace/repo.js";
import { nodeWorktreeFs, type WorktreeFs } from "./content-hasher.js";
import { configIgnoreCase, excludesFilePath, ignoreLevel, type IgnoreLevel } from "./ignore-rules.js";
import { ancestorsOf } from "./ancestors-of.js";
import { startWalkPool, walkParallel } from "./walk-parallel.js";
import type { StatEntry } from "./stat-entry.js";
import { walkWorktree, type WalkInput } from "./walk-worktree.js";
import { storesFilesAsTheyAre } from "./stores-files-as-they-are.js";

export interface WorktreeScan {
  /** Every path git can see, unsorted, with stat data. */
  readonly entries: readonly StatEntry[];
  /** The index, when it could be read. */
  readonly index: GitIndex | null;
  /**
   * Index entries whose blob id may stand for the working file's content
   * when the stat matches: empty when filters, eol conversion, a split index
   * or SHA-256 objects make that unsafe; racily clean entries left out.
   */
  trusted(path: string): IndexEntry | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** Absolute roots of nested repos and submodules inside the work tree, sorted. */
  readonly nested: readonly string[];
}

/**
 * Lists a work tree with git's view of what is tracked and ignored: reads the
 * repo's config, its index (v2-v4), and the ignore rules, then walks.
 */
export async function scanWorktree(repo: Repo, options: { fs: WorktreeFs; configEnv: GitConfigEnv; workers?: number | "auto"; expectedPaths?: number }): Promise<WorktreeScan> {
  const { fs, configEnv } = options;
  const diagnostics: Diagnostic[] = [];
  const config = repo.commonDir === null ? [] : loadGitConfig(nodeSyncFs, configEnv, gitConfigFiles(configEnv, repo.commonDir, repo.gitDir), { gitDir: repo.gitDir }).entries;
  const ignoreCase = configIgnoreCase(config);
  // Decide on helper threads before reading the index, so that their start-up overlaps it.
  const helpers = helperCount(options.workers ?? "auto", options.expectedPaths ?? 0, indexSize(fs, repo), fs);
  const pool = helpers > 0 ? startWalkPool({ root: repo.root, ignoreCase, indexFile: repo.gitDir === null ? null : path.join(repo.gitDir, "index") }, helpers) : null;
  try {
    const indexFile = readIndex(fs, repo, diagnostics);
    const index = indexFile?.index ?? null;
    const byPath = new Map<string, IndexEntry>();
    const gitlinks = new Set<string>();
    for (const e of index?.entries ?? []) {
      if (e.mode === 0o160000) gitlinks.add(e.path);
      else byPath.set(e.path, e);
    }
    let trackedDirs: Set<string> | null = null;
    const input: WalkInput = {
      fs,
      root: repo.root,
      baseLevels: baseIgnoreLevels(fs, repo, config, configEnv, ignoreCase),
      ignoreCase,
      tracked: () => byPath,
      trackedDirs: () => (trackedDirs ??= ancestorsOf(byPath.keys())),
      gitlinks,
    };
    const walk = pool === null ? walkWorktree(input) : await walkParallel(input, pool);
    diagnostics.push(...walk.diagnostics);
    // Racily clean entries (mtime not older than the index file) cannot vouch for content.
    const cutoff = indexFile !== null && indexUsable(indexFile.index, config, walk.sawAttributes, repo) ? indexFile.mtimeMs : -Infinity;
    const trusted = (p: string): IndexEntry | undefined => {
      const e = byPath.get(p);
      return e !== undefined && e.mtimeMs < cutoff ? e : undefined;
    };
    return { entries: walk.entries, index, trusted, diagnostics, nested: walk.nested.map((rel) => `${repo.root}/${rel}`).sort(compareStrings) };
  } finally {
    await pool?.close();
  }
}

/** git's own stat check (`ie_match_stat`): times to the nanosecond, inode and size as git truncates them. */
export function indexMatches(idx: IndexEntry, s: StatEntry): boolean {
  const isFile = (idx.mode & 0o170000) === 0o100000;
  return (
    isFile && !idx.skipWorktree && ((idx.mode & 0o100) !== 0) === s.executable && idx.size === s.size % 2 ** 32 && idx.ino === s.ino % 2 ** 32 && idx.mtimeMs === s.mtimeMs && idx.ctimeMs === s.ctimeMs
  );
}

/** Below this many paths a worker's start-up (tens of ms) costs more than it saves. */
export const PARALLEL_WALK_THRESHOLD = 20_000;

/**
 * Helper threads for a walk (this thread walks too): none for small trees,
 * one less than the cores for large ones; never with an injected file
 * system (helpers use the real one). The index's size tells the tree's
 * size before it is read: about 110 bytes a path.
 */
function helperCount(requested: number | "auto", expectedPaths: number, indexBytes: number, fs: WorktreeFs): number {
  if (fs !== nodeWorktreeFs) return 0;
  if (requested !== "auto") return requested;
  const paths = Math.max(expectedPaths, indexBytes / 110);
  return paths >= PARALLEL_WALK_THRESHOLD ? Math.min(availableParallelism() - 1, 7) : 0;
}

function indexSize(fs: WorktreeFs, repo: Repo): number {
  try {
    return repo.gitDir === null ? 0 : fs.lstatSync(path.join(repo.gitDir, "index")).size;
  } catch {
    return 0;
  }
}

function readIndex(fs: WorktreeFs, repo: Repo, diagnostics: Diagnostic[]): { index: GitIndex; mtimeMs: number } | null {
  if (repo.gitDir === null) return null;
  const file = path.join(repo.gitDir, "index");
  let data: Buffer;
  let mtimeMs: number;
  try {
    mtimeMs = fs.lstatSync(file).mtimeMs;
    data = fs.readFileSync(file);
  } catch {
    return null; // no index yet: a new repo
  }
  const index = parseGitIndex(data);
  if (index === null) diagnostics.push(diagnostic("unreadable_index", "info", ".git/index", "git index not understood: every file is hashed"));
  return index === null ? null : { index, mtimeMs };
}

/**
 * An index blob id stands for a file's content only when git stores files
 * as they are: no eol conversion, no filters (`.gitattributes`), SHA-1
 * objects, and an index that is whole (not split).
 */
function indexUsable(index: GitIndex, config: readonly GitConfigEntry[], sawAttributes: boolean, repo: Repo): boolean {
  return !index.split && !sawAttributes && storesFilesAsTheyAre(config, repo);
}

function baseIgnoreLevels(fs: WorktreeFs, repo: Repo, config: readonly GitConfigEntry[], where: GitConfigEnv, ignoreCase: boolean): IgnoreLevel[] {
  const levels: IgnoreLevel[] = [];
  const read = (file: string): string | null => {
    try {
      return fs.readFileSync(file).toString("utf8");
    } catch {
      return null;
    }
  };
  const global = read(excludesFilePath(config, where.env, where.homeDir));
  if (global !== null) levels.push(ignoreLevel("", global, ignoreCase));
  const exclude = repo.commonDir === null ? null : read(path.join(repo.commonDir, "info", "exclude"));
  if (exclude !== null) levels.push(ignoreLevel("", exclude, ignoreCase));
  return levels;
}
