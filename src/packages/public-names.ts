import * as fs from "node:fs";
import * as path from "node:path";
import { pythonModuleName } from "./package-of-import.js";

/** The package a file belongs to: the innermost manifest between it and the repo root. */
export interface OwningPackage {
  readonly name: string;
  readonly ecosystem: "npm" | "python" | "go" | "cargo" | "java";
  /** The package's folder, POSIX, relative to the repo root (`.` at the root). */
  readonly path: string;
}

/** What reads files: `node:fs` by default, a map in tests. */
export interface TextReader {
  read(abs: string): string | null;
}

export const nodeTextReader: TextReader = {
  read(abs) {
    try {
      return fs.statSync(abs).isFile() ? fs.readFileSync(abs, "utf8").replace(/^\uFEFF/, "") : null;
    } catch {
      return null;
    }
  },
};

/**
 * Which package a changed file belongs to, and under which public names each of its top-level symbols can be
 * imported from that package: for npm, through the package's entry (`exports` `.` with its conditions, `types`,
 * `module`, `main`, mapped back from a build folder to the TypeScript source, else `src/index.ts`), following
 * `export * from`, `export { a as b } from` and re-exported imports; for Python, the name itself unless it is
 * private (`_x`), and the aliases the package's `__init__.py` gives it. A symbol the entry does not reach has no
 * public name (`[]`); when the entry cannot be found, the exported name stands (`[top]`). Null package: no
 * manifest owns the file.
 */
export function packageExposure(repoRoot: string, filePath: string, tops: readonly string[], reader: TextReader = nodeTextReader): { package: OwningPackage | null; names: Map<string, string[]> } {
  const names = new Map<string, string[]>();
  if (filePath.endsWith(".go")) return goExposure(repoRoot, filePath, tops, reader);
  if (filePath.endsWith(".rs")) return rustExposure(repoRoot, filePath, tops, reader);
  if (filePath.endsWith(".java")) return javaExposure(repoRoot, filePath, tops, reader);
  const python = /\.pyi?$/.test(filePath);
  const owner = owningPackage(repoRoot, filePath, python, reader);
  if (owner === null) return { package: null, names };
  const pkgDir = path.join(repoRoot, owner.pkg.path);
  if (python) {
    const aliases = pythonAliases(pkgDir, owner.pkg.name, path.join(repoRoot, filePath), reader);
    for (const top of tops) names.set(top, top.startsWith("_") ? [] : [...new Set([top, ...(aliases.get(top) ?? [])])].sort());
    return { package: owner.pkg, names };
  }
  const entry = entryFile(pkgDir, owner.manifest, reader);
  const target = path.join(repoRoot, filePath);
  for (const top of tops) names.set(top, entry === null ? [top] : reachable(entry, target, top, reader));
  return { package: owner.pkg, names };
}

/**
 * The names under which a subpath of a JavaScript or TypeScript package (`client` of `@acme/utils/client`) exposes
 * `top` of `filePath` (repo-relative): the module the subpath names (its `exports` entry, else `src/SUB` or `SUB` in
 * the package's folder, a built file read as its source), following its re-exports. Empty where none is found.
 */
export function subpathExposure(repoRoot: string, filePath: string, subpath: string, top: string, reader: TextReader = nodeTextReader): string[] {
  const owner = owningPackage(repoRoot, filePath, false, reader);
  if (owner === null || subpath === "" || subpath.split("/").includes("..")) return [];
  const pkgDir = path.join(repoRoot, owner.pkg.path);
  const exp = owner.manifest["exports"];
  const declared = typeof exp === "object" && exp !== null && !Array.isArray(exp) ? exportTargets((exp as Record<string, unknown>)[`./${subpath}`]) : [];
  const found =
    declared.map((rel) => sourceOf(path.join(pkgDir, rel), reader)).find((f) => f !== null) ?? moduleFile(path.join(pkgDir, "src", subpath), reader) ?? moduleFile(path.join(pkgDir, subpath), reader);
  return found === null || found === undefined ? [] : reachable(found, path.join(repoRoot, filePath), top, reader);
}

/**
 * The package a repo-relative file belongs to: the nearest manifest above it that names one (`package.json` for
 * JavaScript and TypeScript, `pyproject.toml` for Python), as `packageExposure` finds the publisher's; null under none.
 */
