/**
 * Line ranges of a file's base (its blob at HEAD): `[first, last]`, 1-based and inclusive; an insertion after line n
 * is the empty range `[n + 1, n]`. What `EvaluateRequest.edits` carries: where an edit is, never what it says.
 */
export type LineRange = readonly [number, number];

/** Ranges sorted, with overlapping or touching ones joined (an insertion next to a changed line is one place). */
export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * Whether two sets of base line ranges would conflict in a three-way merge: some range of one overlaps or touches
 * (is next to) one of the other, as `git merge` then leaves a conflict. Two insertions at one place touch. Pure.
 */
export function rangesMeet(a: readonly LineRange[], b: readonly LineRange[]): boolean {
  for (const [a1, b1] of a) for (const [a2, b2] of b) if (a1 <= b2 + 1 && a2 <= b1 + 1) return true;
  return false;
}

/** Ranges as people read them: `12`, `10-14`, `after 7`. */
export function describeRanges(ranges: readonly LineRange[], max = 4): string {
  const shown = ranges.slice(0, max).map(([a, b]) => (b < a ? `after ${b}` : a === b ? `${a}` : `${a}-${b}`));
  return ranges.length > max ? `${shown.join(", ")} and ${ranges.length - max} more` : shown.join(", ");
}
