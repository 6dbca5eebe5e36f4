import type { Diagnostic } from "../errors/diagnostic.js";

/** What a path is in the working tree. Folders are kept only so that a file turning into a folder is seen. */
export type EntryType = "file" | "symlink" | "dir";

/**
 * One path of a snapshot. Stat data (`size`, `mtimeMs`, `ctimeMs`, `ino`)
 * makes the snapshot a stat cache for the next one; `hash` identifies the
 * content: 16 hex digits of xxhash64, or a 40-hex git blob id taken from a
 * clean index entry (a symlink's content is its target). Folders have no hash.
 */
export interface SnapshotEntry {
  readonly path: string;
  readonly type: EntryType;
  /** The executable bit (user `x`), as git tracks it. */
  readonly executable: boolean;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly hash: string | null;
  /**
   * Modified at or after the snapshot began (git's racy-entry rule): its
   * stat cannot vouch for its content, so the next snapshot re-hashes it.
   */
  readonly racy: boolean;
}

/** The working tree of one repo at one moment. */
export interface Snapshot {
  readonly version: 1;
  /** Absolute real path of the repo root the snapshot was taken in. */
  readonly root: string;
  /** When the walk began (ms since the epoch, from the injected clock). */
  readonly startedMs: number;
  /**
   * Sorted by path (UTF-16 code units). Every path git can see, or, with a
   * `base`, only the paths that differ from the base's index.
   */
  readonly entries: readonly SnapshotEntry[];
  /** Present when the snapshot is taken relative to the git index (see `IndexBase`). */
  readonly base?: IndexBase;
}

/**
 * A snapshot relative to the git index: `entries` holds only what `git
 * status` lists (tracked paths whose working file differs from the index,
 * untracked paths), each hashed as a git blob id; every other tracked path
 * is present with the index's content and mode. The index's bytes are kept,
 * so the snapshot can still be compared with one taken after the index
 * changed (a `git add`, a checkout).
 */
export interface IndexBase {
  /** The index file's trailing checksum (hex); "" for a repo without an index. */
  readonly checksum: string;
  /** The index file as it was (empty for a repo without one). */
  readonly index: Uint8Array;
  /** Where those bytes were read from: a store may link that file rather than copy the bytes. */
  readonly file?: string;
  /** The listed tracked paths with their index mode and blob id, sorted by path. */
  readonly indexed: readonly IndexedPath[];
  /** Tracked paths with nothing at all in the working tree, sorted. */
  readonly missing: readonly string[];
}

export interface IndexedPath {
  readonly path: string;
  readonly mode: number;
  readonly oid: string;
}

/** How one path changed between two snapshots. */
export type ChangeKind = "added" | "modified" | "deleted" | "type_changed" | "mode_changed";

export interface PathChange {
  readonly path: string;
  readonly change: ChangeKind;
}

/** Length of an xxhash64 hex digest; a git blob id is 40. */
export const XXH64_HEX_LENGTH = 16;

/** What taking a snapshot gives: the snapshot, and what it found and how. */
export interface SnapshotResult {
  readonly snapshot: Snapshot;
  readonly diagnostics: readonly Diagnostic[];
  /** Absolute roots of the nested repos and submodules the walk stopped at (snapshot them separately). */
  readonly nested: readonly string[];
  /** Where each file's content hash came from: what a stat cache saves is measured here. */
  readonly counts: { readonly hashed: number; readonly fromPrevious: number; readonly fromIndex: number };
  /** Files and symlinks the snapshot stands for (listed or, relative to the index, implied). */
  readonly paths: number;
}
