import { compareStrings } from "../errors/diagnostic.js";

/** One repo's briefing: markdown from the coordination API or from the local analysis. */
export interface RepoBriefing {
  /** How the repo is named in its section's heading. */
  readonly repo: string;
  readonly markdown: string;
  /** Facts of this repo alone (the engine's local briefing), after `markdown`: never lifted as a common notice, even when every repo says the same ("- No uncommitted changes"). */
  readonly facts?: string;
  /** When the repo was last active (ms since the epoch): the most active come first. */
  readonly activityMs: number;
}

export interface MergeOptions {
  /** Default 8. */
  readonly maxRepos?: number;
  /** Default 6,000 characters (code points). */
  readonly maxChars?: number;
}

const FENCE = /^\s*(```|~~~)/;

/** Length in characters (code points), as hosts count them: a surrogate pair is one. */
export function charLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `max` characters of `s`, never splitting a surrogate pair. */
function takeChars(s: string, max: number): string {
  let n = 0;
  let i = 0;
  while (i < s.length && n < max) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    n++;
  }
  return s.slice(0, i);
}

/**
 * Merges per-repo briefings into the one text a host injects at session
 * start: the `maxRepos` most active repos, most active first (ties by name),
 * one section each under `## <repo>`; a line that every section shares (a
 * common notice) is said once, first; the character budget is shared fairly
 * (a short section gives what it does not use to the longer ones); each
 * section is cut at a line boundary with a marker saying how much was left
 * out, and a code fence left open by a cut is closed. Empty briefings are
 * dropped. Never longer than `maxChars`; no surrogate pair is split. Pure and
 * deterministic: the same briefings in any order give the same bytes.
 *
 * @example
 * mergeBriefings([{ repo: "acme/api", markdown: "- 2 sessions active", activityMs: 2 }], { maxChars: 6000 });
 * // "## acme/api\n- 2 sessions active\n"
 */
export function mergeBriefings(briefings: readonly RepoBriefing[], options: MergeOptions = {}): string {
  const maxRepos = options.maxRepos ?? 8;
  const maxChars = options.maxChars ?? 6000;
  const chosen = briefings
    .map((b) => ({ ...b, lines: toLines(b.markdown), own: toLines(b.facts ?? "") }))
    .filter((b) => b.lines.length > 0 || b.own.length > 0)
    .sort((a, b) => b.activityMs - a.activityMs || compareStrings(a.repo, b.repo) || compareStrings(a.markdown, b.markdown) || compareStrings(a.facts ?? "", b.facts ?? ""))
    .slice(0, Math.max(0, maxRepos));
  if (chosen.length === 0 || maxChars <= 0) return "";

  // Lines that two or more sections share are said once, before the sections.
  const shared = sharedLines(
    chosen.map((c) => [...c.lines, ...c.own]),
    chosen.map((c) => c.lines),
  );
  const sections: Array<{ heading: string | null; lines: string[] }> = [];
  if (shared.length > 0) sections.push({ heading: null, lines: shared });
  const sharedSet = new Set(shared);
  for (const c of chosen) {
    const lines = [...c.lines.filter((l) => !sharedSet.has(l.trim())), ...c.own];
    sections.push({ heading: `## ${oneLine(c.repo)}`, lines });
  }

  // Drop the least active sections while even their headings and first lines cannot fit.
  const minimum = (s: { heading: string | null; lines: string[] }): number => (s.heading === null ? 0 : charLength(s.heading) + 1) + Math.min(charLength(s.lines[0] ?? "") + 1, 80);
  while (sections.length > 1 && sections.reduce((n, s) => n + minimum(s) + 1, 0) > maxChars) sections.pop();

  const fixed = sections.reduce((n, s) => n + (s.heading === null ? 0 : charLength(s.heading) + 1), 0) + (sections.length - 1); // headings and blank lines between sections
  const wants = sections.map((s) => s.lines.reduce((n, l) => n + charLength(l) + 1, 0));
  const budgets = shareFairly(wants, Math.max(0, maxChars - fixed));
  const parts = sections.map((s, i) => {
    const body = cutLines(s.lines, budgets[i] ?? 0);
    return s.heading === null ? body : `${s.heading}\n${body}`;
  });
  const text = parts.join("\n");
  // The sums above are exact, so this never cuts; it is the guarantee.
  return charLength(text) <= maxChars ? text : takeChars(text, maxChars);
}

