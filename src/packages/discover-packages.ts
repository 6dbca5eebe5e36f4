import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { ParseError } from "jsonc-parser";
import { readGradleBuild, readGradleProperties, readGradleSettings, readPom } from "./jvm-builds.js";
import { compareStrings, diagnostic, type Diagnostic } from "../errors/diagnostic.js";

// The manifest parsers and the glob library are loaded on first use (through `require`: all four ship CommonJS): a
// repo without a pnpm, Cargo, Python or workspace manifest never pays for them (about 30 ms of a process together).
const require = createRequire(import.meta.url);
const lazy = <T>(id: string): (() => T) => {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
};
const fastGlob = lazy<typeof import("fast-glob")>("fast-glob");
const jsonc = lazy<typeof import("jsonc-parser")>("jsonc-parser");
const toml = lazy<typeof import("smol-toml")>("smol-toml");
const yaml = lazy<typeof import("js-yaml")>("js-yaml");
const parseJsonc: typeof import("jsonc-parser").parse = (...args) => jsonc().parse(...args);
const parseToml = (text: string): unknown => toml().parse(text);
// Bounded like every parse of a repo's text: no alias expansion, nesting capped.
const parseYaml = (text: string): unknown => yaml().load(text, { maxAliases: 100, maxDepth: 64 });

/** The ecosystem a package belongs to. npm covers npm, Yarn, Bun, pnpm, Lerna, Nx and Rush packages. */
export type Ecosystem = "npm" | "cargo" | "go" | "python" | "maven";

/** One package of a workspace. `path` is POSIX and relative to the repo root (`.` for the root). */
export interface PackageInfo {
  readonly name: string;
  readonly path: string;
  readonly ecosystem: Ecosystem;
  readonly version: string | null;
}

export interface PackagesResult {
  /** Sorted by path, then ecosystem; at most `maxPackages`. */
  readonly packages: readonly PackageInfo[];
  /** True when there were more than `maxPackages`. */
  readonly truncated: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

/** Folders never searched for members or `project.json` files. */
const IGNORED = ["**/node_modules/**", "**/.git/**", "**/target/**", "**/dist/**", "**/.venv/**", "**/__pycache__/**"];

/**
 * The packages of a repo's workspace, from the manifests at its root:
 * npm / Yarn / Bun `workspaces` (an array or `{packages}`),
 * `pnpm-workspace.yaml` (globs with `!` negations; the root counts),
 * `lerna.json`, Nx `project.json` files, Rush `rush.json`, Cargo
 * `[workspace]` members and excludes, `go.work` `use` directives (else a lone
 * `go.mod`), uv `[tool.uv.workspace]` members and excludes (else a lone
 * `pyproject.toml`). A member that declares a workspace of its own is
 * expanded too. A glob matching a folder without a manifest adds nothing; a
 * malformed manifest is a diagnostic and the rest still comes through.
 *
 * @example
 * discoverPackages("/work/monorepo").packages;
 * // [{ name: "root", path: ".", ecosystem: "npm", version: "1.0.0" }, { name: "@acme/api", path: "packages/api", ... }]
 */
export function discoverPackages(root: string, options: { maxPackages?: number } = {}): PackagesResult {
  const found = new Map<string, PackageInfo>();
  const diagnostics: Diagnostic[] = [];
  const ctx: Ctx = { root, found, diagnostics, visited: new Set(), parsed: new Map() };
  workspaceAt(ctx, ".", 0);
  nxProjects(ctx);
  const all = [...found.values()].sort((a, b) => compareStrings(a.path, b.path) || compareStrings(a.ecosystem, b.ecosystem));
  const max = options.maxPackages ?? 200;
  return { packages: all.slice(0, max), truncated: all.length > max, diagnostics: diagnostics.sort((a, b) => compareStrings(a.path ?? "", b.path ?? "")) };
}

interface Ctx {
  readonly root: string;
  readonly found: Map<string, PackageInfo>;
  readonly diagnostics: Diagnostic[];
  readonly visited: Set<string>;
  /** Each manifest is read and parsed once (a member is read as a member, then as a workspace). */
  readonly parsed: Map<string, unknown>;
}

function add(ctx: Ctx, p: PackageInfo): void {
  ctx.found.set(`${p.path}\0${p.ecosystem}`, p);
}

/** Reads and parses one manifest; a missing file is null, a malformed one is a diagnostic and null. */
function read<T>(ctx: Ctx, rel: string, parse: (text: string) => T): T | null {
  if (ctx.parsed.has(rel)) return ctx.parsed.get(rel) as T | null;
  const value = readUncached(ctx, rel, parse);
  ctx.parsed.set(rel, value);
  return value;
}

function readUncached<T>(ctx: Ctx, rel: string, parse: (text: string) => T): T | null {
  let text: string;
  try {
    // A leading UTF-8 byte order mark is read past, as npm and the other tools read their manifests.
    text = fs.readFileSync(path.join(ctx.root, rel), "utf8").replace(/^\uFEFF/, "");
  } catch {
    return null;
  }
  // An empty manifest (an empty lerna.json, say) says nothing: worth knowing, not a warning.
  if (text.trim() === "") {
    ctx.diagnostics.push(diagnostic("empty_manifest", "info", rel, "empty: read as saying nothing"));
    return null;
  }
  try {
    return parse(text);
  } catch (error) {
    ctx.diagnostics.push(diagnostic("bad_manifest", "warning", rel, `cannot parse: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`));
    return null;
  }
}

function json(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) throw new Error(`JSON syntax error at offset ${errors[0]?.offset ?? 0}`);
  return value;
}

