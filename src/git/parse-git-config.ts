/** One `key = value` line of a git config file, with its section. */
export interface GitConfigEntry {
  /** Lowercased section name (`remote`, `url`, `core`). */
  readonly section: string;
  /** Subsection as written (case-sensitive), or null. */
  readonly subsection: string | null;
  /** Lowercased variable name. */
  readonly key: string;
  /** The value with quotes and escapes resolved; `true` for a bare key. */
  readonly value: string;
}

export interface ParsedGitConfig {
  readonly entries: readonly GitConfigEntry[];
  /** The first syntax error (1-based line), if any; entries before it are kept. */
  readonly error: { readonly line: number; readonly message: string } | null;
}

/** The last value of a key outside any subsection (`core.autocrlf`), as git reads it: the last one wins. */
export function configValue(entries: readonly GitConfigEntry[], section: string, key: string): string | undefined {
  let value: string | undefined;
  for (const e of entries) if (e.section === section && e.subsection === null && e.key === key) value = e.value;
  return value;
}

/** A key's boolean (`true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0`, any case); undefined when unset or neither. */
export function configBool(entries: readonly GitConfigEntry[], section: string, key: string): boolean | undefined {
  const v = configValue(entries, section, key)?.toLowerCase();
  return v === undefined ? undefined : ["true", "yes", "on", "1"].includes(v) ? true : ["false", "no", "off", "0"].includes(v) ? false : undefined;
}

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;
const KEY = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[;#])/;

/**
 * Parses git's config syntax (`git help config`, "Syntax"): sections
 * `[name]`, `[name "sub"]` and legacy `[name.sub]`, bare boolean keys,
 * quoted values with `\"`, `\\`, `\n`, `\t`, `\b` escapes, inline `;`/`#`
 * comments, and lines continued with a trailing backslash. Pure: text in,
 * entries out; it never throws.
 *
 * @example
 * parseGitConfig('[remote "origin"]\n\turl = git@github.com:a/b.git\n').entries[0]?.value;
 * // 'git@github.com:a/b.git'
 */
export function parseGitConfig(text: string): ParsedGitConfig {
  const entries: GitConfigEntry[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let section: string | null = null;
  let subsection: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? "").trimStart();
    const lineNo = i + 1;
    while (line.startsWith("[")) {
      const m = SECTION.exec(line);
      if (m === null) return { entries, error: { line: lineNo, message: "bad section header" } };
      const name = m[1] ?? "";
      if (m[2] !== undefined) {
        section = name.toLowerCase();
        subsection = m[2].replace(/\\(.)/g, "$1");
      } else {
        const dot = name.indexOf(".");
        section = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
        subsection = dot < 0 ? null : name.slice(dot + 1).toLowerCase();
      }
      line = line.slice(m[0].length).trimStart();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const k = KEY.exec(line);
    if (k === null || section === null) {
      return { entries, error: { line: lineNo, message: section === null ? "key outside a section" : "bad key" } };
    }
    const key = (k[1] ?? "").toLowerCase();
    if (k[2] !== "=") {
      entries.push({ section, subsection, key, value: "true" });
      continue;
    }
    let rest = line.slice(k[0].length);
    // Continuation lines: a value ending in an unescaped backslash goes on.
    while (endsWithContinuation(rest) && i + 1 < lines.length) {
      rest = rest.slice(0, -1) + (lines[++i] ?? "");
    }
    const value = parseValue(rest);
    if (value === null) return { entries, error: { line: lineNo, message: "unterminated quote or bad escape" } };
    entries.push({ section, subsection, key, value });
  }
  return { entries, error: null };
}

function endsWithContinuation(s: string): boolean {
  let n = 0;
  for (let j = s.length - 1; j >= 0 && s[j] === "\\"; j--) n++;
  return n % 2 === 1;
}

function parseValue(raw: string): string | null {
  let out = "";
  let pendingSpace = "";
  let quoted = false;
  for (let j = 0; j < raw.length; j++) {
    const c = raw[j] ?? "";
    if (!quoted && (c === ";" || c === "#")) break;
    if (c === '"') {
      quoted = !quoted;
      out += pendingSpace;
      pendingSpace = "";
      continue;
    }
    if (c === "\\") {
      const e = raw[++j];
      const mapped = e === "n" ? "\n" : e === "t" ? "\t" : e === "b" ? "\b" : e === "\\" || e === '"' ? e : null;
      if (mapped === null) return null;
      out += pendingSpace + mapped;
      pendingSpace = "";
      continue;
    }
    if (!quoted && (c === " " || c === "\t")) {
      // Inner whitespace is kept, leading and trailing is not.
      if (out !== "") pendingSpace += c;
      continue;
    }
    out += pendingSpace + c;
    pendingSpace = "";
  }
  return quoted ? null : out;
}
