import { compareStrings } from "../errors/diagnostic.js";
import { marks, type Sql } from "../store/database.js";
import type { TeamRef } from "./evaluate-event.js";

export interface ActiveSession {
  readonly session_id: string;
  readonly external_id: string;
  readonly tool: string;
  readonly model: string | null;
  readonly branch: string | null;
  readonly head_sha: string | null;
  readonly repo_fingerprints: readonly string[];
  readonly started_at: string;
  readonly last_seen_at: string;
  readonly event_count: number;
  readonly intents: ReadonlyArray<{ readonly ref: string; readonly paths: readonly string[]; readonly lease_until: string }>;
  readonly files: readonly string[];
}

/** `GET /v1/sessions`: the team's active sessions (not ended, heard from within the lease), oldest first. */
export async function listSessions(sql: Sql, team: TeamRef, options: { now: number; leaseMs: number; fingerprint?: string | undefined }): Promise<ActiveSession[]> {
  const filter = options.fingerprint === undefined ? "" : " AND s.repo_id IN (SELECT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint = ?)";
  const sessions = await sql.all<{ id: string; repo_id: string; external_id: string; tool: string; model: string | null; branch: string | null; head_sha: string | null; started_at: number; last_seen_at: number; event_count: number }>(
    `SELECT s.id, s.repo_id, s.external_id, s.tool, s.model, s.branch, s.head_sha, s.started_at, s.last_seen_at, s.event_count FROM sessions s
     WHERE s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ?${filter} ORDER BY s.started_at, s.external_id, s.id`,
    [team.id, options.now - options.leaseMs, ...(options.fingerprint === undefined ? [] : [team.id, options.fingerprint])],
  );
  // Three more queries for all the sessions at once, not three per session.
  const repoIds = [...new Set(sessions.map((x) => x.repo_id))];
  const ids = sessions.map((x) => x.id);
  const fps = await inChunks(repoIds, (chunk) =>
    sql.all<{ repo_id: string; fingerprint: string }>(`SELECT repo_id, fingerprint FROM repo_fingerprints WHERE team_id = ? AND repo_id IN (${marks(chunk)})`, [team.id, ...chunk]),
  );
  const intentRows = await inChunks(ids, (chunk) =>
    sql.all<{ session_id: string; number: number; path: string; created_at: number }>(
      `SELECT i.session_id, i.number, ip.path, i.created_at FROM intents i JOIN intent_paths ip ON ip.team_id = i.team_id AND ip.intent_number = i.number
       WHERE i.session_id IN (${marks(chunk)}) AND i.released_at IS NULL`,
      chunk,
    ),
  );
  const fileRows = await inChunks(ids, (chunk) => sql.all<{ session_id: string; path: string }>(`SELECT session_id, path FROM session_files WHERE session_id IN (${marks(chunk)})`, chunk));
  const group = <T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const list = m.get(key(r));
      if (list === undefined) m.set(key(r), [r]);
      else list.push(r);
    }
    return m;
  };
  const fpsByRepo = group(fps, (r) => r.repo_id);
  const intentsBySession = group(intentRows, (r) => r.session_id);
  const filesBySession = group(fileRows, (r) => r.session_id);
  return sessions.map((x) => {
    // The lease slides with the session's activity: every intent it holds lasts until it falls silent; one made
    // before the session fell silent or ended no longer holds.
    const leaseUntil = new Date(Number(x.last_seen_at) + options.leaseMs).toISOString();
    const intents = new Map<number, string[]>();
    for (const r of intentsBySession.get(x.id) ?? []) {
      if (Number(r.created_at) < Number(x.started_at)) continue;
      const paths = intents.get(Number(r.number));
      if (paths === undefined) intents.set(Number(r.number), [r.path]);
      else paths.push(r.path);
    }
    return {
      session_id: x.id,
      external_id: x.external_id,
      tool: x.tool,
      model: x.model,
      branch: x.branch,
      head_sha: x.head_sha,
      repo_fingerprints: (fpsByRepo.get(x.repo_id) ?? []).map((f) => f.fingerprint).sort(compareStrings),
      started_at: new Date(Number(x.started_at)).toISOString(),
      last_seen_at: new Date(Number(x.last_seen_at)).toISOString(),
      event_count: Number(x.event_count),
      intents: [...intents].sort((a, b) => a[0] - b[0]).map(([n, paths]) => ({ ref: `INT-${n}`, paths: paths.sort(compareStrings), lease_until: leaseUntil })),
      files: (filesBySession.get(x.id) ?? []).map((f) => f.path).sort(compareStrings),
    };
  });
}

async function inChunks<T, R>(values: readonly T[], query: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < values.length; i += 500) out.push(...(await query(values.slice(i, i + 500))));
  return out;
}
