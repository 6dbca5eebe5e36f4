import { ACTIVE_OTHER, activeOtherParams, type Coordination, SESSION_COLS, type SessionRow } from "../coordination.js";
import { insertRows, ROWS_PER_INSERT } from "./sql-rows.js";
import { topName } from "../uses-symbol.js";
import type { EvaluateRequest } from "../wire.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { marks } from "../../store/database.js";
import { packageKey } from "../../packages/package-of-import.js";

export interface ChangeRow extends SessionRow {
  path: string;
  qualified_name: string;
  renamed_from: string | null;
  change: string;
  compatibility: string;
  summary: string;
  state: string;
  at: number;
  /** The package the changed file belongs to (`npm:@acme/lib`), and the names it is imported under from it (JSON). */
  package: string | null;
  public_names: string | null;
  /** 1 when the symbol is its module's default export (`import x from "./m"` names it). */
  default_export: number;
  /** How it was and is called (`parseConfig(path)` → `parseConfig(path, strict)`), when that changed. */
  signature_before: string | null;
  signature_after: string | null;
}

export const CHANGE_COLS = `sc.path, sc.qualified_name, sc.renamed_from, sc.change, sc.compatibility, sc.summary, sc.state, sc.created_at AS at, sc.package, sc.public_names, sc.default_export, sc.signature_before, sc.signature_after, ${SESSION_COLS}`;

/** Changes other active families made, not reverted; optionally only breaking ones, or only in these paths. */
export async function othersChanges(c: Coordination, filter: { breaking?: boolean; paths?: readonly string[] }): Promise<ChangeRow[]> {
  const paths = filter.paths ?? null;
  if (paths !== null && paths.length === 0) return [];
  // From the repo's active sessions to their changes (CROSS JOIN keeps that order in SQLite): never the repo's
  // week of history. The session pins the repo; `+sc.created_at` keeps SQLite from reading the repo's changes by
  // time instead.
  return c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM sessions s CROSS JOIN symbol_changes sc
     WHERE ${ACTIVE_OTHER} AND sc.session_id = s.id${filter.breaking === true ? " AND sc.compatibility = 'breaking'" : ""}${paths === null ? "" : ` AND sc.path IN (${marks(paths)})`}
       AND +sc.created_at >= s.started_at
     ORDER BY sc.created_at, sc.path, sc.qualified_name`,
    [...activeOtherParams(c), ...(paths ?? [])],
  );
}

/**
 * Breaking changes of other active families, in any repo of the team, to files of these packages, oldest first:
 * what the radar across repos compares with what a session imports from them.
 */
export async function packageChanges(c: Coordination, packages: readonly string[]): Promise<ChangeRow[]> {
  if (packages.length === 0) return [];
  return c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.team_id = ? AND sc.package IN (${marks(packages)}) AND sc.compatibility = 'breaking' AND +sc.created_at >= s.started_at
       AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?
     ORDER BY sc.created_at, sc.path, sc.qualified_name`,
    [c.teamId, ...packages, c.now - c.leaseMs, c.family],
  );
}

/**
 * The session's changes of one file, as its latest analysis says (HEAD against the working tree): a change it no
 * longer shows was reverted (HEAD has not moved: the notices it queued and not yet told are withdrawn) or
 * committed (HEAD moved); the others are updated, keeping when they were first made.
 */
