import { type ChangeGroup, describeGroup, groupName, groupWhy, stateOf } from "./change-groups.js";
import { ago, code, describeSession, listSome } from "./coordination-text.js";
import type { Coordination, SessionRow, Wanted } from "./coordination.js";
import type { HolderRow } from "./rows/holder-rows.js";
import type { EditPlace } from "./edit-collision.js";
import { describeRanges } from "./line-ranges.js";
import { isContractKey, packageLabel } from "../packages/package-of-import.js";

/** "package `@acme/lib`", "crate `acme_store`", or what a contract's namespace is ("the GraphQL schema", "the HTTP API"). */
function ofPackage(key: string): string {
  // (Rust calls what it imports a crate, by the name its code writes: `cargo:acme_store` is crate `acme_store`)
  return isContractKey(key) ? packageLabel(key) : `${key.startsWith("cargo:") ? "crate" : "package"} ${code(packageLabel(key))}`;
}

/**
 * The warning of a file another session also changes: who, since when, where in the file (its lines and this
 * edit's, when known), whether the two meet (an `edit_conflict`) or stay apart (a `file_overlap`, which merges
 * cleanly), and what it changed there.
 */
export function overlapBody(c: Coordination, h: HolderRow, groups: readonly ChangeGroup[], kind: "edit_conflict" | "file_overlap", mine: EditPlace | undefined): string {
  const how = Number(h.held) === 1 ? `holds it since ${ago(Number(h.since), c.now)}` : `changed it ${ago(Number(h.since), c.now)}`;
  const breaking = groups.filter((g) => g.changes.some((x) => x.compatibility === "breaking"));
  const other = groups.filter((g) => !breaking.includes(g));
  const theirs = h.ranges == null ? "" : ` at lines ${describeRanges(h.ranges)}`;
  const yours = mine?.ranges == null ? "" : ` (yours: ${describeRanges(mine.ranges)})`;
  const parts = [`${code(h.path)} is also being changed by ${describeSession(h)}, which ${how}${theirs}`];
  if (kind === "file_overlap")
    parts.push(
      h.base != null && mine?.base != null && h.base !== mine.base
        ? `its copy of the file is another version than yours, so your edits are not compared line by line${yours}`
        : `your edit${yours} is apart from its lines: both can go on and merge cleanly`,
    );
  else if (h.ranges == null || mine?.ranges == null) parts.push(`where one of the two edits lands in the file is not known (a whole-file write or a shell command)${yours}`);
  else parts.push(`your edit${yours} meets its lines: merging the two would conflict`);
  if (breaking.length > 0) parts.push(`it changed ${breaking.map(describeGroup).join(", ")} incompatibly (${stateOf(breaking[0] as ChangeGroup)})`);
  if (other.length > 0)
    parts.push(
      `it also changed ${listSome(
        other.map((g) => g.top),
        6,
      )}`,
    );
  return `${parts.join("; ")}.`;
}

/** What the session that was there first hears when another joins it on a file. */
export function joinedBody(c: Coordination, h: HolderRow, kind: "edit_conflict" | "file_overlap", mine: EditPlace | undefined): string {
  const where = mine?.ranges == null ? "" : ` at lines ${describeRanges(mine.ranges)}`;
  return kind === "file_overlap"
    ? `${describeSession(c.session)} started editing ${code(h.path)}${where}, apart from your lines: both edits merge cleanly.`
    : `${describeSession(c.session)} started editing ${code(h.path)}${where}, where you are also changing it. Coordinate before you both change the same code.`;
}

/**
 * A session whose code uses `name` of the package of a group another session broke: told before its next edit of that
 * code. "Uses", not "imports": the code may reach it without importing it (a Rust path through a renamed crate, a Java
 * type named in full, a Go dot import's bare name).
 */
export function crossRepoWanted(user: SessionRow, g: ChangeGroup, name: string, users: readonly string[]): Wanted {
  const where = user.repo_id === g.author.repo_id ? `${code(g.path)}` : `${code(g.path)} of the repo that publishes it`;
  return {
    kind: "cross_repo_breaking",
    role: "affected",
    session: user,
    other: g.author,
    subject: `${g.package}#${name}`,
    body: `${code(name)} of ${ofPackage(g.package ?? "")} (${where}) was changed incompatibly by ${describeSession(g.author)}: ${groupWhy(g)} (${stateOf(g)}). Your code uses it in ${listSome(users, 4)}.`,
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

/** What the author of a breaking change hears of a session its change reaches: who, and where its code uses it. */
export function breakingInformed(author: SessionRow, g: ChangeGroup, user: SessionRow, callers: readonly string[]): Wanted {
  return {
    kind: "breaking_change",
    role: "informed",
    session: author,
    other: user,
    subject: `${g.path}#${g.top}`,
    body: `your change to ${describeGroup(g)} in ${code(g.path)} breaks code of ${describeSession(user)}, which uses it in ${listSome(callers, 4)}. It is told before its next edit of that code or at its next prompt. Keep the old form working, or make sure it can adapt.`,
    paths: [g.path],
    changeAt: g.at,
  };
}

/** The same across packages: the author hears whose code uses the changed name of its package, and where. */
export function crossRepoInformed(author: SessionRow, g: ChangeGroup, name: string, user: SessionRow, files: readonly string[]): Wanted {
  return {
    kind: "cross_repo_breaking",
    role: "informed",
    session: author,
    other: user,
    subject: `${g.package}#${name}`,
    body: `your change to ${describeGroup(g)} in ${code(g.path)} breaks code that uses ${code(name)} of ${ofPackage(g.package ?? "")}: ${describeSession(user)}${user.repo_id === author.repo_id ? "" : ", in another repo,"} uses it in ${listSome(files, 4)}. It is told before its next edit of that code or at its next prompt. Keep the old form working, or make sure it can adapt.`,
    paths: [g.path],
    changeAt: g.at,
  };
}
