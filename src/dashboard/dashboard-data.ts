import { compareStrings } from "../errors/diagnostic.js";
import { marks, type Sql } from "../store/database.js";
import { listConflicts, listSessions, type ActiveSession, type OpenConflict } from "../coordination/list-sessions.js";
import { asPolicy, type TeamPolicy } from "../coordination/wire.js";
import { shortSessionId } from "../coordination/coordination-text.js";

/** How far back the dashboard shows breaking changes and conflicts. */
export const DASHBOARD_HISTORY_MS = 12 * 60 * 60 * 1000;

export interface RepoSummary {
  readonly id: string;
  /** Its root package's name when it has one, else the start of its first remote fingerprint. */
  readonly label: string;
  readonly sessions: number;
  readonly conflicts: number;
  readonly breaking: number;
}

export interface BreakingChange {
  readonly repo_id: string;
  readonly repo: string;
  readonly session_id: string;
  readonly who: string;
  readonly path: string;
  readonly qualified_name: string;
  readonly summary: string;
  readonly state: string;
  readonly at: number;
}

export interface ConflictEntry {
  readonly ref: string;
  readonly kind: string;
  readonly subject: string;
  readonly role: string;
  readonly affected: string;
  readonly affected_id: string;
  readonly other: string;
  readonly other_id: string;
  readonly created_at: number;
  readonly told_at: number | null;
  readonly withdrawn_at: number | null;
}

export interface Overview {
  readonly team: string;
  readonly policy: TeamPolicy;
  readonly repos: readonly RepoSummary[];
  readonly breaking: readonly BreakingChange[];
  readonly conflicts: ReadonlyArray<OpenConflict & { readonly affected: string; readonly other: string }>;
  readonly sessions: number;
}

export interface RepoPage {
  readonly repo: { readonly id: string; readonly label: string; readonly fingerprints: readonly string[] };
  readonly sessions: ReadonlyArray<ActiveSession & { readonly status_excerpt: string | null }>;
  readonly conflicts: readonly ConflictEntry[];
  readonly breaking: readonly BreakingChange[];
}

export interface SessionPage {
  readonly session: {
    readonly id: string;
    readonly external_id: string;
    readonly tool: string;
    readonly label: string | null;
    readonly branch: string | null;
    readonly worktree: string | null;
    readonly cwd_path: string | null;
    readonly started_at: number;
    readonly last_seen_at: number;
    readonly ended_at: number | null;
    readonly repo_id: string;
    readonly repo: string;
    readonly status_excerpt: string | null;
  };
  readonly events: ReadonlyArray<{ readonly at: number; readonly event: string; readonly decision: string; readonly refs: readonly string[]; readonly paths: readonly string[] }>;
  readonly conflicts: readonly ConflictEntry[];
}

interface Where {
  readonly teamId: string;
  readonly now: number;
  readonly leaseMs: number;
}

const label = (r: { label: string | null; fp: string | null }): string => r.label ?? (r.fp === null ? "repo" : `repo ${r.fp.slice(0, 8)}`);
const who = (s: { label: string | null; external_id: string }): string => `${s.label ?? "?"} ${shortSessionId(s.external_id)}`;