function record(v: unknown): Record<string, unknown> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** Folders (relative to the repo root) matching globs relative to `base`, minus `!` negations and excludes. */
function matchDirs(ctx: Ctx, base: string, patterns: readonly string[], excludes: readonly string[] = []): string[] {
  const positive = patterns.filter((p) => !p.startsWith("!")).map((p) => p.replace(/^\.\//, "").replace(/\/+$/, ""));
  const negative = [...patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1)), ...excludes].map((p) => p.replace(/^\.\//, "").replace(/\/+$/, ""));
  if (positive.length === 0) return [];
  const cwd = path.join(ctx.root, base);
  const dirs = fastGlob().sync(positive, { cwd, onlyDirectories: true, ignore: [...IGNORED, ...negative], dot: false, followSymbolicLinks: false, unique: true });
  // `.` itself can be a member (`members = ["."]`).
  if (positive.includes(".")) dirs.push(".");
  return dirs.map((d) => posix(path.join(base, d)));
}

function posix(p: string): string {
  const n = path.normalize(p).split(path.sep).join("/");
  return n === "" ? "." : n;
}

/** All the manifests a folder may hold, and the workspaces they declare. */
function workspaceAt(ctx: Ctx, dir: string, depth: number): void {
  if (ctx.visited.has(dir) || depth > 8) return;
  ctx.visited.add(dir);
  const rel = (f: string): string => posix(path.join(dir, f));

  // npm, Yarn, Bun: package.json `workspaces`; pnpm: pnpm-workspace.yaml; Lerna: lerna.json; Rush: rush.json.
  const pkg = record(read(ctx, rel("package.json"), json));
  if (pkg !== null) npmPackage(ctx, dir, pkg);
  const npmGlobs: string[] = [];
  if (pkg !== null) {
    const ws = pkg["workspaces"];
    npmGlobs.push(...strings(ws), ...strings(record(ws)?.["packages"]));
  }
  const pnpm = record(read(ctx, rel("pnpm-workspace.yaml"), (t) => parseYaml(t) as unknown));
  if (pnpm !== null) npmGlobs.push(...strings(pnpm["packages"]));
  const lerna = record(read(ctx, rel("lerna.json"), json));
  if (lerna !== null) npmGlobs.push(...(strings(lerna["packages"]).length > 0 ? strings(lerna["packages"]) : ["packages/*"]));
  for (const member of matchDirs(ctx, dir, npmGlobs)) {
    const m = record(read(ctx, posix(path.join(member, "package.json")), json));
    if (m !== null) npmPackage(ctx, member, m);
    workspaceAt(ctx, member, depth + 1);
  }
  const rush = record(read(ctx, rel("rush.json"), json));
  for (const project of Array.isArray(rush?.["projects"]) ? (rush["projects"] as unknown[]) : []) {
    const p = record(project);
    const folder = str(p?.["projectFolder"]);
    const name = str(p?.["packageName"]);
    if (folder === null || name === null) continue;
    const where = posix(path.join(dir, folder));
    const m = record(read(ctx, posix(path.join(where, "package.json")), json));
    add(ctx, { name, path: where, ecosystem: "npm", version: str(m?.["version"]) });
  }

  // Cargo: [workspace] members / exclude, and a root [package].
  const cargo = record(read(ctx, rel("Cargo.toml"), (t) => parseToml(t) as unknown));
  if (cargo !== null) {
    cargoPackage(ctx, dir, cargo);
    const ws = record(cargo["workspace"]);
    if (ws !== null) {
      for (const member of matchDirs(ctx, dir, strings(ws["members"]), strings(ws["exclude"]))) {
        const m = record(read(ctx, posix(path.join(member, "Cargo.toml")), (t) => parseToml(t) as unknown));
        if (m !== null) cargoPackage(ctx, member, m);
      }
    }
  }

  // Go: go.work `use` directives, else a lone go.mod.
  const work = read(ctx, rel("go.work"), (t) => t);
  if (work !== null) {
    for (const use of goWorkUses(work)) goModule(ctx, posix(path.join(dir, use)));
  } else {
    goModule(ctx, dir);
  }

  // Maven: pom.xml `<modules>`; Gradle: settings.gradle(.kts) `include`s. Each module as `group:artifact`.
  mavenModule(ctx, dir, 0);
  gradleBuild(ctx, dir);

  // Python: uv [tool.uv.workspace] members / exclude, else a lone pyproject.toml, else setuptools' setup.cfg or
  // setup.py (many established projects still name themselves only there).
  const py = record(read(ctx, rel("pyproject.toml"), (t) => parseToml(t) as unknown));
  if (py === null || !pythonProject(ctx, dir, py)) setuptoolsProject(ctx, dir);
  if (py !== null) {
    const ws = record(record(record(py["tool"])?.["uv"])?.["workspace"]);
    if (ws !== null) {
      for (const member of matchDirs(ctx, dir, strings(ws["members"]), strings(ws["exclude"]))) {
        const m = record(read(ctx, posix(path.join(member, "pyproject.toml")), (t) => parseToml(t) as unknown));
        if (m !== null) pythonProject(ctx, member, m);
      }
    }
  }
}

function npmPackage(ctx: Ctx, dir: string, pkg: Record<string, unknown>): void {
  const name = str(pkg["name"]);
  // A workspace root without a name is only a container (npm and Yarn require none).
  if (name === null) return;
  add(ctx, { name, path: dir, ecosystem: "npm", version: str(pkg["version"]) });
}

function cargoPackage(ctx: Ctx, dir: string, cargo: Record<string, unknown>): void {
  const p = record(cargo["package"]);
  const name = str(p?.["name"]);
  if (name === null) return;
  const v = p?.["version"];
  add(ctx, { name, path: dir, ecosystem: "cargo", version: typeof v === "string" ? v : null });
}

/** A pyproject.toml's package (PEP 621 `[project]`, else Poetry's); false when it names none. */
function pythonProject(ctx: Ctx, dir: string, py: Record<string, unknown>): boolean {
  const project = record(py["project"]);
  const poetry = record(record(py["tool"])?.["poetry"]);
  const name = str(project?.["name"]) ?? str(poetry?.["name"]);
  if (name === null) return false;
  add(ctx, { name, path: dir, ecosystem: "python", version: str(project?.["version"]) ?? str(poetry?.["version"]) });
  return true;
}

/**
 * A setuptools package: `[metadata] name` of setup.cfg, else a literal `name="..."` in setup.py's `setup(...)` call
 * (read as text, never run; a computed name is not known). Its version only when it is a literal too.
 */
function setuptoolsProject(ctx: Ctx, dir: string): void {
  const rel = (f: string): string => (dir === "." ? f : `${dir}/${f}`);
  const cfg = read(ctx, rel("setup.cfg"), (t) => setupCfgMetadata(t));
  const fromPy = cfg?.name === undefined ? read(ctx, rel("setup.py"), (t) => setupPyMetadata(t)) : null;
  const meta = cfg?.name !== undefined ? cfg : fromPy;
  if (meta?.name === undefined) return;
  add(ctx, { name: meta.name, path: dir, ecosystem: "python", version: meta.version ?? null });
}

interface SetupMetadata {
  readonly name?: string;
  readonly version?: string;
}

const PY_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** `[metadata]`'s `name` and `version` of a setup.cfg (an INI file; `attr:` and `file:` versions are not literals). */
export function setupCfgMetadata(text: string): SetupMetadata {
  let section = "";
  const out: { name?: string; version?: string } = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) section = (header[1] ?? "").trim().toLowerCase();
    else if (section === "metadata") {
      const kv = /^(name|version)\s*[=:]\s*(\S+)$/.exec(line);
      if (kv?.[2] !== undefined && PY_NAME.test(kv[2])) out[kv[1] as "name" | "version"] = kv[2];
    }
  }
  return out;
}

