import type { Diagnostic } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { Repo } from "../workspace/repo.js";
import type { ContentHasher, WorktreeFs } from "./content-hasher.js";
import { diffSnapshots } from "./diff-snapshots.js";
import type { PathChange } from "./snapshot.js";
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
  const previous = store.latest(repo.root);
  const r = await takeSnapshot(repo, { ...snapshotOptions(options), previous });
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
  const r = await takeSnapshot(repo, { ...snapshotOptions(options), previous: before });
  store.saveLatest(r.snapshot);
  return { changes: diffSnapshots(before, r.snapshot), diagnostics: r.diagnostics, nested: r.nested };
}
