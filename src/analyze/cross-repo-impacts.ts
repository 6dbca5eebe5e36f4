import * as fs from "node:fs";
import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { filesContaining } from "./files-containing.js";
import { createCrateNames, withCrateNames } from "../packages/crate-names.js";
import { declaredDependencies } from "../packages/declared-dependencies.js";
import { crateCodeName, packageKey, packageOfImport, pythonModuleName } from "../packages/package-of-import.js";
import { memoTextReader, packageExposure, packageOwning, subpathExposure } from "../packages/public-names.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import { languageOf } from "../symbols/languages.js";
import { scanImports, scanLanguageOf } from "../symbols/scan-imports.js";
import { packageUseReaches, topName } from "../coordination/uses-symbol.js";

/** A breaking change in one repo's package that another repo under the folder imports. */
export interface CrossRepoImpact {
  /** The repo that publishes the package, relative to the analysed folder. */
  readonly publisher: string;
  /** The package as its manifest names it (`@acme/lib`, `acme-lib`), and its ecosystem. */
  readonly package: string;
  readonly ecosystem: "npm" | "python" | "go" | "cargo" | "java";
  /** The changed file, relative to the publisher's root. */
  readonly path: string;
  readonly qualified_name: string;
  /** The name the consumer imports it under from the package. */
  readonly public_name: string;
  readonly change: string;
  readonly reasons: readonly string[];
  /** The repo that depends on the package and imports the symbol. */
  readonly consumer: string;
  /** The consumer's files that import it, relative to its root. */
  readonly files: readonly string[];
  /**
   * The consumer's packages those files belong to (the nearest manifest above each; `path` "." for the repo's root,
   * name "" for files under none), with how many files each, most first.
   */
  readonly consumer_packages: ReadonlyArray<{ readonly name: string; readonly path: string; readonly files: number }>;
}

export interface ImpactRepo {
  /** Relative to the analysed folder. */
  readonly root: string;
  readonly abs: string;
  /** Repos that are one repo (clones and worktrees) share it: none is a consumer of another's packages. */
  readonly family: string;
  readonly packages: ReadonlyArray<{ name: string; path: string; ecosystem: string }>;
  readonly changes: ReadonlyArray<{ path: string; symbols: readonly SymbolChange[] | null }>;
  /** Whether `changes` lists every file that differs from HEAD (see `SearchedRepo`). */
  readonly complete?: boolean;
}

/** Who uses the breaking changes of a folder's packages: other repos, and the other packages of the publisher's repo. */
export interface PackageUsers {
  /** In other repos under the folder ({@link crossRepoImpacts}). */
  readonly across: readonly CrossRepoImpact[];
  /** In the publisher's own repo, outside the package (a monorepo's other workspace packages): consumer is publisher. */
  readonly within: readonly CrossRepoImpact[];
}

/**
 * The breaking changes of each repo's packages that other repos under the folder use: for every breaking,
 * exported symbol change, its package and public names (through the package's entry), then every other repo that
 * declares a dependency on that package and has files importing one of those names from it (found with `git grep`
 * for the package's name, then confirmed by an import scan of each file: an import of the name, or of the module that
 * holds it). A clone or worktree of the publisher, or a repo that publishes the same package (a fork), is not a
 * consumer: its imports are of its own copy. Sorted by publisher, path, name, consumer.
 */
export async function crossRepoImpacts(repos: readonly ImpactRepo[], where: GitConfigEnv): Promise<CrossRepoImpact[]> {
  return [...(await packageUsers(repos, where, { within: false })).across];
}

/**
 * {@link crossRepoImpacts}, and the same inside each publisher's repo: the files of its other packages (a
 * monorepo's workspace packages, found the same way: by the package's name, then an import scan) that import a
 * broken symbol by the package's name. A file of the publishing package itself imports it by a relative path, and is
 * not counted.
 */