/** A literal `name=` and `version=` among the keywords of setup.py's `setup(...)` call. */
export function setupPyMetadata(text: string): SetupMetadata {
  const call = /\bsetup\s*\(/.exec(text);
  if (call === null) return {};
  const args = text.slice(call.index);
  const literal = (key: string): string | undefined => {
    const m = new RegExp(`[(,\\s]${key}\\s*=\\s*(['"])([^'"\\n]+)\\1`).exec(args);
    return m?.[2] !== undefined && PY_NAME.test(m[2]) ? m[2] : undefined;
  };
  const name = literal("name");
  const version = literal("version");
  return { ...(name === undefined ? {} : { name }), ...(version === undefined ? {} : { version }) };
}

/** A Maven module (`group:artifact`, the group inherited from its parent when it has none) and its `<modules>`. */
function mavenModule(ctx: Ctx, dir: string, depth: number): void {
  if (depth > 8) return;
  const pom = read(ctx, posix(path.join(dir, "pom.xml")), (t) => t);
  if (pom === null) return;
  const m = readPom(pom);
  if (m === null) {
    ctx.diagnostics.push(diagnostic("bad_manifest", "warning", posix(path.join(dir, "pom.xml")), "not a Maven project (no artifactId)"));
    return;
  }
  add(ctx, { name: `${m.group ?? m.artifact}:${m.artifact}`, path: dir, ecosystem: "maven", version: m.version });
  for (const module of m.modules) mavenModule(ctx, posix(path.join(dir, module)), depth + 1);
}

/**
 * A Gradle build: the projects its settings include, each `group:artifact` (the project's own `group`, else the root
 * build's, which `allprojects` or `subprojects` usually sets, else the project's or the build's `gradle.properties`;
 * the artifact is the project's folder name, the root's `rootProject.name`).
 */
function gradleBuild(ctx: Ctx, dir: string): void {
  const script = (f: string) => read(ctx, posix(path.join(dir, f)), (t) => t);
  const settings = script("settings.gradle.kts") ?? script("settings.gradle");
  const rootScript = script("build.gradle.kts") ?? script("build.gradle");
  if (settings === null && rootScript === null) return;
  const { rootName, projects } = readGradleSettings(settings ?? "");
  const root = readGradleBuild(rootScript ?? "");
  // (a build's `gradle.properties` gives its projects their group and version where no script sets them)
  const properties = (at: string) => readGradleProperties(read(ctx, posix(path.join(at, "gradle.properties")), (t) => t) ?? "");
  const rootProperties = properties(dir);
  const here = dir === "." ? path.basename(ctx.root) : path.posix.basename(dir);
  const rootArtifact = rootName ?? here;
  if (rootScript !== null) add(ctx, { name: `${root.group ?? rootProperties.group ?? rootArtifact}:${rootArtifact}`, path: dir, ecosystem: "maven", version: root.version ?? rootProperties.version });
  for (const project of projects) {
    const at = posix(path.join(dir, project));
    const own = read(ctx, posix(path.join(at, "build.gradle.kts")), (t) => t) ?? read(ctx, posix(path.join(at, "build.gradle")), (t) => t);
    const b = readGradleBuild(own ?? "");
    const p = properties(at);
    const artifact = path.posix.basename(project);
    const group = b.group ?? root.group ?? p.group ?? rootProperties.group ?? rootArtifact;
    add(ctx, { name: `${group}:${artifact}`, path: at, ecosystem: "maven", version: b.version ?? root.version ?? p.version ?? rootProperties.version });
  }
}

function goModule(ctx: Ctx, dir: string): void {
  const mod = read(ctx, posix(path.join(dir, "go.mod")), (t) => t);
  if (mod === null) return;
  const m = /^\s*module\s+("?)([^\s"]+)\1/m.exec(mod);
  if (m?.[2] === undefined) {
    ctx.diagnostics.push(diagnostic("bad_manifest", "warning", posix(path.join(dir, "go.mod")), "no module directive"));
    return;
  }
  add(ctx, { name: m[2], path: dir, ecosystem: "go", version: null });
}