export function packageOwning(repoRoot: string, filePath: string, reader: TextReader = nodeTextReader): OwningPackage | null {
  return owningPackage(repoRoot, filePath, /\.pyi?$/.test(filePath), reader)?.pkg ?? null;
}

/** A reader that reads each file once (a scan of many files under few manifests). */
export function memoTextReader(reader: TextReader = nodeTextReader): TextReader {
  const read = new Map<string, string | null>();
  return {
    read(abs) {
      let text = read.get(abs);
      if (text === undefined) {
        text = reader.read(abs);
        read.set(abs, text);
      }
      return text;
    },
  };
}

function owningPackage(repoRoot: string, filePath: string, python: boolean, reader: TextReader): { pkg: OwningPackage; manifest: Record<string, unknown> } | null {
  for (let dir = path.posix.dirname(filePath); ; dir = path.posix.dirname(dir)) {
    const rel = dir === "." || dir === "" ? "." : dir;
    const abs = path.join(repoRoot, rel);
    if (python) {
      const text = reader.read(path.join(abs, "pyproject.toml"));
      const name = text === null ? null : (/^\[project\][^[]*?^name\s*=\s*["']([^"']+)["']/ms.exec(text)?.[1] ?? /^\[tool\.poetry\][^[]*?^name\s*=\s*["']([^"']+)["']/ms.exec(text)?.[1] ?? null);
      if (name) return { pkg: { name, ecosystem: "python", path: rel }, manifest: {} };
    } else {
      const text = reader.read(path.join(abs, "package.json"));
      if (text !== null) {
        try {
          const manifest = JSON.parse(text) as Record<string, unknown>;
          if (typeof manifest["name"] === "string" && manifest["name"] !== "") return { pkg: { name: manifest["name"], ecosystem: "npm", path: rel }, manifest };
        } catch {
          // not a manifest one can read: keep looking up
        }
      }
    }
    if (rel === ".") return null;
  }
}

/** The conditions of an `exports` entry, in the order a TypeScript consumer would resolve them. */
const CONDITIONS = ["types", "typescript", "source", "import", "module", "default", "require", "node"];

function exportTargets(value: unknown, depth = 0): string[] {
  if (depth > 6) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap((v) => exportTargets(v, depth + 1));
  if (typeof value === "object" && value !== null) {
    const o = value as Record<string, unknown>;
    const keys = [...CONDITIONS.filter((k) => k in o), ...Object.keys(o).filter((k) => !CONDITIONS.includes(k) && !k.startsWith("."))];
    return keys.flatMap((k) => exportTargets(o[k], depth + 1));
  }
  return [];
}

/** The source file of the package's main entry, or null when none can be found. */
function entryFile(pkgDir: string, manifest: Record<string, unknown>, reader: TextReader): string | null {
  const exp = manifest["exports"];
  const dot = typeof exp === "object" && exp !== null && !Array.isArray(exp) && Object.keys(exp).some((k) => k.startsWith(".")) ? (exp as Record<string, unknown>)["."] : exp;
  const declared = [...exportTargets(dot), ...["types", "typings", "module", "main"].flatMap((k) => (typeof manifest[k] === "string" ? [manifest[k] as string] : []))];
  for (const rel of [...declared, "src/index.ts", "src/index.tsx", "index.ts", "src/index.js", "index.js"]) {
    const found = sourceOf(path.join(pkgDir, rel), reader);
    if (found !== null) return found;
  }
  return null;
}

/** A built file's TypeScript source (`dist/index.js` → `src/index.ts`), or the file itself. */
function sourceOf(abs: string, reader: TextReader): string | null {
  const candidates: string[] = [];
  const swapExt = (p: string) => [p.replace(/\.d\.(m|c)?ts$/, ".$1ts").replace(/\.d\.ts$/, ".ts"), p.replace(/\.(m|c)?js$/, ".$1ts"), p.replace(/\.jsx?$/, ".tsx")];
  const built = /([\\/])(dist|lib|build|out|esm|cjs|types)([\\/])/;
  for (const p of [abs, ...(built.test(abs) ? [abs.replace(built, "$1src$3")] : [])]) candidates.push(...swapExt(p), p);
  for (const c of candidates) if (!/\.d\.(m|c)?ts$/.test(c) && reader.read(c) !== null) return c;
  return null;
}

/** `import`, `export … from` statements of a TypeScript text, as a lexical scan. */
interface Edges {
  star: string[];
  namespaces: Array<{ as: string; from: string }>;
  named: Array<{ name: string; as: string; from: string }>;
}

function edgesOf(text: string): Edges {
  const out: Edges = { star: [], namespaces: [], named: [] };
  const imported = new Map<string, { name: string; from: string }>();
  for (const m of text.matchAll(/\bimport\s+(?:type\s+)?([\w$*{}\s,]*?)\s*from\s*["']([^"'\n]+)["']/g)) {
    const clause = m[1] ?? "";
    const from = m[2] ?? "";
    const def = /^([\w$]+)\s*(,|$)/.exec(clause.trim());
    if (def?.[1] !== undefined) imported.set(def[1], { name: "default", from });
    const ns = /\*\s*as\s+([\w$]+)/.exec(clause);
    if (ns?.[1] !== undefined) imported.set(ns[1], { name: "*", from });
    for (const part of /\{([^}]*)\}/.exec(clause)?.[1]?.split(",") ?? []) {
      const [name, as] = part
        .replace(/^\s*type\s+/, "")
        .split(/\s+as\s+/)
        .map((s) => s.trim());
      if (name) imported.set(as || name, { name, from });
    }
  }
  for (const m of text.matchAll(/\bexport\s+\*\s*(?:as\s+([\w$]+)\s*)?from\s*["']([^"'\n]+)["']/g)) {
    if (m[1] !== undefined) out.namespaces.push({ as: m[1], from: m[2] ?? "" });
    else out.star.push(m[2] ?? "");
  }
  for (const m of text.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s*["']([^"'\n]+)["'])?/g)) {
    for (const part of (m[1] ?? "").split(",")) {
      const [name, as] = part
        .replace(/^\s*type\s+/, "")
        .split(/\s+as\s+/)
        .map((s) => s.trim());
      if (!name) continue;
      if (m[2] !== undefined) out.named.push({ name, as: as || name, from: m[2] });
      else {
        const i = imported.get(name);
        if (i === undefined) continue;
        if (i.name === "*") out.namespaces.push({ as: as || name, from: i.from });
        else out.named.push({ name: i.name, as: as || name, from: i.from });
      }
    }
  }
  return out;
}