export async function packageUsers(repos: readonly ImpactRepo[], where: GitConfigEnv, options: { within: boolean } = { within: true }): Promise<PackageUsers> {
  type Broken = { publisher: ImpactRepo; key: string; name: string; ecosystem: "npm" | "python" | "go" | "cargo" | "java"; pkgPath: string; path: string; change: SymbolChange; publicNames: string[] };
  const broken: Broken[] = [];
  // (the publishers' files, read once for the subpaths of their packages that consumers import whole, and what each
  // subpath exposes of a changed symbol, found once for all consumers)
  const reader = memoTextReader();
  const subpathNames = new Map<string, string[]>();
  for (const r of repos) {
    for (const c of r.changes) {
      // A contract's symbols (GraphQL SDL, ...) are not its package's exports: no import of the package uses them.
      if (languageOf(c.path) === null) continue;
      // (a server file's route changes are the HTTP API's, not its package's: `contract-users.ts` follows them)
      const breaking = (c.symbols ?? []).filter((s) => s.compatibility === "breaking" && s.exported && s.kind !== "operation");
      if (breaking.length === 0) continue;
      const tops = [...new Set(breaking.map((s) => topName(s.qualified_name)))];
      const exposure = packageExposure(r.abs, c.path, tops);
      if (exposure.package === null) continue;
      const key = packageKey(exposure.package.ecosystem, exposure.package.name);
      if (key === null) continue;
      for (const s of breaking) {
        const names = exposure.names.get(topName(s.qualified_name)) ?? [];
        if (names.length > 0)
          broken.push({ publisher: r, key, name: exposure.package.name, ecosystem: exposure.package.ecosystem, pkgPath: exposure.package.path, path: c.path, change: s, publicNames: names });
      }
    }
  }
  if (broken.length === 0) return { across: [], within: [] };
  const out: CrossRepoImpact[] = [];
  const inside: CrossRepoImpact[] = [];
  const depsOf = new Map<string, Set<string>>();
  const importsOf = new Map<string, Map<string, Array<{ name: string; module: string; key: string | null }>>>();
  for (const consumer of repos) {
    const own = new Set(consumer.packages.map((p) => packageKey(p.ecosystem, p.name)));
    const wanted = broken.filter((b) => b.publisher.family !== consumer.family && !own.has(b.key));
    const mine = options.within ? broken.filter((b) => b.publisher === consumer) : [];
    if (wanted.length === 0 && mine.length === 0) continue;
    let deps = depsOf.get(consumer.root);
    if (deps === undefined && wanted.length > 0) {
      deps = new Set(declaredDependencies(consumer.abs, consumer.packages));
      depsOf.set(consumer.root, deps);
    }
    const relevant = [...wanted.filter((b) => deps !== undefined && declares(deps, b.key, javaModuleOf(b))), ...mine];
    if (relevant.length === 0) continue;
    // The consumer's files that name one of these packages, then what each imports from them.
    // Python code imports a distribution by its normalised name with `_` (`acme-lib` → `acme_lib`).
    const needles: string[] = [...new Set(relevant.map((b) => (b.ecosystem === "python" ? pythonModuleName(b.name) : b.ecosystem === "cargo" ? crateCodeName(b.name) : b.name)))];
    // A crate is also what the consumer's manifests rename it to (`store = { package = "acme-store" }`: `store::open`).
    const crateNames = createCrateNames(consumer.abs, reader);
    const crates = new Set(relevant.filter((b) => b.ecosystem === "cargo").map((b) => crateCodeName(b.name)));
    if (crates.size > 0)
      for (const dir of new Set([".", ...consumer.packages.filter((p) => p.ecosystem === "cargo").map((p) => p.path)]))
        for (const [name, crate] of crateNames.ofCrate(path.join(consumer.abs, dir))) if (crates.has(crateCodeName(crate))) needles.push(name);
    let files = importsOf.get(consumer.root);
    if (files === undefined) {
      // Each file read and scanned as git names it, while git goes on searching on another core (on a large
      // monorepo the search and the reading took about as long as each other, one after the other).
      const scanned = new Map<string, Array<{ name: string; module: string; key: string | null }>>();
      const scan = (f: string): void => {
        if (!/\.(tsx?|mts|cts|jsx?|mjs|cjs|pyi?|go|rs|java)$/.test(f)) return;
        let text: string;
        try {
          text = fs.readFileSync(path.join(consumer.abs, f), "utf8");
        } catch {
          return;
        }
        const language = scanLanguageOf(f);
        const refs = withCrateNames(f, scanImports(language === "typescript" ? text.slice(0, mentionsEnd(text, needles)) : text, language), crateNames.ofFile(f));
        scanned.set(
          f,
          refs.map((r) => ({ name: r.name, module: r.module ?? "", key: packageOfImport(f, r.module ?? "") })),
        );
      };
      const named = await filesContaining(consumer, needles, where, { onFile: scan });
      // (only what the search returned, in its sorted order, not git's: what a search that failed named is left out)
      files = new Map(
        named.flatMap((f) => {
          const refs = scanned.get(f);
          return refs === undefined ? [] : [[f, refs] as const];
        }),
      );
      importsOf.set(consumer.root, files);
    }
    const ownerOf = packageOwner(consumer.abs);
    for (const b of relevant) {
      const within = b.publisher === consumer;
      // A whole-module import of a subpath (`import * as u from "@acme/utils/client"`) uses the symbol where that
      // module re-exports it (a barrel), not only where the subpath names the symbol's own file.
      const viaSubpath = (module: string, publicName: string): boolean => {
        if (b.ecosystem !== "npm" || !module.startsWith(`${b.name}/`)) return false;
        const sub = module.slice(b.name.length + 1);
        const top = topName(b.change.qualified_name);
        const key = `${b.publisher.abs}\0${b.path}\0${top}\0${sub}`;
        let names = subpathNames.get(key);
        if (names === undefined) {
          names = subpathExposure(b.publisher.abs, b.path, sub, top, reader);
          subpathNames.set(key, names);
        }
        return names.includes(publicName);
      };
      for (const publicName of b.publicNames) {
        const users = [...files]
          .filter(
            ([f, refs]) =>
              (!within || ownerOf(f).path !== b.pkgPath) &&
              refs.some((r) => r.key === b.key && (packageUseReaches({ path: f, name: r.name, module: r.module }, publicName, b.path) || (r.name === "*" && viaSubpath(r.module, publicName)))),
          )
          .map(([f]) => f)
          .sort(compareStrings);
        if (users.length === 0) continue;
        (within ? inside : out).push({
          publisher: b.publisher.root,
          package: b.name,
          ecosystem: b.ecosystem,
          path: b.path,
          qualified_name: b.change.qualified_name,
          public_name: publicName,
          change: b.change.change,
          reasons: b.change.reasons.map((x) => x.code),
          consumer: consumer.root,
          files: users,
          consumer_packages: packageCounts(users, (f) => ownerOf(f)),
        });
      }
    }
  }
  const order = (a: CrossRepoImpact, b: CrossRepoImpact): number =>
    compareStrings(a.publisher, b.publisher) ||
    compareStrings(a.path, b.path) ||
    compareStrings(a.qualified_name, b.qualified_name) ||
    compareStrings(a.public_name, b.public_name) ||
    compareStrings(a.consumer, b.consumer);
  return { across: out.sort(order), within: inside.sort(order) };
}

