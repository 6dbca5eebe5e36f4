import * as path from "node:path";

/** Source extensions an import may name or leave out. */
const EXTENSIONS = /\.(d\.ts|tsx?|mts|cts|jsx?|mjs|cjs|pyi?)$/;

/** A repo-relative path without its extension, and without a trailing `/index` or `/__init__` (what an import names). */
export function moduleStem(repoPath: string): string {
  const bare = repoPath.replace(EXTENSIONS, "");
  return bare.replace(/\/(index|__init__)$/, "") || bare;
}

/**
 * The repo-relative module stem a relative import names from a file
 * (`./config.js` from `src/main.ts` → `src/config`; Python's `.config` from
 * `pkg/main.py` → `pkg/config`), or null for a bare specifier (a package,
 * resolved elsewhere) or one that leaves the repo. Pure.
 */
export function resolveRelative(fromPath: string, specifier: string): string | null {
  const dir = path.posix.dirname(fromPath);
  let target: string;
  if (specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..") {
    target = path.posix.normalize(path.posix.join(dir, specifier));
  } else if (/^\.+[A-Za-z_]?/.test(specifier) && !specifier.includes("/")) {
    // Python: each leading dot is one package up from the file's own.
    const dots = /^\.+/.exec(specifier)?.[0].length ?? 0;
    let base = dir;
    for (let i = 1; i < dots; i++) base = path.posix.dirname(base);
    const rest = specifier
      .slice(dots)
      .split(".")
      .filter((p) => p !== "")
      .join("/");
    target = path.posix.normalize(rest === "" ? base : path.posix.join(base, rest));
  } else {
    return null;
  }
  if (target === ".." || target.startsWith("../")) return null;
  return moduleStem(target === "." ? "" : target);
}

/**
 * Whether an import of `specifier` in `fromPath` names the module defined by
 * `definingPath`: a relative import that resolves to it, or an absolute
 * Python module (`acme.config`) or in-repo path alias (`src/config`) whose
 * segments end its stem. Bare package specifiers that are not path-like
 * (`lodash`, `@acme/lib`) never match here. Pure.
 */
export function importNamesModule(fromPath: string, specifier: string, definingPath: string): boolean {
  const stem = moduleStem(definingPath);
  const relative = resolveRelative(fromPath, specifier);
  if (relative !== null) return relative === stem;
  if (specifier.startsWith(".") || specifier.startsWith("@") || specifier.includes(":")) return false;
  // Python's absolute imports and path-like aliases: dotted or slashed segments that end the defining stem.
  const segments = specifier.includes("/") ? specifier.replace(EXTENSIONS, "").split("/") : definingPath.endsWith(".py") || definingPath.endsWith(".pyi") ? specifier.split(".") : [];
  if (segments.length < 2 && !(segments.length === 1 && stem.split("/").length === 1)) return false;
  const tail = segments.join("/");
  return stem === tail || stem.endsWith(`/${tail}`);
}

/** What an import of a file brings in: the top-level names it imports, `*` for everything. */
export interface ImportOf {
  readonly path: string;
  readonly name: string;
  readonly module: string | null;
}

/**
 * The files among `uses` that use the symbol `qualifiedName` (or its old
 * name) defined in `definingPath`: they import its top-level name, or the
 * whole module (`*`, `import * as ns`, Python's `import a.b`), from a module
 * that names the defining file. The defining file itself is never a user.
 * Sorted, de-duplicated. Pure.
 */
export function filesUsing(uses: readonly ImportOf[], definingPath: string, qualifiedNames: readonly string[]): string[] {
  const tops = new Set(qualifiedNames.map(topName));
  const out = new Set<string>();
  for (const u of uses) {
    if (u.path === definingPath || u.module === null) continue;
    if (u.name !== "*" && !tops.has(u.name)) continue;
    if (importNamesModule(u.path, u.module, definingPath)) out.add(u.path);
  }
  return [...out].sort();
}

/** The first segment of a qualified name (`Calc.add` → `Calc`): what another file imports. */
export function topName(qualified: string): string {
  const i = qualified.indexOf(".");
  return i === -1 ? qualified : qualified.slice(0, i);
}

/**
 * What an import in `fromPath` points at, as a repo-relative module stem when it can be said without knowing the
 * defining file: a relative import resolved (`src/config`), a Python absolute module as a path (`acme/config`), a
 * path-like alias without its extension; else the specifier itself (a package). Stored with each use so that the
 * users of a changed file are found through an index ({@link stemSuffixes}), then checked with
 * {@link importNamesModule}.
 */
export function importTarget(fromPath: string, specifier: string): string {
  const relative = resolveRelative(fromPath, specifier);
  if (relative !== null) return relative;
  if (specifier.startsWith(".")) return specifier;
  if (specifier.includes("/")) return specifier.replace(EXTENSIONS, "");
  return specifier.replace(/\./g, "/");
}

/**
 * The imports a file's imports stand for: each as it is, and for Python's `from M import N` also a use of all of
 * module `M.N` (`from . import services` → `.services`), since N may be a submodule, whose functions the file then
 * reaches as `services.charge(...)`. Where N is not a submodule, no file is that module, and the extra use names
 * nothing. Pure.
 */
export function expandImports<T extends { readonly path: string; readonly name: string; readonly module: string | null }>(uses: readonly T[]): Array<T | (T & { name: "*"; module: string })> {
  const out: Array<T | (T & { name: "*"; module: string })> = [];
  for (const u of uses) {
    out.push(u);
    if (u.name === "*" || u.module === null || u.module === "" || !/\.pyi?$/.test(u.path) || !/^[A-Za-z_]\w*$/.test(u.name)) continue;
    out.push({ ...u, name: "*", module: /\.$/.test(u.module) ? `${u.module}${u.name}` : `${u.module}.${u.name}` });
  }
  return out;
}

/** The stems an import's target may hold for a defining file: its stem and every shorter tail of it (`src/acme/config`, `acme/config`, `config`). */
export function stemSuffixes(definingPath: string): string[] {
  const parts = moduleStem(definingPath).split("/");
  return parts.map((_, i) => parts.slice(i).join("/"));
}

/** Build and source folders a package's subpath may go through before it names a module (`@acme/lib/dist/util`). */
const BUILD_FOLDERS = /^(?:(?:dist|lib|build|esm|cjs|es|out|src)\/)+/;

/**
 * Whether an import of a package (its module `module`) that a consumer's file `use.path` makes reaches the public
 * name `name` defined in `definingPath` of the package: an import of that name; or of a whole module, which is all
 * of the package for its root (`import * as lib from "@acme/lib"`, `require("@acme/lib")`, `import acme_lib`) but
 * only the file it names for a submodule or subpath (`import acme_lib.config`, `from acme_lib import config`,
 * `import "vite/types/customEvent"`, which names a type file, not the changed one). Pure.
 */
export function packageUseReaches(use: { readonly path: string; readonly name: string; readonly module: string }, name: string, definingPath: string): boolean {
  if (use.name === name) return true;
  if (use.name !== "*") return false;
  if (/\.pyi?$/.test(use.path)) {
    if (!use.module.includes(".") || use.module.startsWith(".")) return true;
    return importNamesModule(use.path, use.module, definingPath);
  }
  const parts = use.module.split("/");
  const sub = parts.slice(use.module.startsWith("@") ? 2 : 1).join("/");
  if (sub === "") return true;
  const named = moduleStem(sub.replace(BUILD_FOLDERS, ""));
  return named !== "" && stemSuffixes(definingPath).some((s) => s === named || s.replace(BUILD_FOLDERS, "") === named);
}
