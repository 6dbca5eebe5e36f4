import type { Diagnostic } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { Repo } from "../workspace/repo.js";
import type { ContentHasher, WorktreeFs } from "./content-hasher.js";
import { diffSnapshots } from "./diff-snapshots.js";
import type { PathChange, Snapshot, SnapshotResult } from "./snapshot.js";
import type { SnapshotStore } from "./snapshot-store.js";
import type { StatusIndexOptions } from "./status-index.js";
import { takeSnapshot } from "./take-snapshot.js";

export interface CommandSnapshotOptions {
  readonly store: SnapshotStore;
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly hasher?: ContentHasher;
  readonly fs?: WorktreeFs;
  readonly clock?: () => number;
  readonly configEnv?: GitConfigEnv;
  /** Where git status may keep private copies of large repos' indexes (`privateStatusIndex`). */
  readonly statusIndex?: StatusIndexOptions | null;
  /** Snapshots kept between events (the daemon's, on its change watch): one is taken again only where needed. */
  readonly memo?: SnapshotMemo | null;
}

/**
 * Where a snapshot of a repo may be reused: the daemon keeps the last one of each repo and knows, from its change
 * watch, whether anything under the repo or its git folders changed since that snapshot began.
 */
export interface SnapshotMemo {
  /**
   * A snapshot of the repo, taken under the same git settings (`settings`: the environment git reads its config
   * from), since whose start nothing it read changed; or null.
   */
  kept(repo: Repo, settings: string): SnapshotResult | null;
  /** Called before a snapshot of the repo is taken: the function that keeps its result (null: it cannot be kept). */
  begin(repo: Repo, settings: string): ((result: SnapshotResult) => void) | null;
}

/** What `snapshotBeforeCommand` did for one repo. */
export interface BeforeResult {
  readonly entries: number;
  readonly counts: { readonly hashed: number; readonly fromPrevious: number; readonly fromIndex: number };
  readonly diagnostics: readonly Diagnostic[];
  /** Nested repos and submodules met: each needs its own snapshot. */
  readonly nested: readonly string[];
}

/** The changes a command made in one repo; null when no snapshot was taken before it (or it expired). */
export interface AfterResult {
  readonly changes: readonly PathChange[] | null;
  readonly diagnostics: readonly Diagnostic[];
  readonly nested: readonly string[];
}

function snapshotOptions(o: CommandSnapshotOptions) {
  return {
    ...(o.hasher === undefined ? {} : { hasher: o.hasher }),
    ...(o.fs === undefined ? {} : { fs: o.fs }),
    ...(o.clock === undefined ? {} : { clock: o.clock }),
    ...(o.configEnv === undefined ? {} : { configEnv: o.configEnv }),
    ...(o.statusIndex === undefined ? {} : { statusIndex: o.statusIndex }),
  };
}

/**
 * Before a shell command (`pre_shell`): snapshots the repo, using its latest
 * snapshot as the stat cache, and stores the result under (session, tool
 * use, repo) for the process that runs after the command.
 */
export async function snapshotBeforeCommand(repo: Repo, options: CommandSnapshotOptions): Promise<BeforeResult> {
  const { store } = options;
  const r = await snapshotOf(repo, options, () => store.latest(repo.root));
  // Saved once: the process after the command makes it the repo's latest.
  store.save({ sessionId: options.sessionId, toolUseId: options.toolUseId, repoRoot: repo.root }, r.snapshot);
  return { entries: r.paths, counts: r.counts, diagnostics: r.diagnostics, nested: r.nested };
}

/**
 * After the command (`post_edit` of a shell call): takes the stored snapshot
 * (removing it), snapshots again with it as the stat cache, and returns
 * exactly the paths that changed.
 */
export async function changesAfterCommand(repo: Repo, options: CommandSnapshotOptions): Promise<AfterResult> {
  const { store } = options;
  const before = store.take({ sessionId: options.sessionId, toolUseId: options.toolUseId, repoRoot: repo.root });
  if (before === null) return { changes: null, diagnostics: [], nested: [] };
  const r = await snapshotOf(repo, options, () => before);
  store.saveLatest(r.snapshot);
  const changes = diffSnapshots(before, r.snapshot);
  // What the command changed, and when: how `comity analyze` and a session start tell the repos agents work in.
  let newest = 0;
  const changed = new Set(changes.map((c) => c.path));
  for (const e of r.snapshot.entries) if (e.type !== "dir" && changed.has(e.path)) newest = Math.max(newest, e.mtimeMs);
  // Only deletions: no file left to date them, so the snapshot's own time does.
  if (changes.length > 0 && newest === 0) newest = r.snapshot.startedMs;
  if (newest > (store.agentActivity(repo.root) ?? 0)) store.noteAgentActivity(repo.root, newest);
  return { changes, diagnostics: r.diagnostics, nested: r.nested };
}

/** A snapshot of the repo: the memo's where nothing changed since it was taken, else a new one (then kept). */
async function snapshotOf(repo: Repo, options: CommandSnapshotOptions, previous: () => Snapshot | null): Promise<SnapshotResult> {
  // Git's settings come from its environment (GIT_CONFIG_GLOBAL, HOME...): a snapshot is reused under the same only.
  const where = options.configEnv;
  const settings =
    where === undefined
      ? ""
      : JSON.stringify([
          where.homeDir,
          Object.entries(where.env)
            .filter(([k]) => k.startsWith("GIT_") || k === "XDG_CONFIG_HOME")
            .sort(),
        ]);
  const kept = options.memo?.kept(repo, settings) ?? null;
  if (kept !== null) return kept;
  const keep = options.memo?.begin(repo, settings) ?? null;
  const r = await takeSnapshot(repo, { ...snapshotOptions(options), previous: previous() });
  keep?.(r);
  return r;
}