/**
 * Where a JavaScript or TypeScript file's imports of these packages end, at the latest: the end of the line after the
 * one of its last mention of any of them. Such an import names the package in its module specifier, which ends the
 * statement (`import … from "pkg"`, `export … from "pkg"`) or is followed at most by `).name` (`require("pkg").name`);
 * what follows cannot import them. A large file mentions a package in its first lines and goes on for thousands, and
 * scanning the rest of every such file for imports was about half of what finding a helper's users in a monorepo cost.
 */
export function mentionsEnd(text: string, needles: readonly string[]): number {
  let last = -1;
  for (const n of needles) {
    const at = text.lastIndexOf(n);
    if (at >= 0 && at + n.length > last) last = at + n.length;
  }
  if (last < 0) return text.length;
  const first = text.indexOf("\n", last);
  const second = first < 0 ? -1 : text.indexOf("\n", first + 1);
  return second < 0 ? text.length : second;
}

/** The package a repo-relative file belongs to, by the nearest manifest above it (read once each); none: "" and "". */
function packageOwner(repoRoot: string): (file: string) => { name: string; path: string } {
  const reader = memoTextReader();
  return (file) => {
    const p = packageOwning(repoRoot, file, reader);
    return p === null ? { name: "", path: "" } : { name: p.name, path: p.path };
  };
}

