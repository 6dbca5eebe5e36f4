/** What a character of a source text is part of: code, a string literal (quotes included), or a comment or template. */
export const CODE = 0;
export const STRING = 1;
export const OTHER = 2;

/**
 * Which characters of a TypeScript, JavaScript or Python text are code, found by a lexer that knows comments, string
 * literals (Python's triple-quoted ones, prefixes and escapes included) and JavaScript's template literals (their
 * `${…}` code is code; the text around it is {@link OTHER}) and regular expressions (told from a division by the
 * token before them, as engines do for most real code). Whatever it cannot tell is left as code. Pure; one pass, up to
 * `upTo` (a caller that reads no further saves the rest: past it, the mask says code and means nothing).
 *
 * @example
 * codeMask('a = "x" // y', "typescript"); // 0 for `a = `, 1 for `"x"`, 0 for ` `, 2 for `// y`
 */
export function codeMask(text: string, language: "typescript" | "python", upTo = text.length): Uint8Array {
  return language === "python" ? pythonMask(text, upTo) : scriptMask(text, upTo);
}

function pythonMask(text: string, upTo: number): Uint8Array {
  const mask = new Uint8Array(text.length);
  const n = text.length;
  let i = 0;
  while (i < n && i < upTo) {
    const c = text[i];
    if (c === "#") {
      const end = text.indexOf("\n", i);
      const to = end < 0 ? n : end;
      mask.fill(OTHER, i, to);
      i = to;
    } else if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < n) {
        if (text[j] === "\\") j += 2;
        else if (text.startsWith(quote, j)) break;
        else if (!triple && text[j] === "\n")
          break; // an unterminated one-line string ends at its line
        else j++;
      }
      const to = Math.min(n, j + (text.startsWith(quote, j) ? quote.length : 0));
      mask.fill(STRING, i, to);
      i = to;
    } else i++;
  }
  return mask;
}

/** Characters after which a `/` starts a regular expression rather than a division (besides the start of the text). */
const BEFORE_REGEX = new Set(["(", ",", "=", ":", "[", "!", "&", "|", "?", "{", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);
/** Keywords after which a `/` starts a regular expression. */
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/;

function scriptMask(text: string, upTo: number): Uint8Array {
  const mask = new Uint8Array(text.length);
  const n = text.length;
  // Open template literals and `${` blocks: a `}` at braces depth 0 of a `${` goes back into its template.
  const stack: Array<"template" | number> = [];
  let braces = 0;
  let last = ""; // the last significant (not blank, not comment) character seen in code
  let lastAt = -1;
  const template = (from: number): number => {
    // In a template's text, from `from`, up to its end or to a `${`: returns where code starts again.
    let j = from;
    while (j < n) {
      if (text[j] === "\\") j += 2;
      else if (text[j] === "`") {
        mask.fill(OTHER, from, j + 1);
        return j + 1;
      } else if (text[j] === "$" && text[j + 1] === "{") {
        mask.fill(OTHER, from, j + 2);
        stack.push(braces);
        braces = 0;
        return j + 2;
      } else j++;
    }
    mask.fill(OTHER, from, n);
    return n;
  };
  let i = 0;
  while (i < n && i < upTo) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const to = end < 0 ? n : end;
      mask.fill(OTHER, i, to);
      i = to;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const to = end < 0 ? n : end + 2;
      mask.fill(OTHER, i, to);
      i = to;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      const to = Math.min(n, j + 1);
      mask.fill(STRING, i, to);
      i = to;
      last = c;
      lastAt = to - 1;
    } else if (c === "`") {
      mask[i] = OTHER;
      i = template(i + 1);
      last = "`";
      lastAt = i - 1;
    } else if (c === "/" && startsRegex(text, last, lastAt)) {
      let j = i + 1;
      let inClass = false;
      while (j < n && text[j] !== "\n") {
        if (text[j] === "\\") j += 2;
        else if (text[j] === "[") {
          inClass = true;
          j++;
        } else if (text[j] === "]") {
          inClass = false;
          j++;
        } else if (text[j] === "/" && !inClass) break;
        else j++;
      }
      const to = Math.min(n, j + 1);
      mask.fill(OTHER, i, to);
      i = to;
      last = "/";
      lastAt = to - 1;
    } else {
      if (c === "{") braces++;
      else if (c === "}") {
        if (braces === 0 && stack.length > 0) {
          // The end of a template's `${…}`: its text goes on.
          braces = stack.pop() as number;
          mask[i] = OTHER;
          i = template(i + 1);
          last = "`";
          lastAt = i - 1;
          continue;
        }
        braces--;
      }
      if (!/\s/.test(c)) {
        last = c;
        lastAt = i;
      }
      i++;
    }
  }
  return mask;
}

function startsRegex(text: string, last: string, lastAt: number): boolean {
  if (last === "") return true;
  if (BEFORE_REGEX.has(last)) return true;
  if (/[\w$]/.test(last)) return REGEX_KEYWORDS.test(text.slice(Math.max(0, lastAt - 12), lastAt + 1));
  return false;
}
