import { reservationsOf } from "./reservations.js";
import { compareStrings } from "../errors/diagnostic.js";
import { marks, type Sql } from "../store/database.js";
import type { TeamRef } from "./evaluate-event.js";

export interface ActiveSession {
  readonly session_id: string;
  readonly external_id: string;
  /** The parent session's external id, for a subagent. */
  readonly parent_external_id: string | null;
  readonly tool: string;
  /** Who runs it (`COMITY_AGENT_NAME`, else the machine's name). */
  readonly label: string | null;
  /** Its working tree's folder (`~/work/vite-feature`), when the hook said. */
  readonly worktree: string | null;
  /** Its folder relative to the repo root (`.` at the root). */
  readonly cwd_path: string | null;
  readonly model: string | null;
  readonly branch: string | null;
  readonly head_sha: string | null;
  readonly repo_fingerprints: readonly string[];
  readonly started_at: string;
  readonly last_seen_at: string;
  readonly event_count: number;
  readonly intents: ReadonlyArray<{ readonly ref: string; readonly paths: readonly string[]; readonly lease_until: string }>;
  /** Its reservations (the MCP server's `reserve`): what it claimed in advance, until when, and why. */
  readonly reservations: ReadonlyArray<{ readonly ref: string; readonly pattern: string; readonly exclusive: boolean; readonly reason: string | null; readonly expires_at: string }>;
  readonly files: readonly string[];
  /** The symbols it changed (the latest change of each, at most 50), breaking first. */
  readonly changes: ReadonlyArray<{
    readonly path: string;
    readonly qualified_name: string;
    readonly change: string;
    readonly compatibility: string;
    readonly state: string;
    /** How it was and is called (`parseConfig(path, strict)`), where the hook could say and they differ. */
    readonly signature_before?: string | null;
    readonly signature_after?: string | null;
  }>;
  /** Collisions it has not been told of yet: it is told at its next event where its host shows them. */
  readonly queued: number;
  /** The messages other agents left for it (`comity message`), the latest 5, and whether it was given each. */
  readonly messages: ReadonlyArray<{ readonly from: string; readonly text: string; readonly at: string; readonly delivered: boolean }>;
}

/** An open collision: between two active sessions, not withdrawn; `session_id` is the one it affects. */
export interface OpenConflict {
  readonly ref: string;
  readonly kind: string;
  readonly subject: string;
  readonly paths: readonly string[];
  readonly session_id: string;
  readonly other_session_id: string;
  readonly told: boolean;
  readonly created_at: string;
}

export interface SessionsFilter {
  readonly now: number;
  readonly leaseMs: number;
  /** Only the sessions of these repos (by remote fingerprint); all of the team's when absent. */
  readonly fingerprints?: readonly string[] | undefined;
}

/** `GET /v1/sessions`: the team's active sessions (not ended, heard from within the lease), oldest first. */
export async function listSessions(sql: Sql, team: TeamRef, options: SessionsFilter): Promise<ActiveSession[]> {
  const fps = options.fingerprints ?? null;
  if (fps !== null && fps.length === 0) return [];
  const filter = fps === null ? "" : ` AND s.repo_id IN (SELECT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint IN (${marks(fps)}))`;
  const sessions = await sql.all<{
    id: string;
    repo_id: string;
    external_id: string;
    parent_external_id: string | null;
    tool: string;
    label: string | null;
    worktree: string | null;
    cwd_path: string | null;
    model: string | null;
    branch: string | null;
    head_sha: string | null;
    started_at: number;
    last_seen_at: number;
    event_count: number;
  }>(
    `SELECT s.id, s.repo_id, s.external_id, s.parent_external_id, s.tool, s.label, s.worktree, s.cwd_path, s.model, s.branch, s.head_sha, s.started_at, s.last_seen_at, s.event_count FROM sessions s
     WHERE s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ?${filter} ORDER BY s.started_at, s.external_id, s.id`,
    [team.id, options.now - options.leaseMs, ...(fps === null ? [] : [team.id, ...fps])],
  );
  // Three more queries for all the sessions at once, not three per session.
  const repoIds = [...new Set(sessions.map((x) => x.repo_id))];
  const ids = sessions.map((x) => x.id);
  const fpRows = await inChunks(repoIds, (chunk) =>
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
  const changeRows = await inChunks(ids, (chunk) =>
    sql.all<SymbolChangeRow & { session_id: string }>(
      `SELECT session_id, path, qualified_name, change, compatibility, state, created_at, signature_before, signature_after FROM symbol_changes WHERE session_id IN (${marks(chunk)})`,
      chunk,
    ),
  );
  const queuedRows = await inChunks(ids, (chunk) =>
    sql.all<{ session_id: string; n: number }>(
      `SELECT session_id, COUNT(*) AS n FROM conflicts WHERE team_id = ? AND session_id IN (${marks(chunk)}) AND told_at IS NULL AND withdrawn_at IS NULL AND other_session_id IN (${ACTIVE}) GROUP BY session_id`,
      [team.id, ...chunk, team.id, options.now - options.leaseMs],
    ),
  );
  const messageRows = await inChunks(ids, (chunk) =>
    sql.all<{ session_id: string; sender: string | null; text: string; created_at: number; delivered_at: number | null }>(
      `SELECT session_id, sender, text, created_at, delivered_at FROM notices WHERE team_id = ? AND session_id IN (${marks(chunk)}) ORDER BY created_at DESC, id`,
      [team.id, ...chunk],
    ),
  );
  const group = <T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const list = m.get(key(r));
      if (list === undefined) m.set(key(r), [r]);
      else list.push(r);
    }
    return m;
  };
  const fpsByRepo = group(fpRows, (r) => r.repo_id);
  const changesBySession = group(changeRows, (r) => r.session_id);
  const queuedBySession = new Map(queuedRows.map((r) => [r.session_id, Number(r.n)]));
  const intentsBySession = group(intentRows, (r) => r.session_id);
  const filesBySession = group(fileRows, (r) => r.session_id);
  const messagesBySession = group(messageRows, (r) => r.session_id);
  const reservationsBySession = await reservationsOf(sql, { teamId: team.id, now: options.now, leaseMs: options.leaseMs }, repoIds);
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
      parent_external_id: x.parent_external_id,
      tool: x.tool,
      label: x.label,
      worktree: x.worktree,
      cwd_path: x.cwd_path,
      model: x.model,
      branch: x.branch,
      head_sha: x.head_sha,
      repo_fingerprints: (fpsByRepo.get(x.repo_id) ?? []).map((f) => f.fingerprint).sort(compareStrings),
      started_at: new Date(Number(x.started_at)).toISOString(),
      last_seen_at: new Date(Number(x.last_seen_at)).toISOString(),
      event_count: Number(x.event_count),
      intents: [...intents].sort((a, b) => a[0] - b[0]).map(([n, paths]) => ({ ref: `INT-${n}`, paths: paths.sort(compareStrings), lease_until: leaseUntil })),
      reservations: (reservationsBySession.get(x.id) ?? []).map((r) => ({ ...r, expires_at: new Date(r.expires_at).toISOString() })),
      files: (filesBySession.get(x.id) ?? []).map((f) => f.path).sort(compareStrings),
      changes: latestChanges(changesBySession.get(x.id) ?? []),
      queued: queuedBySession.get(x.id) ?? 0,
      messages: (messagesBySession.get(x.id) ?? [])
        .slice(0, 5)
        .map((m) => ({ from: m.sender ?? "someone", text: m.text, at: new Date(Number(m.created_at)).toISOString(), delivered: m.delivered_at !== null })),
    };
  });
}

