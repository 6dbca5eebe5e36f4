import { blanking } from "../parse/blank-spans.js";
import { CODE, codeMask, STRING } from "./code-mask.js";
import { esFromStatements, firstAtOrAfter, positionsOf, pythonFromImports } from "./statement-scan.js";
import type { ReferenceRecord } from "./types.js";

export type ScanLanguage = "typescript" | "python" | "go" | "rust" | "java";

/** How a file's imports are scanned, by its name: Python's, Go's, else TypeScript's and JavaScript's. */
export function scanLanguageOf(path: string): ScanLanguage {
  return /\.pyi?$/.test(path) ? "python" : path.endsWith(".go") ? "go" : path.endsWith(".rs") ? "rust" : path.endsWith(".java") ? "java" : "typescript";
}

/**
 * The imports of a TypeScript, JavaScript, Python or Go text, found by a lexical
 * scan instead of a parse: what `pre_edit` sends about a file before it
 * changes (names and modules only), at a fraction of a millisecond and
 * without loading tree-sitter. The records have the shape the extractor gives
 * import references (`{kind: "import", name, module}`, `*` for a namespace,
 * `require` or `import a.b` import, the names a `const { a } = require("m")`
 * takes, `default` for a default import; a
 * side-effect `import "m"` binds no name and is none), so either can say what
 * a file uses. Only real imports count: text
 * that looks like one inside a comment, a string, a template literal or a
 * Python docstring is never sent (`codeMask`). Sorted, de-duplicated. Pure.
 */