function toLines(markdown: string): string[] {
  const lines = markdown
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines;
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ").trim() || "(unnamed repo)";
}

/**
 * Non-empty lines (not fences, not headings) present in every section (two
 * or more): a common notice. A line only some sections share is a fact about
 * those repos and stays in each.
 */
function sharedLines(sections: readonly string[][], liftable: readonly string[][]): string[] {
  if (sections.length < 2) return [];
  const shared = linesInEvery(liftable);
  // Identical facts of every repo ("- No uncommitted changes") are not a notice: lifting them would leave a section
  // with nothing of its own. A common notice is lifted only when every section keeps a line of its own.
  const set = new Set(shared);
  const emptied = sections.some((lines) => lines.every((l) => l.trim() === "" || set.has(l.trim()) || l.trim().startsWith("#")));
  return emptied ? [] : shared;
}

function linesInEvery(sections: readonly string[][]): string[] {
  const count = new Map<string, number>();
  const order: string[] = [];
  for (const lines of sections) {
    for (const l of new Set(lines.map((x) => x.trim()))) {
      if (l === "" || FENCE.test(l) || l.startsWith("#")) continue;
      if (!count.has(l)) order.push(l);
      count.set(l, (count.get(l) ?? 0) + 1);
    }
  }
  // Lines inside code fences are code, not notices: leave them where they are.
  const inFence = new Set<string>();
  for (const lines of sections) {
    let open = false;
    for (const l of lines) {
      if (FENCE.test(l)) open = !open;
      else if (open) inFence.add(l.trim());
    }
  }
  return order.filter((l) => (count.get(l) ?? 0) === sections.length && !inFence.has(l));
}

/** Water-filling: every section gets an equal share; what a short one leaves goes to the longer ones. */
export function shareFairly(wants: readonly number[], total: number): number[] {
  const out = wants.map(() => 0);
  let left = total;
  let open = wants.map((_, i) => i).sort((a, b) => (wants[a] ?? 0) - (wants[b] ?? 0) || a - b);
  while (open.length > 0 && left > 0) {
    const share = Math.floor(left / open.length);
    const first = open[0] as number;
    if ((wants[first] ?? 0) <= share) {
      out[first] = wants[first] ?? 0;
      left -= out[first] as number;
      open = open.slice(1);
      continue;
    }
    // Everyone left wants more than the share: split what is left, the remainder to the most active.
    const extra = left - share * open.length;
    [...open]
      .sort((a, b) => a - b)
      .forEach((i, k) => {
        out[i] = share + (k < extra ? 1 : 0);
      });
    left = 0;
  }
  return out;
}

/**
 * Lines that fit in `budget` characters (each with its newline), cut at a
 * line boundary: a marker says how much was left out, and a code fence left
 * open is closed. At least part of the first line is kept when anything fits.
 */
function cutLines(lines: readonly string[], budget: number): string {
  const all = lines.reduce((n, l) => n + charLength(l) + 1, 0);
  if (all <= budget) return lines.map((l) => `${l}\n`).join("");
  const marker = (n: number, chars: number): string => `… (${n} more line${n === 1 ? "" : "s"}, ${chars} characters, left out)`;
  const kept: string[] = [];
  let used = 0;
  let open = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const opens: boolean = FENCE.test(line) ? !open : open;
    const restLines = lines.length - i - 1;
    const restChars = lines.slice(i + 1).reduce((n, l) => n + charLength(l) + 1, 0);
    // What must still fit after this line: the marker for the rest, and a closing fence if one is open.
    const after = charLength(marker(restLines, restChars)) + 1 + (opens ? 4 : 0);
    if (used + charLength(line) + 1 + after > budget) break;
    kept.push(line);
    used += charLength(line) + 1;
    open = opens;
  }
  if (kept.length === 0 && lines.length > 0) {
    // Not even the first line fits whole: keep its start.
    const first = lines[0] as string;
    const restChars = all - charLength(first) - 1;
    const tail = `\n${marker(lines.length - 1, restChars)}`;
    const room = budget - charLength(tail) - 2;
    if (room > 0 && !FENCE.test(first)) return `${takeChars(first, room)}…${tail}\n`;
    return "";
  }
  const leftLines = lines.length - kept.length;
  const leftChars = all - used;
  return `${kept.map((l) => `${l}\n`).join("")}${open ? "```\n" : ""}${marker(leftLines, leftChars)}\n`;
}