/** The ids of the team's active sessions, as a subquery taking (team id, oldest last_seen_at). */
const ACTIVE = "SELECT id FROM sessions WHERE team_id = ? AND ended_at IS NULL AND last_seen_at >= ?";

/**
 * The team's open collisions between active sessions (not withdrawn), oldest first; with `fingerprints`, those
 * whose affected session works in one of these repos. Each is one row per session it concerns: the affected
 * one's (`told` once it was told) and, for file overlaps, the other's, told that someone joined.
 */
export async function listConflicts(sql: Sql, team: TeamRef, options: SessionsFilter): Promise<OpenConflict[]> {
  const fps = options.fingerprints ?? null;
  if (fps !== null && fps.length === 0) return [];
  const since = options.now - options.leaseMs;
  const filter =
    fps === null ? "" : ` AND k.session_id IN (SELECT id FROM sessions WHERE team_id = ? AND repo_id IN (SELECT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint IN (${marks(fps)})))`;
  const rows = await sql.all<{ number: number; kind: string; subject: string; paths: string; session_id: string; other_session_id: string; told_at: number | null; created_at: number }>(
    `SELECT k.number, k.kind, k.subject, k.paths, k.session_id, k.other_session_id, k.told_at, k.created_at FROM conflicts k
     WHERE k.team_id = ? AND k.role = 'affected' AND k.withdrawn_at IS NULL AND k.session_id IN (${ACTIVE}) AND k.other_session_id IN (${ACTIVE})${filter}
     ORDER BY k.number`,
    [team.id, team.id, since, team.id, since, ...(fps === null ? [] : [team.id, team.id, ...fps])],
  );
  return rows.map((r) => ({
    ref: `CF-${Number(r.number)}`,
    kind: r.kind,
    subject: r.subject,
    paths: parsePaths(r.paths),
    session_id: r.session_id,
    other_session_id: r.other_session_id,
    told: r.told_at !== null,
    created_at: new Date(Number(r.created_at)).toISOString(),
  }));
}

function parsePaths(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((p): p is string => typeof p === "string").sort(compareStrings) : [];
  } catch {
    return [];
  }
}

/** A row of `symbol_changes` as the sessions' report reads it (the signatures are null in rows from before they were kept). */
interface SymbolChangeRow {
  readonly path: string;
  readonly qualified_name: string;
  readonly change: string;
  readonly compatibility: string;
  readonly state: string;
  readonly created_at: number;
  readonly signature_before: string | null;
  readonly signature_after: string | null;
}

/** The latest change of each symbol, breaking first, then by path and name; at most 50. */
function latestChanges(rows: readonly SymbolChangeRow[]): ActiveSession["changes"] {
  const latest = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    const k = `${r.path}\u0000${r.qualified_name}`;
    const seen = latest.get(k);
    if (seen === undefined || Number(r.created_at) >= Number(seen.created_at)) latest.set(k, r);
  }
  const rank = (c: string): number => (c === "breaking" ? 0 : c === "compatible" ? 1 : 2);
  return [...latest.values()]
    .sort((a, b) => rank(a.compatibility) - rank(b.compatibility) || compareStrings(a.path, b.path) || compareStrings(a.qualified_name, b.qualified_name))
    .slice(0, 50)
    .map((r) => ({
      path: r.path,
      qualified_name: r.qualified_name,
      change: r.change,
      compatibility: r.compatibility,
      state: r.state,
      // (only where known: a report without them reads as before)
      ...(r.signature_before == null && r.signature_after == null ? {} : { signature_before: r.signature_before ?? null, signature_after: r.signature_after ?? null }),
    }));
}

async function inChunks<T, R>(values: readonly T[], query: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < values.length; i += 500) out.push(...(await query(values.slice(i, i + 500))));
  return out;
}
