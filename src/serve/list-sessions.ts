import { compareStrings } from "../errors/diagnostic.js";
import type { Sql } from "./database.js";
import type { Team } from "./teams.js";

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
export async function listSessions(sql: Sql, team: Team, options: { now: number; leaseMs: number; fingerprint?: string | undefined }): Promise<ActiveSession[]> {
  const filter = options.fingerprint === undefined ? "" : " AND s.repo_id IN (SELECT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint = ?)";
  const sessions = await sql.all<{ id: string; repo_id: string; external_id: string; tool: string; model: string | null; branch: string | null; head_sha: string | null; started_at: number; last_seen_at: number; event_count: number }>(
    `SELECT s.id, s.repo_id, s.external_id, s.tool, s.model, s.branch, s.head_sha, s.started_at, s.last_seen_at, s.event_count FROM sessions s
     WHERE s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ?${filter} ORDER BY s.started_at, s.external_id, s.id`,
    [team.id, options.now - options.leaseMs, ...(options.fingerprint === undefined ? [] : [team.id, options.fingerprint])],
  );
  const out: ActiveSession[] = [];
  for (const s of sessions) {
    const fps = await sql.all<{ fingerprint: string }>("SELECT fingerprint FROM repo_fingerprints WHERE team_id = ? AND repo_id = ? ORDER BY fingerprint", [team.id, s.repo_id]);
    const intentRows = await sql.all<{ number: number; path: string }>(
      `SELECT i.number, ip.path FROM intents i JOIN intent_paths ip ON ip.team_id = i.team_id AND ip.intent_number = i.number
       WHERE i.session_id = ? AND i.released_at IS NULL AND i.created_at >= ? ORDER BY i.number, ip.path`,
      [s.id, s.started_at],
    );
    // The lease slides with the session's activity: every intent it holds lasts until it falls silent.
    const leaseUntil = new Date(Number(s.last_seen_at) + options.leaseMs).toISOString();
    const intents = new Map<number, { paths: string[] }>();
    for (const r of intentRows) {
      const e = intents.get(Number(r.number)) ?? { paths: [] };
      e.paths.push(r.path);
      intents.set(Number(r.number), e);
    }
    const files = await sql.all<{ path: string }>("SELECT path FROM session_files WHERE session_id = ? ORDER BY path", [s.id]);
    out.push({
      session_id: s.id,
      external_id: s.external_id,
      tool: s.tool,
      model: s.model,
      branch: s.branch,
      head_sha: s.head_sha,
      repo_fingerprints: fps.map((f) => f.fingerprint),
      started_at: new Date(Number(s.started_at)).toISOString(),
      last_seen_at: new Date(Number(s.last_seen_at)).toISOString(),
      event_count: Number(s.event_count),
      intents: [...intents].map(([n, e]) => ({ ref: `INT-${n}`, paths: e.paths.sort(compareStrings), lease_until: leaseUntil })),
      files: files.map((f) => f.path).sort(compareStrings),
    });
  }
  return out;
}
