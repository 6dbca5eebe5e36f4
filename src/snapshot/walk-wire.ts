import type { Diagnostic } from "../errors/diagnostic.js";
import type { EntryType } from "./snapshot.js";
import type { StatEntry } from "./stat-entry.js";
import type { WalkResult } from "./walk-worktree.js";

/**
 * What a walk worker starts with. It reads the git index itself, at start,
 * in parallel with the main thread reading it: cheaper than sending 100,000
 * tracked paths across.
 */
export interface WalkWorkerData {
  readonly root: string;
  readonly ignoreCase: boolean;
  /** The git index file, or null when the repo has none. */
  readonly indexFile: string | null;
}

/** A message to a walk worker: a batch of folders to walk. */
export interface WorkerMessage {
  readonly tasks: readonly WireTask[];
}

/** A folder to walk, with its ignore rules as text (matchers are rebuilt in the worker). */
export interface WireTask {
  readonly abs: string;
  readonly rel: string;
  readonly insideIgnored: boolean;
  readonly levels: ReadonlyArray<{ readonly base: string; readonly text: string }>;
}

/** A walk result as a few transferable arrays instead of 100,000 cloned objects. */
export interface WireResult {
  readonly paths: string;
  /** Per entry: type index (2 bits) and the executable bit (4). */
  readonly flags: Uint8Array;
  /** Per entry: size, mtimeMs, ctimeMs, ino. */
  readonly stats: Float64Array;
  readonly sawAttributes: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly nested: readonly string[];
}

const TYPES: readonly EntryType[] = ["file", "symlink", "dir"];

export function encodeWalkResult(r: WalkResult): WireResult {
  const n = r.entries.length;
  const flags = new Uint8Array(n);
  const stats = new Float64Array(n * 4);
  const paths: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const e = r.entries[i] as StatEntry;
    paths[i] = e.path;
    flags[i] = TYPES.indexOf(e.type) | (e.executable ? 4 : 0);
    stats[i * 4] = e.size;
    stats[i * 4 + 1] = e.mtimeMs;
    stats[i * 4 + 2] = e.ctimeMs;
    stats[i * 4 + 3] = e.ino;
  }
  return { paths: paths.join("\0"), flags, stats, sawAttributes: r.sawAttributes, diagnostics: r.diagnostics, nested: r.nested };
}

export function decodeWalkResult(w: WireResult, into: StatEntry[]): void {
  const n = w.flags.length;
  if (n === 0) return;
  const paths = w.paths.split("\0");
  for (let i = 0; i < n; i++) {
    const f = w.flags[i] ?? 0;
    into.push({
      path: paths[i] ?? "",
      type: TYPES[f & 3] ?? "file",
      executable: (f & 4) !== 0,
      size: w.stats[i * 4] ?? 0,
      mtimeMs: w.stats[i * 4 + 1] ?? 0,
      ctimeMs: w.stats[i * 4 + 2] ?? 0,
      ino: w.stats[i * 4 + 3] ?? 0,
      hash: null,
      racy: false,
    });
  }
}
