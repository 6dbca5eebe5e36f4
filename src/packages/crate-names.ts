import * as path from "node:path";
import { createRequire } from "node:module";
import { crateCodeName as codeName } from "./package-of-import.js";
import { nodeTextReader, type TextReader } from "./public-names.js";

const require = createRequire(import.meta.url);

/** The dependency tables of a Cargo manifest, as code sees them; a target's own (`[target.'cfg(unix)'.dependencies]`) too. */
const DEPENDENCY_TABLES = ["dependencies", "dev-dependencies", "build-dependencies"];

type Table = Record<string, unknown>;
const table = (v: unknown): Table => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Table) : {});

function parseToml(text: string | null): Table | null {
  if (text === null) return null;
  try {
    return (require("smol-toml") as typeof import("smol-toml")).parse(text) as Table;
  } catch {
    return null;
  }
}

/** Every dependency table of a Cargo manifest: the top-level ones, then each target's. */
export function cargoDependencyTables(doc: Readonly<Record<string, unknown>>): Table[] {
  const out = DEPENDENCY_TABLES.map((t) => table(doc[t]));
  for (const target of Object.values(table(doc["target"]))) for (const t of DEPENDENCY_TABLES) out.push(table(table(target)[t]));
  return out;
}

/** The crate a Cargo dependency entry names: the `package` it renames (`store = { package = "acme-store" }`), else its key. */
export function dependencyCrate(key: string, spec: unknown): string {
  const renamed = table(spec)["package"];
  return typeof renamed === "string" ? renamed : key;
}

/**
 * The names a crate's code gives the crates it depends on, where they are not the crates' own (`acme-store` is
 * `acme_store` in code, and needs none): a dependency renamed in its manifest (`store = { package = "acme-store" }`,
 * used as `store::open`), or inherited so from its workspace (`store = { workspace = true }` and the workspace's
 * `[workspace.dependencies]`), and a path dependency whose library has a name of its own (`[lib] name = "acmestore"`
 * in its manifest, used as `acmestore::open`). Keys as code writes them, values the crates' names as Cargo.toml
 * writes them. `manifestDir` is the crate's folder; the workspace's manifest is looked for above it, up to `stopAt`
 * (the repo's root). A manifest that is missing or does not parse gives no names.
 */
export function crateCodeNames(manifestDir: string, stopAt: string, reader: TextReader = nodeTextReader): Map<string, string> {
  const out = new Map<string, string>();
  const doc = parseToml(reader.read(path.join(manifestDir, "Cargo.toml")));
  if (doc === null) return out;
  let workspace: { dir: string; deps: Table } | null | undefined;
  const workspaceDeps = (): { dir: string; deps: Table } | null => {
    if (workspace !== undefined) return workspace;
    workspace = null;
    // The crate's own manifest may be the workspace's; else the nearest one above it that declares a workspace.
    for (let dir = manifestDir; ; dir = path.dirname(dir)) {
      const ws = dir === manifestDir ? doc : parseToml(reader.read(path.join(dir, "Cargo.toml")));
      if (ws !== null && ws["workspace"] !== undefined) {
        workspace = { dir, deps: table(table(ws["workspace"])["dependencies"]) };
        break;
      }
      const rel = path.relative(stopAt, dir);
      if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel) || path.dirname(dir) === dir) break;
    }
    return workspace;
  };
  for (const deps of cargoDependencyTables(doc)) {
    for (const [key, raw] of Object.entries(deps)) {
      let spec = table(raw);
      let base = manifestDir;
      if (spec["workspace"] === true) {
        const ws = workspaceDeps();
        if (ws === null) continue;
        // (the member's own `package` would be an error to Cargo: the workspace's entry says what it is)
        spec = table(ws.deps[key]);
        base = ws.dir;
      }
      if (typeof spec["package"] === "string") {
        const crate = dependencyCrate(key, spec);
        if (codeName(key) !== codeName(crate)) out.set(codeName(key), crate);
        continue;
      }
      // Not renamed: code names it by its library's name, which its own manifest may set.
      if (typeof spec["path"] !== "string") continue;
      const lib = table(parseToml(reader.read(path.join(base, spec["path"] as string, "Cargo.toml")))?.["lib"]);
      if (typeof lib["name"] === "string" && codeName(lib["name"] as string) !== codeName(key)) out.set(codeName(lib["name"] as string), key);
    }
  }
  return out;
}

/** The folder of the crate whose code `file` is (its nearest `Cargo.toml` at or under `repoRoot`), or null. */
export function crateDirOf(repoRoot: string, file: string, reader: TextReader = nodeTextReader): string | null {
  for (let dir = path.dirname(path.resolve(repoRoot, file)); ; dir = path.dirname(dir)) {
    if (reader.read(path.join(dir, "Cargo.toml")) !== null) return dir;
    const rel = path.relative(repoRoot, dir);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel) || path.dirname(dir) === dir) return null;
  }
}

/**
 * A Rust file's references with each crate named as its manifest names it (`store` → `acme-store` where the crate's
 * Cargo.toml renamed it so), so that they meet the crate's package, not the name code gives it. Other files' as they are.
 */
export function withCrateNames<T extends { readonly module?: string | null | undefined }>(file: string, refs: readonly T[], names: ReadonlyMap<string, string>): T[] {
  if (!file.endsWith(".rs") || names.size === 0) return [...refs];
  return refs.map((r) => {
    const crate = typeof r.module === "string" ? names.get(r.module) : undefined;
    return crate === undefined ? r : { ...r, module: crate };
  });
}

/** The code names of a repo's crates, each crate's manifest read once: by crate folder, and by Rust file. */
export interface CrateNames {
  /** `crateCodeNames` of the crate in folder `dir` (absolute). */
  ofCrate(dir: string): ReadonlyMap<string, string>;
  /** Those of a Rust file's crate (its nearest manifest); none for files of other languages, which read nothing. */
  ofFile(file: string): ReadonlyMap<string, string>;
}

export function createCrateNames(repoRoot: string, reader: TextReader = nodeTextReader): CrateNames {
  const byCrate = new Map<string, Map<string, string>>();
  const none: ReadonlyMap<string, string> = new Map();
  const ofCrate = (dir: string): ReadonlyMap<string, string> => {
    let names = byCrate.get(dir);
    if (names === undefined) {
      names = crateCodeNames(dir, repoRoot, reader);
      byCrate.set(dir, names);
    }
    return names;
  };
  return {
    ofCrate,
    ofFile(file) {
      if (!file.endsWith(".rs")) return none;
      const dir = crateDirOf(repoRoot, file, reader);
      return dir === null ? none : ofCrate(dir);
    },
  };
}
