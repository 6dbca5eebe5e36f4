import { compareStrings } from "../errors/diagnostic.js";
import { XXH64_HEX_LENGTH, type SnapshotEntry } from "./snapshot.js";
import type { StatEntry } from "./stat-entry.js";

/**
 * A file modified this close to (or after) the snapshot's start cannot be
 * trusted by its stat: timestamps are coarse (a kernel tick, a second on some
 * file systems), so a same-size rewrite within one tick keeps the same mtime.
 */
export const DEFAULT_RACY_MARGIN_MS = 1000;

/** The entry of `path` in entries sorted by path (a binary search), or undefined. */
export function entryAt(entries: readonly SnapshotEntry[], p: string): SnapshotEntry | undefined {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = entries[mid] as SnapshotEntry;
    const c = compareStrings(e.path, p);
    if (c === 0) return e;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/**
 * The git blob id an earlier entry recorded for the same file, when its stat
 * vouches for it: same type, size, times, inode and mode, and neither racy
 * (modified too close to when it was read). Otherwise undefined: read it.
 */
export function vouchedBlobId(prev: SnapshotEntry | undefined, s: StatEntry): string | undefined {
  if (prev === undefined || prev.type !== s.type || prev.hash === null || prev.hash.length === XXH64_HEX_LENGTH || prev.racy || s.racy) return undefined;
  return sameStat(prev, s) ? prev.hash : undefined;
}

/** Same size, times, inode and executable bit: the stat that vouches for unchanged content. */
export function sameStat(a: SnapshotEntry, b: SnapshotEntry): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.executable === b.executable;
}
