import { shortSessionId } from "../coordination-text.js";
import type { Coordination, SessionRow, Wanted } from "../coordination.js";
import { familyReps } from "./session-rows.js";
import { insertRows, nextNumber, uniqueSorted } from "./sql-rows.js";
import type { ConflictKind, ConflictRef } from "../wire.js";
import { marks } from "../../store/database.js";

export interface ConflictRow {
  number: number;
  kind: ConflictKind;
  role: "affected" | "informed";
  session_id: string;
  other_session_id: string;
  subject: string;
  body: string;
  paths: string;
  change_at: number;
  told_at: number | null;
  withdrawn_at: number | null;
}

const CONFLICT_COLS = "number, kind, role, session_id, other_session_id, subject, body, paths, change_at, told_at, withdrawn_at";

/**
 * Records these conflicts: a conflict of the same kind between the same two sessions on the same subject is the
 * same conflict and keeps its number (and, once told, is never told again; a withdrawn one that comes back is
 * untold again); a new one takes the team's next number. Returns each conflict's row, in the order asked.
 */
export async function recordConflicts(c: Coordination, wanted: readonly Wanted[]): Promise<ConflictRow[]> {
  if (wanted.length === 0) return [];
  const keyOf = (w: { kind: string; session: string; other: string; subject: string }) => `${w.kind}\u0000${w.session}\u0000${w.other}\u0000${w.subject}`;
  const reps = await familyReps(
    c,
    wanted.flatMap((w) => [w.session.family, w.other.family]),
    wanted.flatMap((w) => [w.session, w.other]),
  );
  // A family is one per repo: a session of another repo (across packages) stands for itself.
  const repOf = (x: SessionRow): string => (x.repo_id === c.repoId ? (reps.get(x.family) ?? x.id) : x.id);
  const wKey = (w: Wanted) => keyOf({ kind: w.kind, session: repOf(w.session), other: repOf(w.other), subject: w.subject });
  const sessionIds = uniqueSorted(wanted.map((w) => repOf(w.session)));
  const rows = await c.sql.all<ConflictRow>(`SELECT ${CONFLICT_COLS} FROM conflicts WHERE team_id = ? AND session_id IN (${marks(sessionIds)})`, [c.teamId, ...sessionIds]);
  const known = new Map(rows.map((r) => [keyOf({ kind: r.kind, session: r.session_id, other: r.other_session_id, subject: r.subject }), r]));
  const fresh: Wanted[] = [];
  for (const w of wanted) {
    const k = wKey(w);
    const row = known.get(k);
    if (row === undefined) {
      if (!fresh.some((f) => wKey(f) === k)) fresh.push(w);
    } else if (row.role !== w.role) {
    } else if (row.withdrawn_at !== null || row.told_at === null) {
      // Not told yet (or withdrawn and back): the latest facts replace the text.
      const paths = JSON.stringify(uniqueSorted([...(JSON.parse(row.paths) as string[]), ...w.paths]));
      await c.sql.run("UPDATE conflicts SET body = ?, paths = ?, withdrawn_at = NULL, told_at = CASE WHEN withdrawn_at IS NULL THEN told_at ELSE NULL END WHERE team_id = ? AND number = ?", [
        reachable(w),
        paths,
        c.teamId,
        row.number,
      ]);
      known.set(k, { ...row, body: reachable(w), paths, told_at: row.withdrawn_at === null ? row.told_at : null, withdrawn_at: null });
    }
  }
  if (fresh.length > 0) {
    const start = await nextNumber(c, "next_conflict", fresh.length);
    const inserted = fresh.map((w, i) => {
      const row: ConflictRow = {
        number: start + i,
        kind: w.kind,
        role: w.role,
        session_id: repOf(w.session),
        other_session_id: repOf(w.other),
        subject: w.subject,
        body: reachable(w),
        paths: JSON.stringify(uniqueSorted(w.paths)),
        change_at: w.changeAt,
        told_at: null,
        withdrawn_at: null,
      };
      known.set(wKey(w), row);
      return row;
    });
    await insertRows(
      c.sql,
      "INSERT INTO conflicts (team_id, number, kind, severity, session_id, other_session_id, subject, created_at, role, body, paths, change_at) VALUES",
      inserted.map((r) => [c.teamId, r.number, r.kind, "warn", r.session_id, r.other_session_id, r.subject, c.now, r.role, r.body, r.paths, r.change_at]),
    );
  }
  return wanted.map((w) => known.get(wKey(w)) as ConflictRow);
}

/** This session's conflicts not yet told (and not withdrawn) whose other session is still active, oldest change first. */
export async function untold(c: Coordination): Promise<ConflictRow[]> {
  return c.sql.all<ConflictRow>(
    `SELECT ${CONFLICT_COLS.split(", ")
      .map((x) => `k.${x}`)
      .join(", ")} FROM conflicts k JOIN sessions s ON s.id = k.other_session_id
     WHERE k.team_id = ? AND k.session_id = ? AND k.told_at IS NULL AND k.withdrawn_at IS NULL AND s.ended_at IS NULL AND s.last_seen_at >= ?
     ORDER BY k.change_at, k.number`,
    [c.teamId, c.familyId, c.now - c.leaseMs],
  );
}

export async function markTold(c: Coordination, rows: readonly ConflictRow[]): Promise<void> {
  // (an answer nobody hears tells nobody: the session's next event does)
  if (c.unheard === true) return;
  const numbers = [...new Set(rows.filter((r) => r.told_at === null).map((r) => r.number))];
  if (numbers.length === 0) return;
  await c.sql.run(`UPDATE conflicts SET told_at = ? WHERE team_id = ? AND number IN (${marks(numbers)})`, [c.now, c.teamId, ...numbers]);
}

/** A conflict's text, ending with the command that reaches the other agent (every warning says how to act on it). */
function reachable(w: Wanted): string {
  return `${w.body} To reach it: comity message ${shortSessionId(w.other.external_id)} "<your message>"`;
}

export const lineOf = (r: ConflictRow): string => `- CF-${r.number} ${r.kind}: ${r.body}`;

export const refOf = (r: ConflictRow, severity: "warn" | "block" = "warn"): ConflictRef => ({ number: r.number, ref: `CF-${r.number}`, kind: r.kind, severity });

export function sortByChange(rows: readonly ConflictRow[]): ConflictRow[] {
  const byNumber = new Map(rows.map((r) => [r.number, r]));
  return [...byNumber.values()].sort((a, b) => Number(a.change_at) - Number(b.change_at) || a.number - b.number);
}
