import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import type { SnapshotEntry } from "./snapshot.js";

// The entry of one path as a walk or git status finds it, apart from the walk itself: a snapshot relative to the
// index and a worktree hash build entries without loading the walk (or its ignore rules).

/**
 * A snapshot entry while it is being built: the walk fills in the stat data,
 * the snapshot then sets `hash` and `racy` (one object per path, so 100,000
 * paths allocate 100,000 objects).
 */
export type StatEntry = { -readonly [K in keyof SnapshotEntry]: SnapshotEntry[K] };

/** A file's or symlink's entry from its lstat, not yet hashed. */
export function statEntry(rel: string, type: "file" | "symlink", st: { mode: number; size: number; mtimeMs: number; ctimeMs: number; ino: number }): StatEntry {
  return {
    path: rel,
    type,
    executable: type === "file" && (st.mode & 0o100) !== 0,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    ino: st.ino,
    hash: null,
    racy: false,
  };
}

/** The diagnostic for a name Node decoded as UTF-8 though it is not: it cannot be opened again by that name. */
export function nonUtf8Name(rel: string): Diagnostic {
  return diagnostic("non_utf8_name", "warning", rel, "file name is not valid UTF-8: left out");
}
