/**
 * Git's wildmatch, as its conditional includes use it (`includeIf "gitdir:..."`, `onbranch:`, `hasconfig:`): `?`, `*`,
 * `[...]` (with `!` or `^` to negate), `\` escaping the next character, and with `pathname` (WM_PATHNAME) `*` and `?`
 * stop at `/` while `**` between slashes (or at either end) spans folders. `caseFold` is WM_CASEFOLD. Pure.
 *
 * Matched by walking every pattern position at once over the text (time in pattern length × text length), not by a
 * backtracking regular expression: a pattern such as `*a*a*a*a*a*a*a*a*a*a*b` in someone's git config would
 * otherwise hold a hook's thread for minutes.
 */
export function wildmatch(pattern: string, text: string, options: { readonly pathname?: boolean; readonly caseFold?: boolean } = {}): boolean {
  const fold = options.caseFold === true;
  const tokens = tokenize(fold ? pattern.toLowerCase() : pattern, options.pathname === true);
  const subject = fold ? text.toLowerCase() : text;
  const end = tokens.length;
  // The positions reachable without reading a character from `k`: a star may match nothing; `**/` may be skipped with
  // its slash, but only where it is entered (once it has taken characters, its slash must follow).
  const close = (states: Set<number>, k: number, entering = true): void => {
    const t = tokens[k];
    if (entering && t?.kind === "star" && t.skipTo !== null) close(states, t.skipTo);
    if (states.has(k)) return;
    states.add(k);
    if (t?.kind === "star") close(states, k + 1);
  };
  let states = new Set<number>();
  close(states, 0);
  for (const c of subject) {
    const next = new Set<number>();
    for (const k of states) {
      const t = tokens[k];
      if (t === undefined || !t.accepts(c)) continue;
      // A star stays where it is after a character; every other token moves on.
      if (t.kind === "star") close(next, k, false);
      else close(next, k + 1);
    }
    if (next.size === 0) return false;
    states = next;
  }
  return states.has(end);
}

/** One step of a pattern: a star (which may repeat, and for `**\/` may be skipped with its slash), or one character. */
type Token = { readonly kind: "star"; readonly accepts: (c: string) => boolean; readonly skipTo: number | null } | { readonly kind: "one"; readonly accepts: (c: string) => boolean };

function tokenize(pattern: string, pathname: boolean): Token[] {
  const tokens: Token[] = [];
  const any = (c: string): boolean => !pathname || c !== "/";
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === "\\") {
      const literal = chars[++i] ?? "\\";
      tokens.push({ kind: "one", accepts: (x) => x === literal });
    } else if (c === "*") {
      let stars = 1;
      while (chars[i + 1] === "*") {
        stars++;
        i++;
      }
      const before = i - stars < 0 || chars[i - stars] === "/";
      const after = i + 1 >= chars.length || chars[i + 1] === "/";
      if (pathname && stars > 1 && before && after) {
        if (i + 1 < chars.length) {
          // `**/`: zero or more whole folders, that is nothing, or anything that ends with the slash.
          tokens.push({ kind: "star", accepts: () => true, skipTo: tokens.length + 2 });
        } else tokens.push({ kind: "star", accepts: () => true, skipTo: null });
      } else tokens.push({ kind: "star", accepts: any, skipTo: null });
    } else if (c === "?") {
      tokens.push({ kind: "one", accepts: any });
    } else if (c === "[") {
      const end = classEnd(chars, i);
      if (end === -1) tokens.push({ kind: "one", accepts: (x) => x === "[" });
      else {
        tokens.push({ kind: "one", accepts: classOf(chars.slice(i + 1, end), pathname) });
        i = end;
      }
    } else tokens.push({ kind: "one", accepts: (x) => x === c });
  }
  return tokens;
}

/** Where a `[...]` class that opens at `start` closes (a `]` right after `[`, `[!` or `[^` belongs to the class), or -1. */
function classEnd(chars: readonly string[], start: number): number {
  let i = start + 1;
  if (chars[i] === "!" || chars[i] === "^") i++;
  if (chars[i] === "]") i++;
  for (; i < chars.length; i++) {
    if (chars[i] === "\\") i++;
    else if (chars[i] === "]") return i;
  }
  return -1;
}

/** The characters a class body (between its brackets) takes: single characters and `a-z` ranges, maybe negated. */
function classOf(body: readonly string[], pathname: boolean): (c: string) => boolean {
  let i = 0;
  const negate = body[0] === "!" || body[0] === "^";
  if (negate) i++;
  const ranges: Array<[string, string]> = [];
  for (; i < body.length; i++) {
    const lo = body[i] === "\\" ? (body[++i] ?? "\\") : (body[i] as string);
    if (body[i + 1] === "-" && i + 2 < body.length) {
      const hi = body[i + 2] === "\\" ? (body[i + 3] ?? "\\") : (body[i + 2] as string);
      i += body[i + 2] === "\\" ? 3 : 2;
      ranges.push([lo, hi]);
    } else ranges.push([lo, lo]);
  }
  return (c) => {
    if (pathname && c === "/") return false;
    const inside = ranges.some(([lo, hi]) => c >= lo && c <= hi);
    return negate ? !inside : inside;
  };
}
