import { ACTIVE_OTHER, activeOtherParams, type Coordination, SESSION_COLS, SESSION_GROUP, type SessionRow } from "../coordination.js";
import { mergeRanges, type LineRange } from "../line-ranges.js";
import { uniqueSorted } from "./sql-rows.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { marks } from "../../store/database.js";

export interface HolderRow extends SessionRow {
  path: string;
  since: number;
  held: number;
  /**
   * Where in the file it works (what it holds and what it changed, together), against `base`, its blob at HEAD;
   * null ranges: not known (a whole-file write, a shell command, or a base that moved). Filled for given paths only.
   */
  base?: string | null;
  ranges?: LineRange[] | null;
}

/**
 * Other active families holding (an intent) or having changed (post_edit) these paths, one row per path and
 * session; with `null`, every path they hold or changed (a plan may name any), at most 5,000 of each.
 */
export async function holdersOf(c: Coordination, paths: readonly string[] | null): Promise<HolderRow[]> {
  if (paths !== null && paths.length === 0) return [];
  // For given paths the path index leads; for all of them, the repo's active sessions do. What they hold and what
  // they changed are read in one statement (each statement is a round trip to PostgreSQL).
  const heldSql =
    paths === null
      ? `SELECT ip.path, MIN(i.created_at) AS since, 1 AS held, ${SESSION_COLS}
         FROM sessions s CROSS JOIN intents i CROSS JOIN intent_paths ip
         WHERE ${ACTIVE_OTHER} AND i.session_id = s.id AND i.released_at IS NULL AND i.created_at >= s.started_at AND ip.team_id = i.team_id AND ip.intent_number = i.number
         GROUP BY ip.path, ${SESSION_GROUP} LIMIT 5000`
      : `SELECT ip.path, MIN(i.created_at) AS since, 1 AS held, ${SESSION_COLS}
         FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number JOIN sessions s ON s.id = i.session_id
         WHERE ip.team_id = ? AND ip.repo_id = ? AND ip.path IN (${marks(paths)}) AND i.released_at IS NULL AND i.created_at >= s.started_at AND ${ACTIVE_OTHER}
         GROUP BY ip.path, ${SESSION_GROUP}`;
  const changedSql = `SELECT sf.path, sf.updated_at AS since, 0 AS held, ${SESSION_COLS}
     FROM session_files sf JOIN sessions s ON s.id = sf.session_id
     WHERE ${paths === null ? "" : `sf.path IN (${marks(paths)}) AND `}sf.updated_at >= s.started_at AND ${ACTIVE_OTHER}${paths === null ? " LIMIT 5000" : ""}`;
  const heldParams = paths === null ? activeOtherParams(c) : [c.teamId, c.repoId, ...paths, ...activeOtherParams(c)];
  const changedParams = [...(paths ?? []), ...activeOtherParams(c)];
  // (every path, for a plan: two statements, each led by the active sessions, which a compound one would not be)
  const both =
    paths === null
      ? [...(await c.sql.all<HolderRow>(heldSql, heldParams)), ...(await c.sql.all<HolderRow>(changedSql, changedParams))]
      : await c.sql.all<HolderRow>(`SELECT * FROM (${heldSql}) AS held_rows UNION ALL SELECT * FROM (${changedSql}) AS changed_rows`, [...heldParams, ...changedParams]);
  const byKey = new Map<string, HolderRow>();
  for (const r of both) {
    const key = `${r.path}\u0000${r.id}`;
    const had = byKey.get(key);
    byKey.set(key, had === undefined ? r : { ...had, held: Math.max(Number(had.held), Number(r.held)), since: Math.min(Number(had.since), Number(r.since)) });
  }
  const rows = [...byKey.keys()].sort(compareStrings).map((k) => byKey.get(k) as HolderRow);
  return paths === null ? rows : withRanges(c, rows);
}

/** Each holder's lines of the file, from its intents' targets and its changes (`HolderRow.ranges`). */
async function withRanges(c: Coordination, rows: HolderRow[]): Promise<HolderRow[]> {
  if (rows.length === 0) return rows;
  const paths = uniqueSorted(rows.map((r) => r.path));
  const sessions = uniqueSorted(rows.map((r) => r.id));
  type Part = { path: string; session_id: string; base: string | null; ranges: string | null };
  const parts = await c.sql.all<Part>(
    `SELECT ip.path, i.session_id, ip.base, ip.ranges FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number
     WHERE ip.team_id = ? AND ip.repo_id = ? AND ip.path IN (${marks(paths)}) AND i.released_at IS NULL AND i.session_id IN (${marks(sessions)})
     UNION ALL SELECT path, session_id, base, ranges FROM session_files WHERE session_id IN (${marks(sessions)}) AND path IN (${marks(paths)})`,
    [c.teamId, c.repoId, ...paths, ...sessions, ...sessions, ...paths],
  );
  const byKey = new Map<string, Part[]>();
  for (const p of parts) byKey.set(`${p.path}\u0000${p.session_id}`, [...(byKey.get(`${p.path}\u0000${p.session_id}`) ?? []), p]);
  return rows.map((r) => {
    const mine = byKey.get(`${r.path}\u0000${r.id}`) ?? [];
    const bases = new Set(mine.map((p) => p.base));
    const base = mine[0]?.base ?? null;
    // Known only when every part is known and on one base.
    const known = mine.length > 0 && bases.size === 1 && mine.every((p) => p.ranges !== null);
    return { ...r, base, ranges: known ? mergeRanges(mine.flatMap((p) => JSON.parse(p.ranges as string) as LineRange[])) : null };
  });
}
