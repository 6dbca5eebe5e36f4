import { randomUUID } from "node:crypto";
import { ComityError } from "../errors/comity-error.js";
import { compareStrings } from "../errors/diagnostic.js";
import { marks, type Sql } from "../store/database.js";
import { ago, code, describeSession, quoted, shortSessionId } from "./coordination-text.js";
import type { SessionRow } from "./coordination.js";
import { SESSION_COLS } from "./coordination.js";
import { describeRanges, mergeRanges, type LineRange } from "./line-ranges.js";
import { reservationsMeetingPath } from "./reservations.js";
import type { MessageAnswer, MessageRequest, WhoAnswer } from "./wire.js";

/** The team and the clock and lease a request is answered with. */
export interface ChannelScope {
  readonly teamId: string;
  readonly now: number;
  readonly leaseMs: number;
}

/** The repos these fingerprints name in the team (a repo once seen by a hook). */
async function reposOf(sql: Sql, scope: ChannelScope, fingerprints: readonly string[]): Promise<string[]> {
  if (fingerprints.length === 0) return [];
  const rows = await sql.all<{ repo_id: string }>(`SELECT DISTINCT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint IN (${marks(fingerprints)})`, [scope.teamId, ...fingerprints]);
  return rows.map((r) => r.repo_id).sort(compareStrings);
}

/** The team's active sessions of these repos (every repo of the team when none is given). */
async function activeSessions(sql: Sql, scope: ChannelScope, repoIds: readonly string[] | null): Promise<Array<SessionRow & { last_seen_at: number }>> {
  return sql.all<SessionRow & { last_seen_at: number }>(
    `SELECT ${SESSION_COLS}, s.last_seen_at FROM sessions s WHERE s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ?${repoIds === null ? "" : ` AND s.repo_id IN (${marks(repoIds)})`}
     ORDER BY s.last_seen_at DESC, s.id`,
    [scope.teamId, scope.now - scope.leaseMs, ...(repoIds ?? [])],
  );
}

/**
 * Whom `to` names among active sessions: a session id or its first characters (4 at least), or a label, compared
 * without case; in the sender's repo first, else anywhere in the team. Throws when none or several match, naming the
 * candidates.
 */
function resolve(to: string, inRepo: readonly SessionRow[], inTeam: readonly SessionRow[]): SessionRow {
  const want = to.trim();
  const lower = want.toLowerCase();
  const matches = (s: SessionRow): boolean =>
    s.external_id === want || (want.length >= 4 && (s.external_id.startsWith(want) || shortSessionId(s.external_id) === want)) || (s.label ?? "").toLowerCase() === lower;
  for (const pool of [inRepo, inTeam]) {
    const found = [...new Map(pool.filter(matches).map((s) => [s.id, s])).values()];
    if (found.length === 1) return found[0] as SessionRow;
    if (found.length > 1) {
      throw new ComityError(
        "INVALID_ARGUMENT",
        `'${to}' names ${found.length} active sessions: ${found.map((s) => `${shortSessionId(s.external_id)} (${describeSession(s)})`).join("; ")}; give a session id`,
      );
    }
  }
  const known = inRepo.slice(0, 8).map((s) => `${shortSessionId(s.external_id)} (${describeSession(s)})`);
  throw new ComityError("INVALID_ARGUMENT", `no active session is '${to}'${known.length === 0 ? ": none is active in this repo" : `; active in this repo: ${known.join("; ")}`}`);
}

/**
 * Leaves a message for another agent (`comity message`): it is given to that agent as context at its next event
 * that takes context (a prompt, after a tool, a session start), once. The sender is found among the repo's active
 * sessions by its label and working tree, when one matches, so that the message says whom to answer.
 */
export async function sendMessage(sql: Sql, scope: ChannelScope, request: MessageRequest): Promise<MessageAnswer> {
  const repos = await reposOf(sql, scope, request.repo.remote_fingerprints);
  const inRepo = repos.length === 0 ? [] : await activeSessions(sql, scope, repos);
  const to = resolve(request.to, inRepo, await activeSessions(sql, scope, null));
  const senders = inRepo.filter((s) => s.id !== to.id && (s.label ?? "") === request.from.label && (request.from.worktree == null || s.worktree === request.from.worktree));
  const sender = senders.length === 1 ? (senders[0] as SessionRow) : null;
  // No session of its own found (run by a person, say): named as it named itself.
  const from = request.from;
  const named = `${quoted(from.label, 64)}${from.worktree == null ? "" : ` in ${code(from.worktree, 120)}`}${from.branch == null ? "" : ` on branch ${code(from.branch, 120)}`}`;
  await sql.run("INSERT INTO notices (id, session_id, text, created_at, team_id, sender_session_id, sender) VALUES (?, ?, ?, ?, ?, ?, ?)", [
    randomUUID(),
    to.id,
    request.text,
    scope.now,
    scope.teamId,
    sender?.id ?? null,
    sender === null ? named : describeSession(sender),
  ]);
  return { to: { session: shortSessionId(to.external_id), description: describeSession(to) } };
}

