import { structuredPatch } from "diff";
import { mergeRanges, type LineRange } from "../coordination/line-ranges.js";

interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
}

/** The hunks between two texts, no context. */
function hunks(before: string, after: string): Hunk[] {
  return structuredPatch("a", "b", before, after, "", "", { context: 0 }).hunks;
}

/** A hunk's lines in the old text, as a range (`[n + 1, n]` for an insertion after line n). */
function oldRange(h: Hunk): LineRange {
  // (jsdiff gives an insertion's oldStart as the line it comes before)
  return h.oldLines === 0 ? [h.oldStart, h.oldStart - 1] : [h.oldStart, h.oldStart + h.oldLines - 1];
}

/**
 * The base's lines a file's current text changed: each hunk between them, in the base's lines. Pure.
 *
 * @example
 * changedRanges("a\nb\nc\n", "a\nB\nc\nd\n"); // [[2, 2], [4, 3]]
 */
export function changedRanges(base: string, current: string): LineRange[] {
  return hunks(base, current).map(oldRange);
}

/**
 * Where edits of the current text will land, in the base's lines: each `old` text (Edit's `old_string`, MultiEdit's
 * each, apply_patch's removed lines) found in the current text, its lines mapped back to the base through the
 * session's own changes (a line it changed maps to the base lines that change replaced). Null when any one cannot be
 * placed (not found, or empty): then where the edit lands is not known. `all`: every occurrence (`replace_all`);
 * `within`: the lines inside `old` (0-based) that the edit changes, when `old` holds context too.
 */
export function targetRanges(
  base: string,
  current: string,
  edits: ReadonlyArray<{ readonly old: string; readonly all?: boolean; readonly within?: ReadonlyArray<readonly [number, number]> }>,
): LineRange[] | null {
  const own = base === current ? [] : hunks(base, current);
  const out: LineRange[] = [];
  for (const e of edits) {
    if (e.old === "") return null;
    let at = current.indexOf(e.old);
    if (at < 0) return null;
    for (; at >= 0; at = e.all === true ? current.indexOf(e.old, at + e.old.length) : -1) {
      const first = lineAt(current, at);
      // (an apply_patch hunk's old lines include context: only the lines it removes, or where it inserts, count)
      const spans = e.within ?? [[0, lineAt(current, at + e.old.length - 1) - first]];
      for (const [from, to] of spans) out.push([toBase(own, first + from, "start"), to < from ? toBase(own, first + from, "start") - 1 : toBase(own, first + to, "end")]);
    }
  }
  return mergeRanges(out);
}

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** A current line's place in the base: shifted past the session's own hunks, or the base lines a hunk replaced. */
function toBase(own: readonly Hunk[], line: number, side: "start" | "end"): number {
  let shift = 0;
  for (const h of own) {
    if (line < h.newStart) break;
    if (h.newLines > 0 && line <= h.newStart + h.newLines - 1) {
      const [first, last] = oldRange(h);
      return side === "start" ? first : last;
    }
    shift += h.newLines - h.oldLines;
  }
  return line - shift;
}
