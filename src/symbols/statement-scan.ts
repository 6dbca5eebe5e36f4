/**
 * Statements found in untrusted text in one linear pass. A regular expression such as `import\s*\(([^)]*)\)` costs
 * the rest of the text at every `import (` whose `)` never comes, so a file of many such lines (half-written, or made
 * to) costs the square of its length: seconds at 100 KB on a hook's path. Here a statement's end is looked up among
 * the positions of its closing characters, found once, and what a statement spans is read once.
 */

/** The sorted positions in `text` of each character in `chars`. */
export function positionsOf(text: string, chars: string): Int32Array {
  const out: number[] = [];
  // (indexOf a character: the engine's own search, several times faster than a loop over the text here)
  for (const c of chars) for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) out.push(i);
  const positions = Int32Array.from(out);
  return chars.length > 1 ? positions.sort() : positions;
}

/** How many of the sorted `positions` are before `from` (the index of the first at or after it). */
function countBefore(positions: Int32Array, from: number): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((positions[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first of `positions` at or after `from`, or -1. */
export function firstAtOrAfter(positions: Int32Array, from: number): number {
  const i = countBefore(positions, from);
  return i < positions.length ? (positions[i] as number) : -1;
}

/** A Python `from m import a, b as c` or `from m import (a,\n b)`. */
export interface PythonFromImport {
  /** Where `from` starts (after the line's indentation). */
  readonly index: number;
  /** The module as written, relative dots kept (`..pkg.mod`). */
  readonly module: string;
  /** The names' text as written: a parenthesised list with its parentheses, else the rest of the line up to `#` or `;`. */
  readonly names: string;
}

/**
 * Every `from m import ...` of a Python text that starts a line, as Python's own regular expressions used to read
 * them: a parenthesised list runs to its `)` (on any line), anything else to the end of its line, a `#` or a `;`. An
 * unclosed `(` reads as a one-line list. Comments and strings are not told apart here: a caller that cares masks them.
 */
export function pythonFromImports(text: string): PythonFromImport[] {
  const out: PythonFromImport[] = [];
  let closers: Int32Array | null = null;
  const head = /^[ \t]*(from)[ \t]+([.\w]+)[ \t]+import(?=[ \t(])[ \t]*/gm;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    const index = m.index + m[0].indexOf("from");
    const at = m.index + m[0].length;
    let names: string | null = null;
    if (text[at] === "(") {
      closers ??= positionsOf(text, ")");
      const close = firstAtOrAfter(closers, at);
      if (close >= 0) {
        names = text.slice(at, close + 1);
        head.lastIndex = close + 1;
      }
    }
    if (names === null) {
      const line = /[^\n#;]*/y;
      line.lastIndex = at;
      names = line.exec(text)?.[0] ?? "";
      if (names === "") continue;
      head.lastIndex = at + names.length;
    }
    out.push({ index, module: m[2] ?? "", names });
  }
  return out;
}

/** An ECMAScript `import ... from "m"` or `export ... from "m"`. */
export interface EsFromStatement {
  /** Where `import` or `export` starts. */
  readonly index: number;
  readonly keyword: "import" | "export";
  /** `import type ...`: the clause below is what follows `type`. */
  readonly typeOnly: boolean;
  /** What stands between the keyword (and `type`) and `from`, trimmed: `X, { a, b as c }`, `* as ns`. */
  readonly clause: string;
  /** The module specifier, without its quotes. */
  readonly specifier: string;
  /** Where the specifier's opening quote is. */
  readonly quote: number;
}

/**
 * Every `import|export <clause> from "<specifier>"` of a script's text, the clause made only of the characters
 * `clauseChars` allows (it never holds a quote or a `;`): a keyword whose clause holds another character is no such
 * statement. Each statement is read once, whatever the text: the clause of every keyword before a quote ends there, so
 * what the text before that quote allows is found once for all of them. Comments and strings are not told apart.
 */
export function esFromStatements(text: string, clauseChars: RegExp = /[^'";]/): EsFromStatement[] {
  const out: EsFromStatement[] = [];
  const stops = positionsOf(text, `'";`);
  // Where the clauses that end at a stop may start: after the stop before it.
  const stopBefore = (stop: number): number => {
    const i = countBefore(stops, stop);
    return i > 0 ? (stops[i - 1] as number) + 1 : 0;
  };
  // Per quote that may end a clause: where its `from` starts (-1: none), and the last character before that `from`
  // (back to the previous stop) a clause may not hold.
  const ends = new Map<number, { from: number; lastBad: number }>();
  const endOf = (stop: number): { from: number; lastBad: number } => {
    const known = ends.get(stop);
    if (known !== undefined) return known;
    const floor = stopBefore(stop);
    let i = stop - 1;
    while (i >= floor && /\s/.test(text[i] as string)) i--;
    const from = i - 3;
    const found = from >= floor && text.startsWith("from", from) && (from === 0 || !/[\w$]/.test(text[from - 1] as string));
    let lastBad = -1;
    if (found) {
      for (let j = from - 1; j >= floor; j--)
        if (!clauseChars.test(text[j] as string)) {
          lastBad = j;
          break;
        }
    }
    const end = { from: found ? from : -1, lastBad };
    ends.set(stop, end);
    return end;
  };
  const head = /\b(import|export)(?:\s+(type)\b)?(?=[\s{*])/g;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    const start = m.index + m[0].length;
    const stop = firstAtOrAfter(stops, start);
    if (stop < 0) break;
    const q = text[stop];
    if (q === ";") continue;
    const { from, lastBad } = endOf(stop);
    if (from < start || lastBad >= start) continue;
    const close = firstAtOrAfter(stops, stop + 1);
    if (close < 0 || text[close] !== q) continue;
    const clause = text.slice(start, from).trim();
    // (`import type from "m"` imports a default named `type`)
    const typeOnly = m[2] !== undefined && clause !== "";
    out.push({
      index: m.index,
      keyword: m[1] === "export" ? "export" : "import",
      typeOnly,
      clause: m[2] !== undefined && !typeOnly ? "type" : clause,
      specifier: text.slice(stop + 1, close),
      quote: stop,
    });
    head.lastIndex = close + 1;
  }
  return out;
}
