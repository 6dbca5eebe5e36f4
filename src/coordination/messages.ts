import { type ChangeGroup, describeGroup, groupName, groupWhy, stateOf } from "./change-groups.js";
import { ago, code, describeSession, listSome } from "./coordination-text.js";
import type { Coordination, SessionRow, Wanted } from "./coordination.js";
import type { HolderRow } from "./rows/holder-rows.js";
import { packageLabel } from "../packages/package-of-import.js";

export function overlapBody(c: Coordination, h: HolderRow, groups: readonly ChangeGroup[]): string {
  const how = Number(h.held) === 1 ? `holds it since ${ago(Number(h.since), c.now)}` : `changed it ${ago(Number(h.since), c.now)}`;
  const breaking = groups.filter((g) => g.changes.some((x) => x.compatibility === "breaking"));
  const other = groups.filter((g) => !breaking.includes(g));
  const parts = [`${code(h.path)} is also being changed by ${describeSession(h)}, which ${how}`];
  if (breaking.length > 0) parts.push(`it changed ${breaking.map(describeGroup).join(", ")} incompatibly (${stateOf(breaking[0] as ChangeGroup)})`);
  if (other.length > 0) parts.push(`it also changed ${listSome(other.map((g) => g.top), 6)}`);
  return `${parts.join("; ")}.`;
}

/** A session whose code imports `name` from the package of a group another session broke: told before its next edit of that code. */
export function crossRepoWanted(user: SessionRow, g: ChangeGroup, name: string, users: readonly string[]): Wanted {
  const where = user.repo_id === g.author.repo_id ? `${code(g.path)}` : `${code(g.path)} of the repo that publishes it`;
  return {
    kind: "cross_repo_breaking",
    role: "affected",
    session: user,
    other: g.author,
    subject: `${g.package}#${name}`,
    body: `${code(name)} of package ${code(packageLabel(g.package ?? ""))} (${where}) was changed incompatibly by ${describeSession(g.author)}: ${groupWhy(g)} (${stateOf(g)}). Your code imports it in ${listSome(users, 4)}.`,
    paths: [...users],
    changeAt: g.at,
  };
}

export function breakingWanted(user: SessionRow, g: ChangeGroup, users: readonly string[]): Wanted {
  return {
    kind: "breaking_change",
    role: "affected",
    session: user,
    other: g.author,
    subject: `${g.path}#${g.top}`,
    body: `${groupName(g)} in ${code(g.path)} was changed incompatibly by ${describeSession(g.author)}: ${groupWhy(g)} (${stateOf(g)}). Your code uses it in ${listSome(users, 4)}.`,
    paths: [g.path, ...users],
    changeAt: g.at,
  };
}