const TS_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

function resolveModule(fromFile: string, specifier: string, reader: TextReader): string | null {
  return specifier.startsWith(".") ? moduleFile(path.resolve(path.dirname(fromFile), specifier), reader) : null;
}

/** The file a module path names, as TypeScript looks it up (its extension or `index` left out), or null. */
function moduleFile(base: string, reader: TextReader): string | null {
  const bare = base.replace(/\.(m|c)?jsx?$/, "");
  for (const c of [...TS_EXTENSIONS.map((e) => bare + e), base, ...TS_EXTENSIONS.map((e) => path.join(base, `index${e}`))]) if (reader.read(c) !== null) return c;
  return null;
}

/** The names under which the entry exposes `top` of `target`, following re-exports (at most 300 files visited). */
function reachable(entry: string, target: string, top: string, reader: TextReader): string[] {
  const found = new Set<string>();
  let visits = 0;
  const visit = (file: string, rename: (n: string) => string | null, stack: ReadonlySet<string>): void => {
    if (visits++ > 300 || stack.has(file) || stack.size > 12) return;
    if (file === target) {
      const r = rename(top);
      if (r !== null) found.add(r);
    }
    const text = reader.read(file);
    if (text === null) return;
    const e = edgesOf(text);
    const next = new Set([...stack, file]);
    for (const from of e.star) {
      const f = resolveModule(file, from, reader);
      if (f !== null) visit(f, (n) => (n === "default" ? null : rename(n)), next);
    }
    for (const ns of e.namespaces) {
      const f = resolveModule(file, ns.from, reader);
      const outer = rename(ns.as);
      if (f !== null && outer !== null) visit(f, () => outer, next);
    }
    for (const n of e.named) {
      const f = resolveModule(file, n.from, reader);
      if (f !== null) visit(f, (x) => (x === n.name ? rename(n.as) : null), next);
    }
  };
  visit(entry, (n) => n, new Set());
  return [...found].sort();
}

