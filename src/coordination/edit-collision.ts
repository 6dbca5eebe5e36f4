import { rangesMeet, type LineRange } from "./line-ranges.js";

/** Where one side edits a file: its base blob (null: a new file) and its lines of that base (null: not known). */
export interface EditPlace {
  readonly base: string | null;
  readonly ranges: readonly LineRange[] | null;
}

/**
 * What two families editing one file is (`docs/coordination.md`, "Collisions"):
 * - `edit_conflict` when their line ranges of the same base overlap or touch, as `git merge` would conflict, or
 *   when either side's lines are not known (a whole-file write, a shell command, a new file): told before the edit;
 * - `file_overlap` when both are known and apart on the same base, or when their bases differ (two checkouts at
 *   different commits, whose lines cannot be compared): told as context, not denied.
 * Pure.
 */
export function editCollision(mine: EditPlace | undefined, theirs: EditPlace): "edit_conflict" | "file_overlap" {
  if (mine === undefined || mine.ranges === null || theirs.ranges === null || mine.base === null || theirs.base === null) return "edit_conflict";
  if (mine.base !== theirs.base) return "file_overlap";
  return rangesMeet(mine.ranges, theirs.ranges) ? "edit_conflict" : "file_overlap";
}
