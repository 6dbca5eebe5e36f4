import * as path from "node:path";
import { createRequire } from "node:module";
import { compareStrings } from "../errors/diagnostic.js";
import { cargoDependencyTables, dependencyCrate } from "./crate-names.js";
import { packageKey } from "./package-of-import.js";
import { readGradleBuild, readPom, readVersionCatalog } from "./jvm-builds.js";
import { nodeTextReader, type TextReader } from "./public-names.js";

/** At most this many dependencies are sent for a repo. */
export const MAX_DEPENDENCIES = 500;

const require = createRequire(import.meta.url);

/**
 * The packages a repo's manifests declare they depend on, as package keys (`npm:@acme/lib`, `python:acme-lib`):
 * package.json `dependencies`, `devDependencies`, `peerDependencies`, `optionalDependencies`; pyproject's
 * `[project] dependencies`, optional dependencies, `[tool.uv.sources]` and Poetry's dependencies. Names only, never
 * versions or paths. A manifest that does not parse is skipped. Sorted, at most {@link MAX_DEPENDENCIES}.
 */
export function declaredDependencies(repoRoot: string, packages: ReadonlyArray<{ path: string; ecosystem: string; name?: string }>, reader: TextReader = nodeTextReader): string[] {
  const out = new Set<string>();
  const add = (ecosystem: string, name: string): void => {
    const key = packageKey(ecosystem, name.trim());
    if (key !== null && name.trim() !== "") out.add(key);
  };
  // (a Gradle project's own dependency `project(":core")` names a folder: the module discovered there)
  const moduleAt = new Map(packages.filter((p) => p.ecosystem === "maven").map((p) => [p.path, p.name ?? ""]));
  const catalogs = new Map<string, Map<string, readonly string[]> | null>();
  const dirs = new Map<string, Set<string>>();
  for (const p of [
    { path: ".", ecosystem: "npm" },
    { path: ".", ecosystem: "python" },
    { path: ".", ecosystem: "go" },
    { path: ".", ecosystem: "cargo" },
    { path: ".", ecosystem: "maven" },
    ...packages,
  ])
    dirs.set(p.path, new Set([...(dirs.get(p.path) ?? []), p.ecosystem]));
  for (const [dir, ecosystems] of dirs) {
    if (ecosystems.has("npm")) {
      const text = reader.read(path.join(repoRoot, dir, "package.json"));
      if (text !== null) {
        try {
          const m = JSON.parse(text) as Record<string, unknown>;
          for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
            const deps = m[field];
            if (typeof deps === "object" && deps !== null) for (const name of Object.keys(deps)) add("npm", name);
          }
        } catch {
          // not JSON: nothing declared that can be read
        }
      }
    }
    if (ecosystems.has("python")) {
      const text = reader.read(path.join(repoRoot, dir, "pyproject.toml"));
      if (text !== null) {
        try {
          const doc = (require("smol-toml") as typeof import("smol-toml")).parse(text) as Record<string, unknown>;
          const table = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
          const requirement = (r: unknown) => (typeof r === "string" ? /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(r)?.[1] : undefined);
          const project = table(doc["project"]);
          for (const r of Array.isArray(project["dependencies"]) ? project["dependencies"] : []) {
            const n = requirement(r);
            if (n !== undefined) add("python", n);
          }
          for (const group of Object.values(table(project["optional-dependencies"]))) {
            for (const r of Array.isArray(group) ? group : []) {
              const n = requirement(r);
              if (n !== undefined) add("python", n);
            }
          }
          for (const n of Object.keys(table(table(table(doc["tool"])["uv"])["sources"]))) add("python", n);
          for (const n of Object.keys(table(table(table(doc["tool"])["poetry"])["dependencies"]))) if (n.toLowerCase() !== "python") add("python", n);
        } catch {
          // not TOML: nothing declared that can be read
        }
      }
    }
    if (ecosystems.has("cargo")) {
      const text = reader.read(path.join(repoRoot, dir, "Cargo.toml"));
      if (text !== null) {
        try {
          const doc = (require("smol-toml") as typeof import("smol-toml")).parse(text) as Record<string, unknown>;
          const table = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
          // (a renamed dependency is its crate's: `store = { package = "acme-store" }` depends on acme-store)
          for (const deps of cargoDependencyTables(doc)) for (const [n, spec] of Object.entries(deps)) add("cargo", dependencyCrate(n, spec));
          for (const [n, spec] of Object.entries(table(table(doc["workspace"])["dependencies"]))) add("cargo", dependencyCrate(n, spec));
        } catch {
          // not TOML: nothing declared that can be read
        }
      }
    }
    if (ecosystems.has("maven")) {
      // pom.xml `<dependencies>`; build.gradle(.kts) artifacts of any configuration and the build's own projects.
      const pom = reader.read(path.join(repoRoot, dir, "pom.xml"));
      if (pom !== null) for (const d of readPom(pom)?.dependencies ?? []) add("maven", d);
      const gradle = reader.read(path.join(repoRoot, dir, "build.gradle.kts")) ?? reader.read(path.join(repoRoot, dir, "build.gradle"));
      if (gradle !== null) {
        const build = readGradleBuild(gradle);
        for (const d of build.dependencies) add("maven", d);
        // What it reads of the build's version catalog (`implementation(libs.acme.store)`): the catalog's artifacts.
        if (build.catalog.length > 0) {
          const catalog = versionCatalogOf(repoRoot, dir, reader, catalogs);
          for (const accessor of build.catalog) for (const d of catalog?.get(accessor) ?? []) add("maven", d);
        }
        for (const project of build.projects) {
          const module = moduleAt.get(project);
          if (module !== undefined) add("maven", module);
        }
      }
    }
    if (ecosystems.has("go")) {
      // go.mod: `require m v1.2.3` and each line of a `require (...)` block; a module stands for its packages.
      const text = reader.read(path.join(repoRoot, dir, "go.mod"));
      if (text !== null) {
        for (const m of text.matchAll(/^require\s+([^\s()]+)\s+v\S+/gm)) add("go", m[1] ?? "");
        for (const block of text.matchAll(/^require\s*\(([^)]*)\)/gm)) for (const m of (block[1] ?? "").matchAll(/^\s*([^\s/]+\/[^\s]+)\s+v\S+/gm)) add("go", m[1] ?? "");
      }
    }
  }
  return [...out].sort(compareStrings).slice(0, MAX_DEPENDENCIES);
}

/**
 * The version catalog of the Gradle build a project folder is in: the nearest `gradle/libs.versions.toml` at or above
 * it in the repo, read once for all the build's projects (`read`, by the catalog's path).
 */
function versionCatalogOf(repoRoot: string, dir: string, reader: TextReader, read: Map<string, Map<string, readonly string[]> | null>): Map<string, readonly string[]> | null {
  for (let at = path.join(repoRoot, dir); ; at = path.dirname(at)) {
    const file = path.join(at, "gradle", "libs.versions.toml");
    if (read.has(file)) return read.get(file) ?? null;
    const toml = reader.read(file);
    if (toml !== null) {
      const catalog = readVersionCatalog(toml);
      read.set(file, catalog);
      return catalog;
    }
    const rel = path.relative(repoRoot, at);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return null;
  }
}