/** The messages waiting for a session (or its agent, for a subagent), oldest first; marked delivered. */
export async function takeMessages(sql: Sql, scope: ChannelScope, sessionIds: readonly string[]): Promise<Array<{ sender: string; reply: string | null; text: string; at: number }>> {
  const ids = [...new Set(sessionIds)];
  const rows = await sql.all<{ id: string; sender: string | null; sender_session_id: string | null; text: string; created_at: number; external_id: string | null }>(
    `SELECT n.id, n.sender, n.sender_session_id, n.text, n.created_at, s.external_id FROM notices n LEFT JOIN sessions s ON s.id = n.sender_session_id
     WHERE n.session_id IN (${marks(ids)}) AND n.delivered_at IS NULL AND n.team_id = ? ORDER BY n.created_at, n.id`,
    [...ids, scope.teamId],
  );
  if (rows.length === 0) return [];
  await sql.run(`UPDATE notices SET delivered_at = ? WHERE id IN (${marks(rows.map((r) => r.id))})`, [scope.now, ...rows.map((r) => r.id)]);
  return rows.map((r) => ({ sender: r.sender ?? "someone", reply: r.external_id === null ? null : shortSessionId(r.external_id), text: r.text, at: Number(r.created_at) }));
}

/** Who holds or changed a file of the repo (`comity who`): each active session, what it does there and its last status. */
export async function whoHolds(sql: Sql, scope: ChannelScope, fingerprints: readonly string[], filePath: string): Promise<WhoAnswer> {
  const repos = await reposOf(sql, scope, fingerprints);
  if (repos.length === 0) return { path: filePath, sessions: [] };
  const held = await sql.all<SessionRow & { since: number; ranges: string | null }>(
    `SELECT ${SESSION_COLS}, i.created_at AS since, ip.ranges FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number JOIN sessions s ON s.id = i.session_id
     WHERE ip.team_id = ? AND ip.repo_id IN (${marks(repos)}) AND ip.path = ? AND i.released_at IS NULL AND i.created_at >= s.started_at AND s.ended_at IS NULL AND s.last_seen_at >= ?`,
    [scope.teamId, ...repos, filePath, scope.now - scope.leaseMs],
  );
  const changed = await sql.all<SessionRow & { since: number; ranges: string | null }>(
    `SELECT ${SESSION_COLS}, sf.updated_at AS since, sf.ranges FROM session_files sf JOIN sessions s ON s.id = sf.session_id
     WHERE sf.path = ? AND s.team_id = ? AND s.repo_id IN (${marks(repos)}) AND sf.updated_at >= s.started_at AND s.ended_at IS NULL AND s.last_seen_at >= ?`,
    [filePath, scope.teamId, ...repos, scope.now - scope.leaseMs],
  );
  const by = new Map<string, { row: SessionRow; holds: boolean; changed: boolean; since: number; ranges: LineRange[] | null }>();
  for (const [rows, kind] of [
    [held, "holds"],
    [changed, "changed"],
  ] as const) {
    for (const r of rows) {
      const e = by.get(r.id) ?? { row: r, holds: false, changed: false, since: Number(r.since), ranges: [] as LineRange[] | null };
      e[kind] = true;
      e.since = Math.min(e.since, Number(r.since));
      e.ranges = e.ranges === null || r.ranges === null ? null : [...e.ranges, ...(JSON.parse(r.ranges) as LineRange[])];
      by.set(r.id, e);
    }
  }
  // Who reserved it (the MCP server's reserve): a session that neither holds nor changed it is listed for it.
  const reserved = new Map<string, string>();
  for (const { row, text } of await reservationsMeetingPath(sql, scope, repos, filePath)) {
    reserved.set(row.id, text);
    if (!by.has(row.id)) by.set(row.id, { row, holds: false, changed: false, since: scope.now, ranges: null });
  }
  const sessions = [...by.values()]
    .sort((a, b) => a.since - b.since || compareStrings(a.row.id, b.row.id))
    .map((e) => ({
      session: shortSessionId(e.row.external_id),
      description: `${describeSession(e.row)}${e.holds || e.changed ? `, since ${ago(e.since, scope.now)}` : ""}`,
      holds: e.holds,
      changed: e.changed,
      lines: e.ranges === null ? null : describeRanges(mergeRanges(e.ranges), 8),
      since: e.since,
      status: e.row.status_excerpt,
      ...(reserved.has(e.row.id) ? { reserved: reserved.get(e.row.id) ?? null } : {}),
    }));
  return { path: filePath, sessions };
}