/** Names the package's `__init__.py` gives a symbol of `file` (`from .config import parse_config as parse`). */
function pythonAliases(pkgDir: string, distribution: string, file: string, reader: TextReader): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const module = path.basename(file).replace(/\.pyi?$/, "");
  const top = pythonModuleName(distribution);
  for (const init of [path.join(pkgDir, top, "__init__.py"), path.join(pkgDir, "src", top, "__init__.py")]) {
    const text = reader.read(init);
    if (text === null) continue;
    for (const m of text.matchAll(/^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)/gm)) {
      if ((m[1] ?? "").split(".").pop() !== module) continue;
      for (const part of (m[2] ?? "").replace(/[()\\]/g, " ").split(",")) {
        const [name, as] = part
          .trim()
          .split(/\s+as\s+/)
          .map((s) => s.trim());
        if (name && as) out.set(name, [...(out.get(name) ?? []), as]);
      }
    }
  }
  return out;
}

/**
 * A Go file's package, as other code imports it: the module path its nearest `go.mod` declares, and the folder below
 * it (`example.com/app` + `store` is `example.com/app/store`); each exported top name is public under itself, an
 * unexported one not at all. A `main` package is nobody else's to import, nor is a file
 * under no `go.mod`: no package then.
 */
function goExposure(repoRoot: string, filePath: string, tops: readonly string[], reader: TextReader): { package: OwningPackage | null; names: Map<string, string[]> } {
  const names = new Map<string, string[]>();
  const dir = path.posix.dirname(filePath);
  for (let at = dir; ; at = path.posix.dirname(at)) {
    const rel = at === "." || at === "" ? "." : at;
    const mod = reader.read(path.join(repoRoot, rel, "go.mod"));
    const module = mod === null ? undefined : /^module\s+("?)([^\s"]+)\1\s*$/m.exec(mod)?.[2];
    if (module !== undefined) {
      const below = rel === "." ? dir : path.posix.relative(rel, dir);
      const importPath = below === "" || below === "." ? module : `${module}/${below}`;
      const source = reader.read(path.join(repoRoot, filePath)) ?? "";
      if (/^package\s+main\b/m.test(source)) return { package: null, names };
      for (const top of tops) names.set(top, /^\p{Lu}/u.test(top) ? [top] : []);
      return { package: { name: importPath, ecosystem: "go", path: rel }, names };
    }
    if (rel === ".") return { package: null, names };
  }
}

/**
 * A Rust file's crate: the nearest `Cargo.toml` above it with a `[package]` name (a workspace's root manifest has
 * none); each top name is public under itself (what is not `pub` is never a public change). A binary-only crate
 * (`src/main.rs` without a `src/lib.rs`) is nobody else's to use.
 */
function rustExposure(repoRoot: string, filePath: string, tops: readonly string[], reader: TextReader): { package: OwningPackage | null; names: Map<string, string[]> } {
  const names = new Map<string, string[]>();
  for (let at = path.posix.dirname(filePath); ; at = path.posix.dirname(at)) {
    const rel = at === "." || at === "" ? "." : at;
    const manifest = reader.read(path.join(repoRoot, rel, "Cargo.toml"));
    const name = manifest === null ? undefined : /^\[package\][^[]*?^name\s*=\s*["']([^"']+)["']/ms.exec(manifest)?.[1];
    if (name !== undefined) {
      if (reader.read(path.join(repoRoot, rel, "src", "lib.rs")) === null && /^\[lib\]/m.test(manifest ?? "") === false) return { package: null, names };
      for (const top of tops) names.set(top, [top]);
      return { package: { name, ecosystem: "cargo", path: rel }, names };
    }
    if (rel === ".") return { package: null, names };
  }
}

/**
 * A Java file's package, as other code imports it: the one its `package` declaration names (none: the unnamed
 * package, nobody else's to import), found under the nearest Maven or Gradle module (`pom.xml`, `build.gradle(.kts)`),
 * else the repo; each top-level type is public under its name.
 */
function javaExposure(repoRoot: string, filePath: string, tops: readonly string[], reader: TextReader): { package: OwningPackage | null; names: Map<string, string[]> } {
  const names = new Map<string, string[]>();
  const source = reader.read(path.join(repoRoot, filePath)) ?? "";
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ""))?.[1];
  if (pkg === undefined) return { package: null, names };
  let module = ".";
  for (let at = path.posix.dirname(filePath); at !== "." && at !== ""; at = path.posix.dirname(at)) {
    if (["pom.xml", "build.gradle", "build.gradle.kts"].some((m) => reader.read(path.join(repoRoot, at, m)) !== null)) {
      module = at;
      break;
    }
  }
  for (const top of tops) names.set(top, [top]);
  return { package: { name: pkg, ecosystem: "java", path: module }, names };
}