/** `use ./a` and `use ( ./a \n ./b )` (comments and quotes allowed), as the go command reads them. */
export function goWorkUses(text: string): string[] {
  const out: string[] = [];
  const clean = text.replace(/\/\/.*$/gm, "");
  for (const m of clean.matchAll(/^\s*use\s*\(([^)]*)\)/gm)) {
    for (const line of (m[1] ?? "").split("\n")) {
      const t = line.trim().replace(/^"(.*)"$/, "$1");
      if (t !== "") out.push(t);
    }
  }
  for (const m of clean.matchAll(/^\s*use\s+("?)([^\s"(]+)\1\s*$/gm)) if (m[2] !== undefined) out.push(m[2]);
  return out;
}

/** Nx: every `project.json` is a project, named by its `name` field or its folder. */
function nxProjects(ctx: Ctx): void {
  if (!fs.existsSync(path.join(ctx.root, "nx.json"))) return;
  for (const file of fastGlob().sync("**/project.json", { cwd: ctx.root, ignore: IGNORED, dot: false })) {
    const dir = posix(path.dirname(file));
    const p = record(read(ctx, file, json));
    if (p === null || ctx.found.has(`${dir}\0npm`)) continue;
    add(ctx, { name: str(p["name"]) ?? path.basename(dir === "." ? ctx.root : dir), path: dir, ecosystem: "npm", version: null });
  }
}