/** Files counted by package, most first (then by name). */
function packageCounts(files: readonly string[], owner: (file: string) => { name: string; path: string }): CrossRepoImpact["consumer_packages"] {
  const counts = new Map<string, { name: string; path: string; files: number }>();
  for (const f of files) {
    const p = owner(f);
    const had = counts.get(p.path);
    counts.set(p.path, { name: p.name, path: p.path, files: (had?.files ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.files - a.files || compareStrings(a.name, b.name) || compareStrings(a.path, b.path));
}

/** The briefing's lines for the impacts: what broke where, and who uses it. */
export function describeImpacts(impacts: readonly CrossRepoImpact[], max = 12): string {
  if (impacts.length === 0) return "";
  const lines = impacts.slice(0, max).map(
    (i) =>
      `- \`${i.public_name}\` of \`${i.package}\` (${i.publisher}: \`${i.path}\`, ${i.change}${i.reasons.length > 0 ? `: ${i.reasons.join(", ")}` : ""}) breaks ${i.consumer}, which uses it in ${i.files
        .slice(0, 4)
        .map((f) => `\`${f}\``)
        .join(", ")}${i.files.length > 4 ? ` and ${i.files.length - 4} more` : ""}`,
  );
  if (impacts.length > max) lines.push(`- and ${impacts.length - max} more`);
  return `Breaking changes in one repo's package that another repo here uses:\n${lines.join("\n")}`;
}

/**
 * The briefing's lines for a monorepo's users: what broke in which package, and how many files of which other
 * packages of the repo use it (the packages with most first).
 */
export function describeInRepoUsers(impacts: readonly CrossRepoImpact[], max = 12): string {
  if (impacts.length === 0) return "";
  const lines = impacts.slice(0, max).map((i) => {
    const shown = i.consumer_packages.slice(0, 3).map((p) => `${p.files} in ${p.name === "" ? `\`${p.path}\`` : `\`${p.name}\``}`);
    const rest = i.consumer_packages.slice(3);
    const more = rest.length === 0 ? "" : `, ${rest.reduce((n, p) => n + p.files, 0)} in ${rest.length} more package${rest.length === 1 ? "" : "s"}`;
    const files = i.files.length === 1 ? "1 file" : `${i.files.length} files`;
    const example = i.files
      .slice(0, 2)
      .map((f) => `\`${f}\``)
      .join(", ");
    return `- \`${i.public_name}\` of \`${i.package}\` (${i.consumer}: \`${i.path}\`, ${i.change}${i.reasons.length > 0 ? `: ${i.reasons.join(", ")}` : ""}) is used by ${files} of other packages of the repo: ${shown.join(", ")}${more} (${example}${i.files.length > 2 ? ", ..." : ""})`;
  });
  if (impacts.length > max) lines.push(`- and ${impacts.length - max} more`);
  return `Breaking changes in a package that other packages of the same repo use:\n${lines.join("\n")}`;
}

/** The Maven or Gradle module (`maven:group:artifact`) that holds a broken Java package, when the publisher has one. */
function javaModuleOf(b: { readonly key: string; readonly publisher: ImpactRepo; readonly pkgPath: string }): string | null {
  if (!b.key.startsWith("java:")) return null;
  const module = b.publisher.packages.find((p) => p.ecosystem === "maven" && p.path === b.pkgPath);
  return module === undefined ? null : packageKey("maven", module.name);
}

/**
 * Whether a repo declares a package: by its key, or (Go) by the module that holds it (`go:m` for `go:m/sub`), or (Java)
 * by the Maven or Gradle module that holds it.
 */
function declares(deps: ReadonlySet<string>, key: string, javaModule: string | null = null): boolean {
  if (deps.has(key)) return true;
  // A Java package is named for its owner's domain, not for the artifact that holds it: a consumer whose build
  // declares Maven or Gradle dependencies counts when one of them is the publisher's module; one whose build declares
  // none (or whose publisher has no module) counts by what its files import.
  if (key.startsWith("java:")) return javaModule === null || ![...deps].some((d) => d.startsWith("maven:")) || deps.has(javaModule);
  if (!key.startsWith("go:")) return false;
  for (let at = key.lastIndexOf("/"); at > 3; at = key.lastIndexOf("/", at - 1)) if (deps.has(key.slice(0, at))) return true;
  return false;
}
