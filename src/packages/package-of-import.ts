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

/** The key of a published package: `npm:<name>`, `python:<normalised name>`; null for ecosystems not compared yet. */
export function packageKey(ecosystem: string, name: string): string | null {
  if (ecosystem === "npm") return `npm:${name}`;
  if (ecosystem === "python") return `python:${normalizePythonName(name)}`;
  return null;
}

/** PEP 503: lowercase, runs of `-`, `_` and `.` as one `-` (`Acme_Lib` and `acme-lib` are one distribution). */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** A package key as people write the package (`npm:@acme/lib` → `@acme/lib`). */
export function packageLabel(key: string): string {
  return key.slice(key.indexOf(":") + 1);
}
