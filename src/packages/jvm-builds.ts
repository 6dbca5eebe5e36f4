import { createRequire } from "node:module";
import { blanking } from "../parse/blank-spans.js";

const require = createRequire(import.meta.url);

/** What a Maven `pom.xml` says of its module: its coordinates, its submodules and the artifacts it depends on. */
export interface MavenPom {
  /** Its own `groupId`, else its parent's (a module inherits it). */
  readonly group: string | null;
  readonly artifact: string;
  readonly version: string | null;
  /** `<modules>`: folders relative to the pom's. */
  readonly modules: readonly string[];
  /** `group:artifact` of each `<dependency>` (of `<dependencies>`, not of `<dependencyManagement>`). */
  readonly dependencies: readonly string[];
}

type Node = Record<string, unknown>;
const asNode = (v: unknown): Node => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Node) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null);

/**
 * A `pom.xml`, read with fast-xml-parser (no entities expanded, no DTD read: a pom is untrusted text); null when it is
 * not XML or names no `artifactId`. A dependency's `${...}` is read from the pom's own coordinates and `<properties>`;
 * its own coordinates' are left as written.
 */
export function readPom(xml: string): MavenPom | null {
  const XMLParser = (require("fast-xml-parser") as typeof import("fast-xml-parser")).XMLParser;
  let doc: Node;
  try {
    doc = asNode(new XMLParser({ ignoreAttributes: true, processEntities: false, parseTagValue: false, ignoreDeclaration: true }).parse(xml));
  } catch {
    return null;
  }
  const project = asNode(doc["project"]);
  const artifact = text(project["artifactId"]);
  if (artifact === null) return null;
  const parent = asNode(project["parent"]);
  const group = text(project["groupId"]) ?? text(parent["groupId"]);
  const version = text(project["version"]) ?? text(parent["version"]);
  // A sibling is often declared through the pom's own coordinates or its properties (`${project.groupId}`,
  // `${acme.group}`): read as Maven reads them, one level deep; one this pom cannot say is left as written.
  const properties = new Map<string, string>();
  for (const [k, v] of Object.entries(asNode(project["properties"]))) {
    const t = text(v);
    if (t !== null && !t.includes("${")) properties.set(k, t);
  }
  for (const [k, v] of [
    ["project.groupId", group],
    ["pom.groupId", group],
    ["groupId", group],
    ["project.parent.groupId", text(parent["groupId"])],
    ["project.artifactId", artifact],
    ["project.version", version],
  ] as const)
    if (v !== null && !properties.has(k)) properties.set(k, v);
  const expand = (t: string | null): string | null => (t === null ? null : t.replace(/\$\{([\w.-]+)\}/g, (whole, k: string) => properties.get(k) ?? whole));
  const dependencies: string[] = [];
  for (const d of asList(asNode(project["dependencies"])["dependency"])) {
    const g = expand(text(asNode(d)["groupId"]));
    const a = expand(text(asNode(d)["artifactId"]));
    if (g !== null && a !== null) dependencies.push(`${g}:${a}`);
  }
  return {
    group,
    artifact,
    version,
    modules: asList(asNode(project["modules"])["module"])
      .map(text)
      .filter((m): m is string => m !== null),
    dependencies: [...new Set(dependencies)].sort(),
  };
}