/** The team's repos with activity, its recent breaking changes and open conflicts, and its policy. */
export async function readOverview(sql: Sql, where: Where): Promise<Overview> {
  const team = (await sql.all<{ name: string; policy: string }>("SELECT name, policy FROM teams WHERE id = ?", [where.teamId]))[0];
  const sessions = await listSessions(sql, { id: where.teamId }, where);
  const conflicts = await listConflicts(sql, { id: where.teamId }, where);
  const breaking = await recentBreaking(sql, where, null);
  const repoOf = new Map<string, string>();
  const repoIds = [...new Set([...sessions.map((s) => s.session_id), ...breaking.map((b) => b.session_id)])];
  if (repoIds.length > 0) {
    for (const r of await sql.all<{ id: string; repo_id: string }>(`SELECT id, repo_id FROM sessions WHERE id IN (${marks(repoIds)})`, repoIds)) repoOf.set(r.id, r.repo_id);
  }
  const repos = new Map<string, { sessions: number; conflicts: number; breaking: number }>();
  const bump = (id: string | undefined, k: "sessions" | "conflicts" | "breaking") => {
    if (id === undefined) return;
    const e = repos.get(id) ?? { sessions: 0, conflicts: 0, breaking: 0 };
    e[k]++;
    repos.set(id, e);
  };
  for (const s of sessions) bump(repoOf.get(s.session_id), "sessions");
  for (const c of conflicts) bump(repoOf.get(c.session_id), "conflicts");
  for (const b of breaking) bump(b.repo_id, "breaking");
  const labels = await repoLabels(sql, [...repos.keys()]);
  const names = new Map(sessions.map((s) => [s.session_id, who(s)]));
  return {
    team: team?.name ?? "?",
    policy: asPolicy(team?.policy),
    repos: [...repos].map(([id, n]) => ({ id, label: labels.get(id) ?? "repo", ...n })).sort((a, b) => b.sessions - a.sessions || compareStrings(a.label, b.label)),
    breaking,
    conflicts: conflicts.map((c) => ({ ...c, affected: names.get(c.session_id) ?? "?", other: names.get(c.other_session_id) ?? "?" })),
    sessions: sessions.length,
  };
}

/** One repo: its active sessions, the conflicts of the last hours as a timeline, its breaking changes. Null when it is not the team's. */
export async function readRepoPage(sql: Sql, where: Where, repoId: string): Promise<RepoPage | null> {
  const fps = await sql.all<{ fingerprint: string }>("SELECT fingerprint FROM repo_fingerprints WHERE team_id = ? AND repo_id = ? ORDER BY fingerprint", [where.teamId, repoId]);
  if (fps.length === 0) return null;
  const fingerprints = fps.map((f) => f.fingerprint);
  const sessions = await listSessions(sql, { id: where.teamId }, { ...where, fingerprints });
  const excerpts = new Map<string, string | null>();
  if (sessions.length > 0) {
    const ids = sessions.map((s) => s.session_id);
    for (const r of await sql.all<{ id: string; status_excerpt: string | null }>(`SELECT id, status_excerpt FROM sessions WHERE id IN (${marks(ids)})`, ids)) excerpts.set(r.id, r.status_excerpt);
  }
  const conflicts = await conflictTimeline(sql, where, "s.repo_id = ?", [repoId]);
  return {
    repo: { id: repoId, label: (await repoLabels(sql, [repoId])).get(repoId) ?? "repo", fingerprints },
    sessions: sessions.map((s) => ({ ...s, status_excerpt: excerpts.get(s.session_id) ?? null })),
    conflicts,
    breaking: await recentBreaking(sql, where, repoId),
  };
}

/** One session: its events in order, with what it was told, and its conflicts. Null when it is not the team's. */
export async function readSessionPage(sql: Sql, where: Where, sessionId: string): Promise<SessionPage | null> {
  const row = (
    await sql.all<Omit<SessionPage["session"], "repo">>(
      `SELECT s.id, s.external_id, s.tool, s.label, s.branch, s.worktree, s.cwd_path, s.started_at, s.last_seen_at, s.ended_at, s.repo_id, s.status_excerpt
       FROM sessions s WHERE s.id = ? AND s.team_id = ?`,
      [sessionId, where.teamId],
    )
  )[0];
  if (row === undefined) return null;
  const events = await sql.all<{ at: number; event: string; decision: string; refs: string; paths: string }>(
    "SELECT at, event, decision, refs, paths FROM session_events WHERE session_id = ? ORDER BY at DESC LIMIT 200",
    [sessionId],
  );
  const parse = (t: string): string[] => {
    try {
      const v: unknown = JSON.parse(t);
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    } catch {
      return [];
    }
  };
  return {
    session: {
      ...row,
      started_at: Number(row.started_at),
      last_seen_at: Number(row.last_seen_at),
      ended_at: row.ended_at === null ? null : Number(row.ended_at),
      repo: (await repoLabels(sql, [row.repo_id])).get(row.repo_id) ?? "repo",
    },
    events: events.reverse().map((e) => ({ at: Number(e.at), event: e.event, decision: e.decision, refs: parse(e.refs), paths: parse(e.paths) })),
    conflicts: await conflictTimeline(sql, where, "(k.session_id = ? OR k.other_session_id = ?)", [sessionId, sessionId]),
  };
}

