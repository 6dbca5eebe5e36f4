import { randomUUID } from "node:crypto";
import type { SessionRow } from "../coordination.js";
import { insertRows, uniqueSorted } from "./sql-rows.js";
import type { EvaluateRequest } from "../wire.js";
import { first, marks, type Sql } from "../../store/database.js";

/**
 * The session that stands for each agent of this repo in conflicts: the one whose external id is the family's
 * (the parent), so that a conflict between two agents is one, whichever of their subagents meets it. Sessions
 * already read (`known`) answer for their own external id without a query: a repo has one session of an external
 * id, so an agent that is its own family (no parent) is its own representative.
 */
export async function familyReps(
  c: { sql: Sql; teamId: string; repoId: string },
  families: readonly string[],
  known: readonly Pick<SessionRow, "id" | "external_id" | "repo_id">[] = [],
): Promise<Map<string, string>> {
  const reps = new Map<string, string>();
  for (const s of known) if (s.repo_id === c.repoId) reps.set(s.external_id, s.id);
  const list = uniqueSorted(families).filter((f) => !reps.has(f));
  if (list.length === 0) return reps;
  const rows = await c.sql.all<{ id: string; external_id: string }>(`SELECT id, external_id FROM sessions WHERE team_id = ? AND repo_id = ? AND external_id IN (${marks(list)})`, [
    c.teamId,
    c.repoId,
    ...list,
  ]);
  for (const r of rows) reps.set(r.external_id, r.id);
  return reps;
}

/** The team's repo one of these fingerprints already names (the oldest if several do), else a new one; every fingerprint then points at it. */
export async function resolveRepo(sql: Sql, teamId: string, fingerprints: readonly string[], now: number): Promise<string> {
  const fps = uniqueSorted(fingerprints);
  const known = await sql.all<{ fingerprint: string; repo_id: string }>(
    `SELECT f.fingerprint, f.repo_id FROM repo_fingerprints f JOIN repos r ON r.id = f.repo_id WHERE f.team_id = ? AND f.fingerprint IN (${marks(fps)}) ORDER BY r.created_at, r.id`,
    [teamId, ...fps],
  );
  const repoId = known[0]?.repo_id ?? randomUUID();
  if (known.length === 0) await sql.run("INSERT INTO repos (id, team_id, created_at) VALUES (?, ?, ?)", [repoId, teamId, now]);
  const have = new Set(known.map((k) => k.fingerprint));
  const missing = fps.filter((fp) => !have.has(fp));
  await insertRows(
    sql,
    "INSERT INTO repo_fingerprints (team_id, fingerprint, repo_id) VALUES",
    missing.map((fp) => [teamId, fp, repoId]),
    "ON CONFLICT (team_id, fingerprint) DO NOTHING",
  );
  return repoId;
}

/**
 * Registers the session on its first event in this repo (whatever the event: a server restart must not lose it),
 * else refreshes it; one statement either way. A session that had ended or fallen silent starts a new stretch
 * of activity.
 */
export async function touchSession(c: { sql: Sql; teamId: string; now: number; leaseMs: number; repoId: string }, request: EvaluateRequest): Promise<SessionRow> {
  const s = request.session;
  const row = await first<SessionRow>(
    c.sql,
    `INSERT INTO sessions (id, team_id, repo_id, external_id, tool, model, parent_external_id, branch, head_sha, label, cwd_path, worktree, event_count, started_at, last_seen_at, ended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
     ON CONFLICT (team_id, repo_id, external_id) DO UPDATE SET
       tool = excluded.tool, model = COALESCE(excluded.model, sessions.model), branch = excluded.branch,
       head_sha = COALESCE(excluded.head_sha, sessions.head_sha), label = COALESCE(excluded.label, sessions.label),
       cwd_path = COALESCE(excluded.cwd_path, sessions.cwd_path), worktree = COALESCE(excluded.worktree, sessions.worktree), event_count = sessions.event_count + 1,
       started_at = CASE WHEN sessions.ended_at IS NOT NULL OR sessions.last_seen_at < ? THEN excluded.started_at ELSE sessions.started_at END,
       last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at
     RETURNING id, external_id, tool, branch, started_at, status_excerpt, label, cwd_path, worktree, COALESCE(parent_external_id, external_id) AS family, repo_id`,
    [
      randomUUID(),
      c.teamId,
      c.repoId,
      s.external_id,
      s.tool,
      s.model ?? null,
      s.parent_external_id ?? null,
      request.repo.branch ?? null,
      request.repo.head_sha ?? null,
      s.label ?? null,
      request.repo.cwd_path ?? null,
      request.repo.worktree ?? null,
      c.now,
      c.now,
      request.event === "session_end" ? c.now : null,
      c.now - c.leaseMs,
    ],
  );
  if (row === undefined) throw new Error("session row missing after upsert");
  return row;
}
