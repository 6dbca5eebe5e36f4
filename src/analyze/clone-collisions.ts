import { execFile } from "node:child_process";
import * as path from "node:path";
import { expandImports, filesUsing } from "../coordination/uses-symbol.js";
import { compareStrings } from "../errors/diagnostic.js";
import { gitProcessEnv } from "../git/git-process-env.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import { scanImports, scanLanguageOf } from "../symbols/scan-imports.js";

/** One side of a collision: a clone or worktree that changed the file, and how. */
export interface CollisionSide {
  /** The repo's root, relative to the analysed folder. */
  readonly root: string;
  readonly branch: string | null;
  /** The commit its changes are measured from: the merge base of the clones' HEADs (or its own base). */
  readonly since: string | null;
  readonly change: string;
  /** Its symbol changes in the file (null when the language is not analysed). */
  readonly symbols: ReadonlyArray<Pick<SymbolChange, "qualified_name" | "change" | "compatibility">> | null;
}

/** A file changed in more than one clone or worktree of one repo (uncommitted, or on their branches since the merge base). */
export interface CloneCollision {
  /** The roots of every clone and worktree of the repo that was compared (the sides are some of them). */
  readonly repos: readonly string[];
  readonly path: string;
  /** Symbols changed on more than one side: the same function edited twice. */
  readonly symbols: readonly string[];
  readonly sides: readonly CollisionSide[];
}

/**
 * A breaking change on one clone or worktree that the changes of another clone of the same repo use: its changed
 * files import the symbol (the clash the hooks catch between two sessions, seen here from the repos alone).
 */
export interface CloneBreak {
  /** The roots of every clone and worktree of the repo that was compared. */
  readonly repos: readonly string[];
  /** The clone that changed the symbol, and its branch. */
  readonly author: string;
  readonly author_branch: string | null;
  readonly path: string;
  readonly qualified_name: string;
  readonly change: string;
  readonly reasons: readonly string[];
  /** The clone whose changed files import it, its branch, and those files. */
  readonly user: string;
  readonly user_branch: string | null;
  readonly files: readonly string[];
}

/** What the grouping needs of a repo. */
export interface CloneCandidate {
  readonly root: string;
  readonly commonDir: string | null;
  readonly fingerprints: readonly string[];
}

/**
 * Groups repos that are one repo: clones sharing a remote fingerprint, worktrees sharing a git folder (with or
 * without a remote). Returns groups of two or more, as indexes into `repos`, each sorted; groups sorted by their
 * first root.
 */