async function repoLabels(sql: Sql, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all<{ id: string; label: string | null; fp: string | null }>(
    `SELECT r.id, r.label, (SELECT MIN(f.fingerprint) FROM repo_fingerprints f WHERE f.repo_id = r.id) AS fp FROM repos r WHERE r.id IN (${marks(ids)})`,
    [...ids],
  );
  return new Map(rows.map((r) => [r.id, label(r)]));
}

async function recentBreaking(sql: Sql, where: Where, repoId: string | null): Promise<BreakingChange[]> {
  const rows = await sql.all<{ repo_id: string; session_id: string; label: string | null; external_id: string; path: string; qualified_name: string; summary: string; state: string; at: number }>(
    `SELECT sc.repo_id, sc.session_id, s.label, s.external_id, sc.path, sc.qualified_name, sc.summary, sc.state, sc.created_at AS at
     FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.team_id = ? AND sc.compatibility = 'breaking' AND sc.created_at >= ?${repoId === null ? "" : " AND sc.repo_id = ?"}
     ORDER BY sc.created_at DESC, sc.path, sc.qualified_name LIMIT 50`,
    [where.teamId, where.now - DASHBOARD_HISTORY_MS, ...(repoId === null ? [] : [repoId])],
  );
  const labels = await repoLabels(sql, [...new Set(rows.map((r) => r.repo_id))]);
  return rows.map((r) => ({
    repo_id: r.repo_id,
    repo: labels.get(r.repo_id) ?? "repo",
    session_id: r.session_id,
    who: who(r),
    path: r.path,
    qualified_name: r.qualified_name,
    summary: r.summary,
    state: r.state,
    at: Number(r.at),
  }));
}

async function conflictTimeline(sql: Sql, where: Where, filter: string, params: readonly unknown[]): Promise<ConflictEntry[]> {
  const rows = await sql.all<{
    number: number;
    kind: string;
    subject: string;
    role: string;
    session_id: string;
    other_session_id: string;
    created_at: number;
    told_at: number | null;
    withdrawn_at: number | null;
    a_label: string | null;
    a_ext: string;
    o_label: string | null;
    o_ext: string;
  }>(
    `SELECT k.number, k.kind, k.subject, k.role, k.session_id, k.other_session_id, k.created_at, k.told_at, k.withdrawn_at,
       s.label AS a_label, s.external_id AS a_ext, o.label AS o_label, o.external_id AS o_ext
     FROM conflicts k JOIN sessions s ON s.id = k.session_id JOIN sessions o ON o.id = k.other_session_id
     WHERE k.team_id = ? AND k.created_at >= ? AND ${filter}
     ORDER BY k.created_at DESC, k.number DESC LIMIT 100`,
    [where.teamId, where.now - DASHBOARD_HISTORY_MS, ...params],
  );
  return rows.map((r) => ({
    ref: `CF-${Number(r.number)}`,
    kind: r.kind,
    subject: r.subject,
    role: r.role,
    affected: who({ label: r.a_label, external_id: r.a_ext }),
    affected_id: r.session_id,
    other: who({ label: r.o_label, external_id: r.o_ext }),
    other_id: r.other_session_id,
    created_at: Number(r.created_at),
    told_at: r.told_at === null ? null : Number(r.told_at),
    withdrawn_at: r.withdrawn_at === null ? null : Number(r.withdrawn_at),
  }));
}