/** A Gradle script with its comments blanked (strings kept: the coordinates are in them), in one pass. */
function gradleCode(script: string): string {
  const { blank, done } = blanking(script);
  // From one quote or slash to the next, by the engine's own searches, not a character at a time: indexing a string
  // one character at a time took a thousand times longer on some strings (a text built by concatenation, in a
  // process whose compiler had seen other texts first: 14 s for 1.6 MB).
  const next = /["'/]/g;
  // (the next line end, found again only once passed: a search from every quote would cost the text's square)
  let eol = -2;
  for (let m = next.exec(script); m !== null; m = next.exec(script)) {
    const i = m.index;
    const c = m[0];
    if (eol !== -1 && eol < i) eol = script.indexOf("\n", i);
    if (c === '"' || c === "'") {
      const close = script.indexOf(c, i + 1);
      next.lastIndex = close < 0 || (eol >= 0 && eol < close) ? (eol < 0 ? script.length : eol) : close + 1;
    } else if (script[i + 1] === "/" || script[i + 1] === "*") {
      const line = script[i + 1] === "/";
      const end = line ? script.indexOf("\n", i) : script.indexOf("*/", i + 2);
      const to = end < 0 ? script.length : line ? end : end + 2;
      blank(i, to);
      next.lastIndex = to;
    }
  }
  return done();
}

/**
 * A `settings.gradle(.kts)`: the root project's name and the projects it includes, as folders (`include(":app",
 * "libs:core")` and `include 'app'`: `app`, `libs/core`). A project moved elsewhere (`project(":x").projectDir =`) is
 * read at its default folder.
 */
export function readGradleSettings(script: string): { readonly rootName: string | null; readonly projects: readonly string[] } {
  const code = gradleCode(script);
  const projects = new Set<string>();
  for (const m of code.matchAll(/\binclude\s*\(?([^\n)]*)/g))
    for (const s of (m[1] ?? "").matchAll(/["']([^"']+)["']/g)) {
      const folder = (s[1] ?? "").replace(/^:/, "").replace(/:/g, "/");
      if (/^[\w.-]+(\/[\w.-]+)*$/.test(folder)) projects.add(folder);
    }
  const rootName = /\brootProject\.name\s*=\s*["']([^"']+)["']/.exec(code)?.[1] ?? null;
  return { rootName, projects: [...projects].sort() };
}

/**
 * A `build.gradle(.kts)`: its `group` and `version` (its own, or set for every project in `allprojects`/`subprojects`),
 * the artifacts it depends on (`implementation("g:a:v")`, `api 'g:a:v'`, `testImplementation group: 'g', name: 'a'`,
 * any configuration) and the projects of the same build it depends on (`project(":core")`: `core`).
 */
export function readGradleBuild(script: string): {
  readonly group: string | null;
  readonly version: string | null;
  readonly dependencies: readonly string[];
  readonly projects: readonly string[];
  /** What it reads of the build's version catalog, as accessors after `libs.` (`acme.store`, `bundles.web`). */
  readonly catalog: readonly string[];
} {
  const code = gradleCode(script);
  const dependencies = new Set<string>();
  for (const m of code.matchAll(/\b[a-z][A-Za-z]*\s*\(?\s*["']([\w.-]+):([\w.-]+)(?::[^"'\n]*)?["']/g)) dependencies.add(`${m[1]}:${m[2]}`);
  for (const m of code.matchAll(/\bgroup\s*[:=]\s*["']([\w.-]+)["']\s*,\s*name\s*[:=]\s*["']([\w.-]+)["']/g)) dependencies.add(`${m[1]}:${m[2]}`);
  const projects = new Set<string>();
  for (const m of code.matchAll(/\bproject\s*\(\s*(?:path\s*[:=]\s*)?["']:?([\w.:-]+)["']\s*\)/g)) projects.add((m[1] ?? "").replace(/:/g, "/"));
  const group = /(?:^|[\s{;])group\s*=\s*["']([\w.-]+)["']/m.exec(code)?.[1] ?? null;
  const version = /(?:^|[\s{;])version\s*=\s*["']([^"']+)["']/m.exec(code)?.[1] ?? null;
  // (`libs.versions.x` and `libs.plugins.x` name versions and plugins, not libraries)
  const catalog = new Set<string>();
  for (const m of code.matchAll(/(?<![\w.])libs\.((?:[A-Za-z]\w*\.)*[A-Za-z]\w*)/g)) {
    const accessor = (m[1] ?? "").replace(/\.(get|asProvider)$/, "");
    if (!/^(versions|plugins)\./.test(accessor)) catalog.add(accessor);
  }
  return { group, version, dependencies: [...dependencies].sort(), projects: [...projects].sort(), catalog: [...catalog].sort() };
}

/**
 * A `gradle.properties`: the `group` and `version` it gives the projects it applies to (a build script that sets
 * them wins). Java properties' syntax, as far as these need: `key=value`, `key: value` or `key value`, `#` and `!`
 * comments; a value's escapes and continued lines are not read.
 */
export function readGradleProperties(text: string): { readonly group: string | null; readonly version: string | null } {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([\w.-]+)\s*[=:\s]/.exec(line);
    if (m === null) continue;
    values.set(m[1] ?? "", line.slice(m[0].length).trim());
  }
  const value = (key: string): string | null => {
    const v = values.get(key);
    return v === undefined || v === "" ? null : v;
  };
  const group = value("group");
  return { group: group !== null && /^[\w.-]+$/.test(group) ? group : null, version: value("version") };
}

/**
 * A Gradle version catalog (`gradle/libs.versions.toml`): each library's `group:artifact` by the accessor a build
 * script reads it through after `libs.` (the alias with `-`, `_` and `.` as `.`: `acme-store` is `libs.acme.store`),
 * and each bundle's (`libs.bundles.web`) as its libraries'. Null when it is not TOML.
 */
export function readVersionCatalog(toml: string): Map<string, readonly string[]> | null {
  let doc: Node;
  try {
    doc = asNode((require("smol-toml") as typeof import("smol-toml")).parse(toml));
  } catch {
    return null;
  }
  const accessor = (alias: string): string => alias.replace(/[-_.]/g, ".");
  const libraries = new Map<string, string>();
  for (const [alias, spec] of Object.entries(asNode(doc["libraries"]))) {
    const s = asNode(spec);
    const coordinates = typeof spec === "string" ? /^([\w.-]+):([\w.-]+)/.exec(spec) : typeof s["module"] === "string" ? /^([\w.-]+):([\w.-]+)$/.exec(s["module"] as string) : null;
    const g = coordinates?.[1] ?? (typeof s["group"] === "string" ? (s["group"] as string) : null);
    const a = coordinates?.[2] ?? (typeof s["name"] === "string" ? (s["name"] as string) : null);
    if (g !== null && a !== null) libraries.set(alias, `${g}:${a}`);
  }
  const out = new Map<string, readonly string[]>();
  for (const [alias, module] of libraries) out.set(accessor(alias), [module]);
  for (const [bundle, list] of Object.entries(asNode(doc["bundles"]))) {
    const modules = asList(list).flatMap((alias) => {
      const m = typeof alias === "string" ? libraries.get(alias) : undefined;
      return m === undefined ? [] : [m];
    });
    out.set(`bundles.${accessor(bundle)}`, modules);
  }
  return out;
}
