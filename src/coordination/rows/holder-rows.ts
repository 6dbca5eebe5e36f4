import { ACTIVE_OTHER, activeOtherParams, type Coordination, SESSION_COLS, SESSION_GROUP, type SessionRow } from "../coordination.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { marks } from "../../store/database.js";

export interface HolderRow extends SessionRow {
  path: string;
  since: number;
  held: number;
}

/**
 * Other active families holding (an intent) or having changed (post_edit) these paths, one row per path and
 * session; with `null`, every path they hold or changed (a plan may name any), at most 5,000 of each.
 */
export async function holdersOf(c: Coordination, paths: readonly string[] | null): Promise<HolderRow[]> {
  if (paths !== null && paths.length === 0) return [];
  // For given paths the path index leads; for all of them, the repo's active sessions do.
  const held = await c.sql.all<HolderRow>(
    paths === null
      ? `SELECT ip.path, MIN(i.created_at) AS since, 1 AS held, ${SESSION_COLS}
         FROM sessions s CROSS JOIN intents i CROSS JOIN intent_paths ip
         WHERE ${ACTIVE_OTHER} AND i.session_id = s.id AND i.released_at IS NULL AND i.created_at >= s.started_at AND ip.team_id = i.team_id AND ip.intent_number = i.number
         GROUP BY ip.path, ${SESSION_GROUP} LIMIT 5000`
      : `SELECT ip.path, MIN(i.created_at) AS since, 1 AS held, ${SESSION_COLS}
         FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number JOIN sessions s ON s.id = i.session_id
         WHERE ip.team_id = ? AND ip.repo_id = ? AND ip.path IN (${marks(paths)}) AND i.released_at IS NULL AND i.created_at >= s.started_at AND ${ACTIVE_OTHER}
         GROUP BY ip.path, ${SESSION_GROUP}`,
    paths === null ? activeOtherParams(c) : [c.teamId, c.repoId, ...paths, ...activeOtherParams(c)],
  );
  const changed = await c.sql.all<HolderRow>(
    `SELECT sf.path, sf.updated_at AS since, 0 AS held, ${SESSION_COLS}
     FROM session_files sf JOIN sessions s ON s.id = sf.session_id
     WHERE ${paths === null ? "" : `sf.path IN (${marks(paths)}) AND `}sf.updated_at >= s.started_at AND ${ACTIVE_OTHER}${paths === null ? " LIMIT 5000" : ""}`,
    [...(paths ?? []), ...activeOtherParams(c)],
  );
  const byKey = new Map<string, HolderRow>();
  for (const r of [...held, ...changed]) {
    const key = `${r.path}\u0000${r.id}`;
    const had = byKey.get(key);
    byKey.set(key, had === undefined ? r : { ...had, held: Math.max(Number(had.held), Number(r.held)), since: Math.min(Number(had.since), Number(r.since)) });
  }
  return [...byKey.keys()].sort(compareStrings).map((k) => byKey.get(k) as HolderRow);
}