export function scanImports(text: string, language: ScanLanguage): ReferenceRecord[] {
  if (language === "go") return goImportUses(text);
  if (language === "rust") return rustUses(text);
  if (language === "java") return javaUsesWithQualified(text);
  const out = new Map<string, ReferenceRecord>();
  const add = (name: string, module: string): void => {
    if (name === "" || module === "") return;
    out.set(`${name}\0${module}`, { kind: "import", name, module });
  };
  // Lexed only as far as the last place an import can be read at: an import's keyword (Python) or its module's
  // string literal (TypeScript, JavaScript), which most files have near their top.
  const lastAt = (re: RegExp): number => {
    let at = -1;
    for (const m of text.matchAll(re)) at = m.index + m[0].length;
    return at;
  };
  const upTo = language === "python" ? lastAt(/^[ \t]*(?:from|import)\b/gm) : Math.max(lastAt(/\bfrom\s*["'][^"'\n]*["']/g), lastAt(/\b(?:require|import)\s*\(\s*["'][^"'\n]*["']/g));
  if (upTo < 0) return [];
  const mask = codeMask(text, language, upTo + 1);
  // A match counts when its keyword is code (not in a string or comment) and everything from there to its module's
  // string literal is code too; `quote`: where that literal starts (-1: the statement has none).
  const real = (keyword: number, quote = -1): boolean => {
    const end = quote < 0 ? keyword + 1 : quote;
    for (let i = keyword; i < end; i++) if (mask[i] !== CODE) return false;
    return quote < 0 || mask[quote] === STRING;
  };
  if (language === "python") {
    for (const f of pythonFromImports(text)) {
      if (!real(f.index)) continue;
      const names = f.names.replace(/[()\\]/g, " ");
      for (const part of names.split(",")) {
        const name =
          part
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim() ?? "";
        if (/^[A-Za-z_*][\w]*$/.test(name)) add(name, f.module);
      }
    }
    for (const m of text.matchAll(/^[ \t]*import[ \t]+([^\n#;]+)/gm)) {
      if (!real(m.index + (m[0].length - m[0].trimStart().length))) continue;
      for (const part of (m[1] ?? "").split(",")) {
        const module =
          part
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim() ?? "";
        if (/^[A-Za-z_][\w.]*$/.test(module)) add("*", module);
      }
    }
  } else {
    // import X, { a, b as c } from "m"; import * as ns from "m"; import type { T } from "m"; export { a } from "m"
    for (const st of esFromStatements(text, /[\w$*{}\s,]/)) {
      if (st.specifier.includes("\n") || st.specifier === "" || !real(st.index, st.quote)) continue;
      const clause = st.clause;
      const module = st.specifier;
      const braces = /\{([^}]*)\}/.exec(clause);
      for (const part of (braces?.[1] ?? "").split(",")) {
        const name =
          part
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0]
            ?.trim() ?? "";
        if (/^[\w$]+$/.test(name)) add(name, module);
      }
      const rest = clause.replace(/\{[^}]*\}/, "").trim();
      if (rest.startsWith("*")) add("*", module);
      else if (st.keyword === "import" && /^[\w$]+/.test(rest)) add("default", module);
    }
    // const { a, b: c } = require("m"): the names it takes, as an import of them would (a rest element, or a pattern
    // nested deeper than this reads, takes the whole module below).
    const destructured = new Set<number>();
    for (const m of text.matchAll(/\b(?:const|let|var)\s*\{([^{}]*)\}\s*=\s*require\s*\(\s*(["'])([^"'\n]+)["']\s*\)/g)) {
      const call = m[0].lastIndexOf("require");
      const quote = m.index + m[0].indexOf(m[2] ?? "'", call);
      const names = (m[1] ?? "").split(",").map((part) => part.trim());
      if (!real(m.index, quote) || names.some((n) => n.startsWith("..."))) continue;
      destructured.add(m.index + call);
      for (const part of names) {
        const name = part.split(/[:=]/)[0]?.trim() ?? "";
        if (/^[\w$]+$/.test(name)) add(name, m[3] ?? "");
      }
    }
    // require("m"), import("m"); require("m").name takes that name
    for (const m of text.matchAll(/\b(require|import)\s*\(\s*(["'])([^"'\n]+)["']\s*\)(\s*\.\s*([\w$]+))?/g)) {
      if (destructured.has(m.index) || !real(m.index, m.index + m[0].indexOf(m[2] ?? "'"))) continue;
      add(m[1] === "require" && m[5] !== undefined ? m[5] : "*", m[3] ?? "");
    }
  }
  return [...out.values()].sort((a, b) => (`${a.name}\0${a.module ?? ""}` < `${b.name}\0${b.module ?? ""}` ? -1 : 1));
}

/**
 * What a Go file uses of the packages it imports: `{kind: "import", name: "Open", module: "example.com/app/store"}`
 * for each `store.Open` read through an import's name (its alias, else the package name its path ends with: `v2`
 * and `.vN` suffixes and a `go-` prefix left out), `*` for a dot import or a package none of whose names is read
 * here, and for a dot import each capitalised name the code reads unqualified. A blank import (`_`) binds nothing.
 * Text in comments and strings is not read. Sorted, de-duplicated. Pure.
 */
export function goImportUses(text: string): ReferenceRecord[] {
  const out = new Map<string, ReferenceRecord>();
  const add = (name: string, module: string): void => {
    out.set(`${name}\0${module}`, { kind: "import", name, module });
  };
  const mask = codeMask(text, "typescript");
  const specs: Array<{ alias: string; path: string }> = [];
  // `import (` runs to its `)`, found among the `)`s' positions: a regular expression would read on to the end of the
  // text at each `import (` that is never closed.
  let closers: Int32Array | null = null;
  const head = /^[ \t]*import[ \t]*/gm;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    if (mask[m.index + (m[0].length - m[0].trimStart().length)] !== CODE) continue;
    const at = m.index + m[0].length;
    let block: string | null = null;
    if (text[at] === "(") {
      closers ??= positionsOf(text, ")");
      const close = firstAtOrAfter(closers, at);
      if (close >= 0) {
        block = text.slice(at + 1, close);
        head.lastIndex = close + 1;
      }
    }
    if (block === null) {
      const eol = text.indexOf("\n", at);
      block = text.slice(at, eol < 0 ? text.length : eol);
      head.lastIndex = at + block.length;
    }
    for (const line of block.split(/\n|;/)) {
      const spec = /^\s*(?:([\w.]+)\s+)?["`]([^"`]+)["`]/.exec(line);
      if (spec === null) continue;
      const path = spec[2] ?? "";
      specs.push({ alias: spec[1] ?? packageNameOf(path), path });
    }
  }
  // What is read through each name, in one pass over the text (a pass per import costs the text's length times
  // the imports').
  const byAlias = new Map<string, string[]>();
  const dotted: string[] = [];
  for (const { alias, path } of specs) {
    if (alias === "_") continue;
    if (alias === ".") {
      add("*", path);
      dotted.push(path);
      continue;
    }
    const paths = byAlias.get(alias) ?? [];
    if (!paths.includes(path)) paths.push(path);
    byAlias.set(alias, paths);
  }
  const used = new Set<string>();
  if (byAlias.size > 0)
    for (const m of text.matchAll(/(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)/g)) {
      const paths = byAlias.get(m[1] ?? "");
      if (paths === undefined || mask[m.index] !== CODE) continue;
      for (const path of paths) {
        add(m[2] ?? "", path);
        used.add(path);
      }
    }
  for (const paths of byAlias.values()) for (const path of paths) if (!used.has(path)) add("*", path);
  // A dot import puts the package's exported names in the file's scope, read without a qualifier: each capitalised
  // name the code reads so may be one of them (one the file declares itself would clash with it, and Go refuses that).
  if (dotted.length > 0)
    for (const m of text.matchAll(/(?<![\w.])[A-Z]\w*/g)) {
      if (mask[m.index] !== CODE) continue;
      for (const path of dotted) add(m[0], path);
    }
  return byModuleThenName(out);
}

/** The name a Go package is imported under by default, from its path (`github.com/acme/go-store/v2`: `store`). */
function packageNameOf(path: string): string {
  const parts = path.split("/");
  let last = parts.at(-1) ?? "";
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts.at(-2) ?? last;
  return last
    .replace(/\.v\d+$/, "")
    .replace(/^go-/, "")
    .replace(/[-.]go$/, "")
    .replace(/[^\w]/g, "_");
}

/** Rust's own crates and path roots: nothing of the workspace. */
const RUST_ROOTS = new Set(["crate", "self", "super", "Self", "std", "core", "alloc", "proc_macro", "test"]);

/**
 * What Rust code uses of other crates: `{kind: "import", name, module: crate}` for each item a `use` names
 * (`use acme_store::client::{Client, connect as c}`: `Client` and `connect` of `acme_store`; a glob or `self` is `*`),
 * and for each path written in code (`acme_store::open(..)`: `open`; `acme_store::client::Client::new(..)`: `Client`,
 * the first type on the path), a path through an alias (`use acme_store as st;` or `extern crate acme_store as st;`,
 * then `st::open(..)`) as the crate's. Paths of the crate itself, of `std`, `core` and `alloc` are none. Comments and
 * strings are not read. Sorted, de-duplicated. Pure.
 */
export function rustUses(text: string): ReferenceRecord[] {
  const out = new Map<string, ReferenceRecord>();
  const add = (name: string, module: string): void => {
    if (name === "" || module === "" || RUST_ROOTS.has(module)) return;
    out.set(`${name}\0${module}`, { kind: "import", name, module });
  };
  const code = blankRustLiterals(text);
  // A crate or module given another name (`use acme_store as st;`, `use acme_store::client as c;`, `extern crate
  // acme_store as st;`): a path written through that name is the crate's.
  const aliases = new Map<string, string>();
  for (const m of code.matchAll(/\bextern\s+crate\s+([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)\s*;/g)) if (!RUST_ROOTS.has(m[1] ?? "")) aliases.set(m[2] ?? "", m[1] ?? "");
  // (`a as b` kept as `a~b` once spaces are gone: what is used is `a`.) A `use` runs to its `;`, found among the
  // `;`s' positions: one never closed is no `use`, and costs no more than its keyword.
  const semis = positionsOf(code, ";");
  const head = /\buse\s+(?:::)?/g;
  for (let m = head.exec(code); m !== null; m = head.exec(code)) {
    const at = m.index + m[0].length;
    const semi = firstAtOrAfter(semis, at);
    if (semi < 0) break;
    head.lastIndex = semi + 1;
    if (semi === at) continue;
    for (const p of expandUseTree(
      code
        .slice(at, semi)
        .replace(/\s+as\s+/g, "~")
        .replace(/\s+/g, ""),
    )) {
      const parts = p.split("::");
      const [item = "", alias] = (parts.at(-1) ?? "").split("~");
      const crate = (parts.length === 1 ? item : parts[0]) ?? "";
      // (an alias of the crate's own module, `use super::local as l;`, is the crate's own: "")
      if (alias !== undefined && /^[a-z_]/.test(item)) aliases.set(alias, RUST_ROOTS.has(crate) ? "" : crate);
      if (parts.length < 2) continue;
      add(item === "*" || item === "self" ? "*" : item, crate);
    }
  }
  for (const m of code.matchAll(/(?<![\w:])([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
    const crate = aliases.get(m[1] ?? "") ?? m[1] ?? "";
    if (crate === "" || RUST_ROOTS.has(crate)) continue;
    const rest = (m[2] ?? "").split("::").filter((s) => s !== "");
    const type = rest.find((s) => /^[A-Z]/.test(s));
    add(type ?? rest.at(-1) ?? "", crate);
  }
  return byModuleThenName(out);
}

/**
 * Rust text with its comments (nested block comments too), string literals (raw ones with their `#`s, byte strings)
 * and character literals blanked to spaces, lines kept; a lifetime (`'a`, no closing quote) stays. One pass: a literal
 * or comment never closed runs to the end.
 */
export function blankRustLiterals(text: string): string {
  const n = text.length;
  const { blank, done } = blanking(text);
  const wordAt = (k: number): boolean => k >= 0 && /[\w]/.test(text[k] as string);
  let i = 0;
  while (i < n) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      const eol = text.indexOf("\n", i);
      const to = eol < 0 ? n : eol;
      blank(i, to);
      i = to;
    } else if (c === "/" && text[i + 1] === "*") {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (text[j] === "/" && text[j + 1] === "*") {
          depth++;
          j += 2;
        } else if (text[j] === "*" && text[j + 1] === "/") {
          depth--;
          j += 2;
        } else j++;
      }
      blank(i, j);
      i = j;
    } else if (c === "r" && (text[i + 1] === '"' || text[i + 1] === "#") && (!wordAt(i - 1) || (text[i - 1] === "b" && !wordAt(i - 2)))) {
      let j = i + 1;
      while (text[j] === "#") j++;
      if (text[j] !== '"') {
        i++;
        continue;
      }
      const close = `"${"#".repeat(j - i - 1)}`;
      const end = text.indexOf(close, j + 1);
      const to = end < 0 ? n : end + close.length;
      blank(i, to);
      i = to;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const to = Math.min(n, j + 1);
      blank(i, to);
      i = to;
    } else if (c === "'") {
      // A character literal: one character or one escape, then `'`; else a lifetime or a label.
      const m = /'(?:\\.|[^'\\\n])'/y;
      m.lastIndex = i;
      if (m.exec(text) !== null) {
        blank(i, m.lastIndex);
        i = m.lastIndex;
      } else i++;
    } else i++;
  }
  return done();
}

/** A `use` tree's paths (`a::{b::{c, d}, e~f}`: `a::b::c`, `a::b::d`, `a::e~f`), spaces already removed. */
function expandUseTree(tree: string, depth = 0): string[] {
  if (depth > 8) return [];
  const open = tree.indexOf("{");
  if (open < 0) return [tree];
  const prefix = tree.slice(0, open);
  const inner = tree.slice(open + 1, tree.lastIndexOf("}"));
  const parts: string[] = [];
  let level = 0;
  let from = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (ch === "{") level++;
    else if (ch === "}") level--;
    else if (ch === "," && level === 0) {
      parts.push(inner.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(inner.slice(from));
  return parts.filter((p) => p !== "").flatMap((p) => expandUseTree(`${prefix}${p}`, depth + 1));
}

/**
 * What Java code imports: `{kind: "import", name: "Store", module: "com.acme.store"}` for `import
 * com.acme.store.Store;` (a nested type, `com.acme.store.Store.Entry`, by its top-level type; a static import by its
 * type), `*` for `import com.acme.store.*;`. The JDK's packages (`java.`, `javax.`, `jdk.`, `sun.`) are nobody's here.
 * An import is read where a line starts with it: a commented-out one (`// import ..`) or one in a string is not.
 * Sorted, de-duplicated. Pure.
 */
export function javaUses(text: string): ReferenceRecord[] {
  const out = new Map<string, ReferenceRecord>();
  // (no blanking of comments and strings first: Java files are mostly Javadoc, and imports only start lines.) Imports
  // come before the file's first type: read up to the first line that declares one.
  const firstType = /^[ \t]*(?:(?:public|protected|private|abstract|final|sealed|non-sealed|static|strictfp)\s+)*(?:class|interface|enum|record|@interface)\s/m.exec(text);
  const head = firstType === null ? text : text.slice(0, firstType.index);
  for (const m of head.matchAll(/^[ \t]*import\s+(static\s+)?([\w.]+?)(\.\*)?\s*;/gm)) {
    const parts = (m[2] ?? "").split(".");
    if (/^(java|javax|jdk|sun)$/.test(parts[0] ?? "")) continue;
    const type = parts.findIndex((p) => /^[A-Z]/.test(p));
    const record = (name: string, module: string): void => {
      if (module !== "") out.set(`${name}\0${module}`, { kind: "import", name, module });
    };
    if (type < 0) record("*", parts.join("."));
    else record(parts[type] ?? "", parts.slice(0, type).join("."));
  }
  return byModuleThenName(out);
}

/** A Java file's imports and the types its code names by their full names (`javaUses`, `javaQualifiedUses`), as one list. */
function javaUsesWithQualified(text: string): ReferenceRecord[] {
  const out = new Map<string, ReferenceRecord>();
  for (const r of [...javaUses(text), ...javaQualifiedUses(text)]) out.set(`${r.name}\0${r.module ?? ""}`, r);
  return byModuleThenName(out);
}

/**
 * The types Java code names by their full names without importing them (`com.acme.store.Store s = new
 * com.acme.store.Store()`, `@com.acme.Audited`, `com.acme.store.Stores.open(..)`), as imports of them:
 * `{kind: "import", name: "Store", module: "com.acme.store"}`, a nested type by its top-level one. Read in code only
 * (comments, strings, text blocks and character literals blanked), where a name of at least two lower-case segments
 * is followed by a capitalised one; the JDK's packages are nobody's. A separate pass from `javaUses`, which the
 * symbol extractor runs on every file: this one reads a whole file, and only the files a search or an edit names go
 * through it. Sorted, de-duplicated. Pure.
 */
export function javaQualifiedUses(text: string): ReferenceRecord[] {
  const out = new Map<string, ReferenceRecord>();
  const code = blankJavaLiterals(text);
  for (const m of code.matchAll(/(?<![\w.$])((?:[a-z_][a-z0-9_]*\s*\.\s*){2,})([A-Z][A-Za-z0-9_$]*)/g)) {
    const module = (m[1] ?? "").replace(/\s+/g, "").slice(0, -1);
    // (a package statement names no type, and an import is `javaUses`'; `this.a.B` and `super.a.B` are fields')
    if (/^(java|javax|jdk|sun|this|super)(\.|$)/.test(module)) continue;
    const name = m[2] ?? "";
    out.set(`${name}\0${module}`, { kind: "import", name, module });
  }
  return byModuleThenName(out);
}

/**
 * Java text with its comments, string literals, text blocks (`"""`) and character literals blanked to spaces, lines
 * kept. One pass: a literal or comment never closed runs to the end (a string, to the end of its line).
 */
export function blankJavaLiterals(text: string): string {
  const n = text.length;
  const { blank, done } = blanking(text);
  // From one quote or slash to the next by the engine's own search, not a character at a time (as `gradleCode` does,
  // for the same reason: a text built by concatenation is slow to index one character at a time).
  const next = /["'/]/g;
  for (let m = next.exec(text); m !== null; m = next.exec(text)) {
    const i = m.index;
    let to = -1;
    if (text.startsWith("//", i)) {
      const eol = text.indexOf("\n", i);
      to = eol < 0 ? n : eol;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      to = end < 0 ? n : end + 2;
    } else if (text.startsWith('"""', i)) {
      let j = i + 3;
      while (j < n && !text.startsWith('"""', j)) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      to = Math.min(n, j + 3);
    } else if (m[0] !== "/") {
      const c = text.charCodeAt(i);
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== c && text.charCodeAt(j) !== 0x0a) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      to = Math.min(n, j + 1);
    }
    if (to < 0) continue; // a division
    blank(i, to);
    next.lastIndex = to;
  }
  return done();
}

/** Import records sorted by module, then name (Go's, Rust's and Java's scans). */
function byModuleThenName(records: Map<string, ReferenceRecord>): ReferenceRecord[] {
  return [...records.values()].sort((a, b) => (a.module === b.module ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : (a.module ?? "") < (b.module ?? "") ? -1 : 1));
}