export function groupClones(repos: readonly CloneCandidate[]): number[][] {
  const parent = repos.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const owner = new Map<string, number>();
  repos.forEach((r, i) => {
    const keys = [...r.fingerprints.map((f) => `fp:${f}`), ...(r.commonDir === null ? [] : [`git:${r.commonDir}`])];
    for (const k of keys) {
      const j = owner.get(k);
      if (j === undefined) owner.set(k, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, number[]>();
  repos.forEach((_, i) => {
    groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  });
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .map((g) => g.sort((a, b) => compareStrings((repos[a] as CloneCandidate).root, (repos[b] as CloneCandidate).root)))
    .sort((a, b) => compareStrings((repos[a[0] as number] as CloneCandidate).root, (repos[b[0] as number] as CloneCandidate).root));
}

/**
 * The commit a clone's changes are measured from: the merge base of its HEAD with every other HEAD of the group
 * that its object database has (worktrees share one; a clone has the others' commits once fetched), and with its
 * own base (the merge base with its remote's default branch). Null when git cannot say: then HEAD.
 */
export function mergeBaseOf(repoRoot: string, commits: readonly string[], where: GitConfigEnv): Promise<string | null> {
  return new Promise((resolve) => {
    const git = (args: string[], input?: string) =>
      new Promise<string | null>((done) => {
        const child = execFile("git", args, { cwd: repoRoot, env: gitProcessEnv(where), timeout: 5000 }, (error, stdout) => done(error === null ? stdout : null));
        if (input !== undefined) child.stdin?.end(input);
      });
    void (async () => {
      const known = await git(["cat-file", "--batch-check"], `${commits.join("\n")}\n`);
      const present = commits.filter((_, i) => (known ?? "").split("\n")[i]?.split(" ")[1] === "commit");
      if (present.length === 0) return resolve(null);
      if (present.length === 1) return resolve(present[0] ?? null);
      const base = await git(["merge-base", "--octopus", ...present]);
      resolve(base === null ? null : (base.trim().split("\n")[0] ?? null) || null);
    })();
  });
}

/** The collisions of one group, from each side's changed files (null for a side not compared). */
export function findCollisions(
  roots: readonly string[],
  sides: ReadonlyArray<{ root: string; branch: string | null; since: string | null; changes: ReadonlyArray<{ path: string; change: string; symbols: readonly SymbolChange[] | null }> } | null>,
): CloneCollision[] {
  const byPath = new Map<string, CollisionSide[]>();
  for (const s of sides) {
    if (s === null) continue;
    for (const c of s.changes) {
      const side: CollisionSide = {
        root: s.root,
        branch: s.branch,
        since: s.since,
        change: c.change,
        symbols: c.symbols === null ? null : c.symbols.map((x) => ({ qualified_name: x.qualified_name, change: x.change, compatibility: x.compatibility })),
      };
      byPath.set(c.path, [...(byPath.get(c.path) ?? []), side]);
    }
  }
  const out: CloneCollision[] = [];
  for (const [p, list] of byPath) {
    if (list.length < 2) continue;
    const counts = new Map<string, number>();
    for (const side of list) for (const name of new Set((side.symbols ?? []).map((x) => x.qualified_name))) counts.set(name, (counts.get(name) ?? 0) + 1);
    out.push({
      repos: [...roots].sort(compareStrings),
      path: p,
      symbols: [...counts]
        .filter(([, n]) => n > 1)
        .map(([name]) => name)
        .sort(compareStrings),
      sides: list.sort((a, b) => compareStrings(a.root, b.root)),
    });
  }
  return out.sort((a, b) => compareStrings(a.repos[0] ?? "", b.repos[0] ?? "") || compareStrings(a.path, b.path));
}

/** One side's changed files as {@link findCloneBreaks} reads them: `abs` is its root on disk. */
export interface BreakSide {
  readonly root: string;
  readonly abs: string;
  readonly branch: string | null;
  readonly changes: ReadonlyArray<{ path: string; change: string; symbols: readonly SymbolChange[] | null }>;
}

/**
 * The breaking changes of each side that another side's changed files use: every exported symbol change that
 * breaks callers, against the imports of the other side's changed TypeScript, JavaScript and Python files as they
 * are in its working tree (`read`: a file's text, null when it is gone). The changed file itself is never a use
 * (both sides changing it is a collision). Sorted by author, path, symbol, user.
 */
export function findCloneBreaks(roots: readonly string[], sides: ReadonlyArray<BreakSide | null>, read: (abs: string) => string | null): CloneBreak[] {
  const present = sides.filter((s): s is BreakSide => s !== null);
  const usesOf = new Map<string, Array<{ path: string; name: string; module: string | null }>>();
  const uses = (side: BreakSide) => {
    let list = usesOf.get(side.root);
    if (list !== undefined) return list;
    list = [];
    for (const c of side.changes) {
      if (c.change === "deleted" || !/\.(tsx?|mts|cts|jsx?|mjs|cjs|pyi?)$/.test(c.path)) continue;
      const text = read(path.join(side.abs, c.path));
      if (text === null) continue;
      for (const r of scanImports(text, scanLanguageOf(c.path))) list.push({ path: c.path, name: r.name, module: r.module ?? null });
    }
    list = expandImports(list);
    usesOf.set(side.root, list);
    return list;
  };
  const out: CloneBreak[] = [];
  for (const author of present) {
    for (const c of author.changes) {
      for (const s of c.symbols ?? []) {
        if (s.compatibility !== "breaking" || !s.exported) continue;
        for (const user of present) {
          if (user === author) continue;
          const files = filesUsing(uses(user), c.path, [s.qualified_name, ...(s.renamed_from === null ? [] : [s.renamed_from])]);
          if (files.length === 0) continue;
          out.push({
            repos: [...roots].sort(compareStrings),
            author: author.root,
            author_branch: author.branch,
            path: c.path,
            qualified_name: s.qualified_name,
            change: s.change,
            reasons: s.reasons.map((r) => r.code),
            user: user.root,
            user_branch: user.branch,
            files,
          });
        }
      }
    }
  }
  return out.sort((a, b) => compareStrings(a.author, b.author) || compareStrings(a.path, b.path) || compareStrings(a.qualified_name, b.qualified_name) || compareStrings(a.user, b.user));
}

/** The briefing's lines for the breaks: what one clone broke that another's changes use, and where. */
export function describeCloneBreaks(breaks: readonly CloneBreak[], max = 12): string {
  if (breaks.length === 0) return "";
  const side = (root: string, branch: string | null): string => `${root}${branch === null ? "" : ` (${branch})`}`;
  const lines = breaks.slice(0, max).map(
    (b) =>
      `- \`${b.qualified_name}\` in \`${b.path}\` (${side(b.author, b.author_branch)}: ${b.change}${b.reasons.length > 0 ? `: ${b.reasons.join(", ")}` : ""}) breaks the changes of ${side(b.user, b.user_branch)}, which use it in ${b.files
        .slice(0, 4)
        .map((f) => `\`${f}\``)
        .join(", ")}${b.files.length > 4 ? ` and ${b.files.length - 4} more` : ""}`,
  );
  if (breaks.length > max) lines.push(`- and ${breaks.length - max} more`);
  return `Breaking changes in one clone or worktree that another one's changes use:\n${lines.join("\n")}`;
}

/** The briefing's opening lines: each collision, symbols first, with each side's change and its compatibility. */
export function describeCollisions(collisions: readonly CloneCollision[], max = 12): string {
  if (collisions.length === 0) return "";
  const ranked = [...collisions].sort((a, b) => Number(b.symbols.length > 0) - Number(a.symbols.length > 0));
  const lines = ranked.slice(0, max).map((c) => {
    const sides = c.sides.map((s) => {
      const mine = (s.symbols ?? []).filter((x) => c.symbols.length === 0 || c.symbols.includes(x.qualified_name));
      const how = mine.length > 0 ? mine.map((x) => `${x.qualified_name} ${x.change}, ${x.compatibility}`).join("; ") : s.change;
      return `${s.root}${s.branch === null ? "" : ` (${s.branch})`}: ${how}`;
    });
    const what = c.symbols.length > 0 ? `${c.symbols.join(", ")} in ${c.path}` : c.path;
    return `- ${what}, changed in ${c.sides.length} clones: ${sides.join(" / ")}`;
  });
  if (collisions.length > max) lines.push(`- and ${collisions.length - max} more files`);
  return `Changed in more than one clone or worktree of the same repo:\n${lines.join("\n")}`;
}
