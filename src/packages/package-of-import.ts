/**
 * The workspace package an import names, as a key both sides of coordination compare: `npm:<name>` for a bare
 * JavaScript/TypeScript specifier (`@acme/lib/sub` → `npm:@acme/lib`, `lodash/fp` → `npm:lodash`), `python:<name>`
 * for a Python absolute import, its top-level name normalised as packaging normalises distribution names
 * (`acme_lib.config` → `python:acme-lib`). Null for what names no package: relative imports (`./x`, Python's
 * `.x`), absolute paths, `node:` and other schemes, `#` subpath imports. Pure.
 *
 * @example
 * packageOfImport("src/main.ts", "@acme/lib") === "npm:@acme/lib";
 * packageOfImport("app/main.py", "acme_lib.config") === "python:acme-lib";
 */
export function packageOfImport(fromPath: string, specifier: string): string | null {
  const spec = specifier.trim();
  if (spec === "" || spec === "*") return null;
  // A use of a service contract names its namespace as its module (`graphql:schema`, `openapi:http`): the key itself.
  if (CONTRACT_KEY.test(spec)) return spec;
  // Go: an import path is its package; the standard library's (no domain in its first element) is nobody's here.
  if (fromPath.endsWith(".go")) return /^[\w-]+(\.[\w-]+)+\//.test(spec) ? packageKey("go", spec) : null;
  // Java: an import names its package (the JDK's are nobody's here).
  if (fromPath.endsWith(".java")) return /^[a-z_][\w]*(\.[a-z_][\w]*)*$/.test(spec) && !/^(java|javax|jdk|sun)(\.|$)/.test(spec) ? packageKey("java", spec) : null;
  // Rust: a path's first segment is its crate; the crate itself, std, core and alloc are nobody's here.
  if (fromPath.endsWith(".rs")) return /^[A-Za-z_][\w-]*$/.test(spec) && !/^(crate|self|super|Self|std|core|alloc|proc_macro|test)$/.test(spec) ? packageKey("cargo", spec) : null;
  if (/\.pyi?$/.test(fromPath)) {
    if (spec.startsWith(".")) return null;
    const top = spec.split(".")[0] ?? "";
    return /^[A-Za-z_][\w]*$/.test(top) ? packageKey("python", top) : null;
  }
  if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("#") || spec.startsWith("~") || spec.includes(":") || spec.includes("\\")) return null;
  const parts = spec.split("/");
  const name = spec.startsWith("@") ? (parts.length >= 2 ? `${parts[0]}/${parts[1]}` : "") : (parts[0] ?? "");
  return /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i.test(name) ? packageKey("npm", name) : null;
}

/** The key of a published package: `npm:<name>`, `python:<normalised name>`, `go:<import path>`, `cargo:<crate>`, `maven:<group>:<artifact>`; null for ecosystems not compared yet. */
export function packageKey(ecosystem: string, name: string): string | null {
  if (ecosystem === "npm") return `npm:${name}`;
  if (ecosystem === "python") return `python:${normalizePythonName(name)}`;
  if (ecosystem === "graphql" || ecosystem === "openapi" || ecosystem === "protobuf" || ecosystem === "go" || ecosystem === "java" || ecosystem === "maven") return `${ecosystem}:${name}`;
  // (a crate is named with `-` in Cargo.toml and `_` in code)
  if (ecosystem === "cargo") return `cargo:${crateCodeName(name)}`;
  return null;
}

/** The key of a service contract's namespace (`src/contracts/`), as a use's module names it. */
const CONTRACT_KEY = /^(?:graphql|openapi|protobuf):[\w.]+$/;

/** Whether a package key is a service contract's (a GraphQL schema, an HTTP API, a protobuf package). */
export function isContractKey(key: string): boolean {
  return CONTRACT_KEY.test(key);
}

/** The name Rust code gives a crate: its Cargo name with `-` as `_` (`acme-store` is `acme_store::` in code). */
export function crateCodeName(name: string): string {
  return name.replace(/-/g, "_");
}

/** The top-level module Python code imports a distribution by, by convention (`Acme-Lib` is `acme_lib`). */
export function pythonModuleName(distribution: string): string {
  return normalizePythonName(distribution).replace(/-/g, "_");
}

/** PEP 503: lowercase, runs of `-`, `_` and `.` as one `-` (`Acme_Lib` and `acme-lib` are one distribution). */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** A package key as people write the package (`npm:@acme/lib` → `@acme/lib`; a contract's: what it is). */
export function packageLabel(key: string): string {
  if (key === "graphql:schema") return "the GraphQL schema";
  if (key === "openapi:http") return "the HTTP API";
  if (key.startsWith("protobuf:")) return `the protobuf package ${key.slice("protobuf:".length)}`;
  return key.slice(key.indexOf(":") + 1);
}