export async function reconcileChanges(c: Coordination, filePath: string, changes: NonNullable<NonNullable<EvaluateRequest["analysis"]>[number]["changes"]>, pkg: string | null): Promise<void> {
  const head = c.request.repo.head_sha ?? null;
  const before = await c.sql.all<{
    qualified_name: string;
    change: string;
    compatibility: string;
    summary: string;
    renamed_from: string | null;
    head_sha: string | null;
    state: string;
    package: string | null;
    public_names: string | null;
    default_export: number;
    signature_before: string | null;
    signature_after: string | null;
  }>(
    "SELECT qualified_name, change, compatibility, summary, renamed_from, head_sha, state, package, public_names, default_export, signature_before, signature_after FROM symbol_changes WHERE session_id = ? AND path = ?",
    [c.session.id, filePath],
  );
  const now = new Map(changes.map((ch) => [ch.qualified_name, ch]));
  // A change filed under its own namespace (a route a server's code declares: the HTTP API), else its file's package.
  const pkgOf = (ch: (typeof changes)[number]): string | null => (ch.package === undefined ? pkg : packageKey(ch.package.ecosystem, ch.package.name));
  const withdrawn = new Set<string>();
  const reverted: string[] = [];
  const committed: string[] = [];
  for (const b of before) {
    const ch = now.get(b.qualified_name);
    if (ch === undefined) {
      if (b.state === "committed") continue;
      if (b.head_sha !== null && head !== null && b.head_sha !== head) committed.push(b.qualified_name);
      else {
        reverted.push(b.qualified_name);
        if (b.compatibility === "breaking") withdrawn.add(topName(b.qualified_name));
      }
      continue;
    }
    if (b.compatibility === "breaking" && ch.compatibility !== "breaking") withdrawn.add(topName(b.qualified_name));
    const same =
      b.change === ch.change &&
      b.compatibility === ch.compatibility &&
      b.summary === summaryOf(ch) &&
      b.renamed_from === (ch.renamed_from ?? null) &&
      b.head_sha === head &&
      b.state === "local" &&
      b.package === pkgOf(ch) &&
      b.public_names === publicNamesOf(ch) &&
      Number(b.default_export) === (ch.default_export === true ? 1 : 0) &&
      b.signature_before === (ch.signature_before ?? null) &&
      b.signature_after === (ch.signature_after ?? null);
    if (same) continue;
    await c.sql.run(
      "UPDATE symbol_changes SET change = ?, compatibility = ?, summary = ?, renamed_from = ?, head_sha = ?, state = 'local', package = ?, public_names = ?, default_export = ?, signature_before = ?, signature_after = ? WHERE session_id = ? AND path = ? AND qualified_name = ?",
      [
        ch.change,
        ch.compatibility,
        summaryOf(ch),
        ch.renamed_from ?? null,
        head,
        pkgOf(ch),
        publicNamesOf(ch),
        ch.default_export === true ? 1 : 0,
        ch.signature_before ?? null,
        ch.signature_after ?? null,
        c.session.id,
        filePath,
        ch.qualified_name,
      ],
    );
  }
  // A reverted change is gone (nothing keeps it); a committed one stays, for briefings.
  for (const [list, statement] of [
    [reverted, "DELETE FROM symbol_changes WHERE session_id = ? AND path = ? AND qualified_name IN"],
    [committed, "UPDATE symbol_changes SET state = 'committed' WHERE session_id = ? AND path = ? AND qualified_name IN"],
  ] as const) {
    for (let i = 0; i < list.length; i += ROWS_PER_INSERT) {
      const chunk = list.slice(i, i + ROWS_PER_INSERT);
      await c.sql.run(`${statement} (${marks(chunk)})`, [c.session.id, filePath, ...chunk]);
    }
  }
  const known = new Set(before.map((b) => b.qualified_name));
  await insertRows(
    c.sql,
    "INSERT INTO symbol_changes (team_id, repo_id, session_id, path, qualified_name, change, compatibility, summary, created_at, renamed_from, head_sha, state, package, public_names, default_export, signature_before, signature_after) VALUES",
    changes
      .filter((ch) => !known.has(ch.qualified_name))
      .map((ch) => [
        c.teamId,
        c.repoId,
        c.session.id,
        filePath,
        ch.qualified_name,
        ch.change,
        ch.compatibility,
        summaryOf(ch),
        c.now,
        ch.renamed_from ?? null,
        head,
        "local",
        pkgOf(ch),
        publicNamesOf(ch),
        ch.default_export === true ? 1 : 0,
        ch.signature_before ?? null,
        ch.signature_after ?? null,
      ]),
  );
  // A type whose members are all reverted is withdrawn; one with a breaking member left is not. Two statements,
  // not an OR: each follows an index (the author as the other side, and as the one told). Across packages, the
  // subject is the package's public name.
  const gone = [...withdrawn].filter((top) => !changes.some((ch) => topName(ch.qualified_name) === top && ch.compatibility === "breaking"));
  const publicOf = (top: string): string[] => {
    const b = before.find((x) => topName(x.qualified_name) === top && x.public_names !== null);
    return pkg === null ? [] : (b === undefined ? [top] : (JSON.parse(b.public_names as string) as string[])).map((n) => `${pkg}#${n}`);
  };
  const subjects = [...gone.map((top) => `${filePath}#${top}`), ...gone.flatMap(publicOf)];
  for (let i = 0; i < subjects.length; i += ROWS_PER_INSERT) {
    const chunk = subjects.slice(i, i + ROWS_PER_INSERT);
    for (const side of ["other_session_id", "session_id"]) {
      for (const kind of ["breaking_change", "cross_repo_breaking"]) {
        await c.sql.run(`UPDATE conflicts SET withdrawn_at = ? WHERE ${side} = ? AND team_id = ? AND kind = ? AND subject IN (${marks(chunk)}) AND withdrawn_at IS NULL AND told_at IS NULL`, [
          c.now,
          c.familyId,
          c.teamId,
          kind,
          ...chunk,
        ]);
      }
    }
  }
}

/** The public names a change carries, as stored (JSON), or null when the hook did not say. */
function publicNamesOf(ch: { public_names?: readonly string[] | null | undefined }): string | null {
  return ch.public_names == null ? null : JSON.stringify([...ch.public_names].sort(compareStrings));
}

function summaryOf(ch: { change: string; reasons?: ReadonlyArray<{ code: string; message: string }> | undefined }): string {
  const reasons = (ch.reasons ?? []).slice(0, 2).map((r) => `${r.code}: ${r.message}`);
  return reasons.length > 0 ? reasons.join("; ") : ch.change;
}
