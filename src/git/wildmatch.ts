/**
 * Git's wildmatch, as its conditional includes use it (`includeIf "gitdir:..."`, `onbranch:`, `hasconfig:`): `?`, `*`,
 * `[...]` (with `!` or `^` to negate), `\` escaping the next character, and with `pathname` (WM_PATHNAME) `*` and `?`
 * stop at `/` while `**` between slashes (or at either end) spans folders. `caseFold` is WM_CASEFOLD. Pure.
 */
export function wildmatch(pattern: string, text: string, options: { readonly pathname?: boolean; readonly caseFold?: boolean } = {}): boolean {
  return toRegExp(pattern, options.pathname === true, options.caseFold === true).test(text);
}

function toRegExp(pattern: string, pathname: boolean, caseFold: boolean): RegExp {
  const one = pathname ? "[^/]" : "[\\s\\S]";
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\") {
      i++;
      out += escapeChar(pattern[i] ?? "\\");
    } else if (c === "*") {
      let stars = 1;
      while (pattern[i + 1] === "*") {
        stars++;
        i++;
      }
      const before = i - stars < 0 || pattern[i - stars] === "/";
      const after = i + 1 >= pattern.length || pattern[i + 1] === "/";
      if (!pathname || stars === 1) out += `${one}*`;
      else if (before && after) {
        // `**/` spans zero or more whole folders; a trailing `/**` (or a lone `**`) spans everything.
        if (i + 1 < pattern.length) {
          out += "(?:[\\s\\S]*/)?";
          i++; // the slash is part of the span
        } else out += "[\\s\\S]*";
      } else out += `${one}*`;
    } else if (c === "?") {
      out += one;
    } else if (c === "[") {
      const end = classEnd(pattern, i);
      if (end === -1) out += "\\[";
      else {
        let body = pattern.slice(i + 1, end);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        const chars = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, (m) => `\\${m}`);
        out += negate ? `(?!/)[^${chars}]` : `[${chars}]`;
        i = end;
      }
    } else out += escapeChar(c);
  }
  return new RegExp(`^${out}$`, caseFold ? "i" : "");
}

/** Where a `[...]` class that opens at `start` closes (a `]` right after `[`, `[!` or `[^` belongs to the class), or -1. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return -1;
}

function escapeChar(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, (m) => `\\${m}`);
}
