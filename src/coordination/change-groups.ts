import { code, listSome, oneLine } from "./coordination-text.js";
import type { SessionRow } from "./coordination.js";
import type { ChangeRow } from "./rows/change-rows.js";
import { uniqueSorted } from "./rows/sql-rows.js";
import { importNamesModule, topName } from "./uses-symbol.js";
import { compareStrings } from "../errors/diagnostic.js";
import { isContractKey } from "../packages/package-of-import.js";

/** A group of one session's changes to one top-level symbol of a file (a type and its members are one). */
export interface ChangeGroup {
  readonly path: string;
  readonly top: string;
  /** The package of the changed file, when the hook said (`npm:@acme/lib`). */
  readonly package: string | null;
  readonly author: SessionRow;
  readonly changes: readonly ChangeRow[];
  readonly at: number;
}

export function groupChanges(rows: readonly ChangeRow[]): ChangeGroup[] {
  const groups = new Map<string, { path: string; top: string; package: string | null; author: SessionRow; changes: ChangeRow[]; at: number }>();
  for (const r of rows) {
    const top = topName(r.qualified_name);
    const key = `${r.id}\u0000${r.path}\u0000${top}`;
    const g = groups.get(key) ?? { path: r.path, top, package: r.package, author: r, changes: [], at: Number(r.at) };
    g.changes.push(r);
    g.at = Math.min(g.at, Number(r.at));
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => a.at - b.at || compareStrings(`${a.path}#${a.top}`, `${b.path}#${b.top}`));
}

type GroupLike = {
  top: string;
  changes: readonly { qualified_name: string; renamed_from: string | null; summary: string; signature_before?: string | null; signature_after?: string | null }[];
};

/** "`parseConfig`", "`Calc` members `add`, `sub`", "`parseConfig` (renamed to `loadConfig`)". */
export function groupName(g: GroupLike): string {
  const members = g.changes.filter((x) => x.qualified_name !== g.top);
  const renamed = g.changes.find((x) => x.renamed_from !== null && x.renamed_from !== x.qualified_name);
  if (renamed !== undefined) return `${code(renamed.renamed_from ?? "")} (renamed to ${code(renamed.qualified_name)})`;
  if (members.length > 0 && members.length === g.changes.length) return `${code(g.top)} members ${listSome(uniqueSorted(members.map((m) => m.qualified_name.slice(g.top.length + 1))), 6)}`;
  return `${code(g.top)}`;
}

/**
 * What changed and why it breaks callers, concretely: the call before and after, where it changed
 * (`` `parseConfig(path)` → `parseConfig(path, strict)` ``), then the change reasons (`PARAMETER_ADDED_REQUIRED:
 * required parameter strict added`).
 */
export function groupWhy(g: GroupLike): string {
  const shaped = g.changes.find((x) => (x.signature_before ?? null) !== null && (x.signature_after ?? null) !== null && x.signature_before !== x.signature_after);
  const shape = shaped === undefined ? [] : [`${code(shaped.signature_before ?? "", 160)} → ${code(shaped.signature_after ?? "", 160)}`];
  return [...shape, ...new Set(g.changes.map((x) => oneLine(x.summary, 240)))].slice(0, 4).join("; ");
}

export function describeGroup(g: GroupLike): string {
  return `${groupName(g)} (${groupWhy(g)})`;
}

export function stateOf(g: ChangeGroup): string {
  return g.changes.some((x) => x.state === "committed") ? "committed" : "local, not committed";
}

/**
 * The names a use of a group may import: the top-level name now, the old name of a rename, and `default` for its
 * module's default export (`import formatDate from "./date"`).
 */
export function namesOf(g: ChangeGroup): string[] {
  const isDefault = g.changes.some((x) => Number(x.default_export) === 1);
  return uniqueSorted([g.top, ...(isDefault ? ["default"] : []), ...g.changes.flatMap((x) => (x.renamed_from === null ? [] : [topName(x.renamed_from)]))]);
}

/**
 * The names a group reaches its users by, each with the name a notice shows: one each for a package's exports; for a
 * contract's changes (a GraphQL field is reached by its coordinate and by each path that selects it, an HTTP
 * operation with and without its base path), all of them at once under the changed symbols' names, so that a user is
 * told once.
 */
export function reachOfGroup(g: ChangeGroup): Array<{ shown: string; names: string[] }> {
  const names = publicNamesOfGroup(g);
  if (g.package === null || !isContractKey(g.package)) return names.map((n) => ({ shown: n, names: [n] }));
  return names.length === 0 ? [] : [{ shown: uniqueSorted(g.changes.map((x) => x.qualified_name)).join(", "), names }];
}

/** The names other code imports a group under from its package: its changes' public names (its top-level name when the hook did not say). */
export function publicNamesOfGroup(g: ChangeGroup): string[] {
  return uniqueSorted(g.changes.flatMap((x) => (x.public_names === null ? [g.top] : (JSON.parse(x.public_names) as string[]))));
}

/**
 * Whether a use of a package in the author's own repo is one the in-repo check already sees (a Python absolute
 * import of the defining module, `app.config`): told once, as `breaking_change`, not again across packages.
 */
export function coveredInRepo(user: SessionRow, g: ChangeGroup, use: { path: string; module: string }): boolean {
  return user.repo_id === g.author.repo_id && importNamesModule(use.path, use.module, g.path);
}
