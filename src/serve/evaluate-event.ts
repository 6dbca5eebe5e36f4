import { randomUUID } from "node:crypto";
import { compareStrings } from "../errors/diagnostic.js";
import { ago, describeSession, listSome, simpleName } from "./coordination-text.js";
import { first, marks, type Sql } from "./database.js";
import type { EvaluateRequest } from "./request-schema.js";
import type { Team } from "./teams.js";

/** An intent's lease: a session silent for longer than this no longer holds its files. */
export const DEFAULT_LEASE_MS = 10 * 60 * 1000;
/** How far back a session-start briefing reports breaking changes. */
export const BREAKING_HISTORY_MS = 12 * 60 * 60 * 1000;

export interface ConflictRef {
  readonly number: number;
  readonly ref: string;
  readonly kind: "file_overlap" | "symbol_overlap" | "breaking_change";
  readonly severity: "warn" | "block";
}

/** The answer of `POST /v1/hooks/evaluate` (`comity-hook-events.md`, "Response"). */
export interface EvaluateAnswer {
  readonly decision: "allow" | "warn" | "block";
  readonly reason: string | null;
  readonly inject_context: string | null;
  readonly conflicts: readonly ConflictRef[];
  readonly intent: { readonly number: number; readonly ref: string; readonly status: "active" } | null;
  readonly session_id: string;
  readonly index_version: number;
}

export interface EvaluateOptions {
  readonly now: number;
  readonly leaseMs: number;
}

interface SessionRow {
  id: string;
  external_id: string;
  tool: string;
  branch: string | null;
  started_at: number;
  status_excerpt: string | null;
}

interface Outcome {
  decision: "allow" | "warn" | "block";
  reason: string | null;
  inject_context: string | null;
  conflicts: ConflictRef[];
  intent: EvaluateAnswer["intent"];
}

const QUIET: Outcome = { decision: "allow", reason: null, inject_context: null, conflicts: [], intent: null };

/**
 * The lock keys an event's transaction needs: one per remote fingerprint of its repo, within the team. Events
 * of one repo are then applied one at a time (they see each other's intents), other repos' side by side.
 */
export function evaluateLockKeys(team: Team, request: EvaluateRequest): string[] {
  return uniqueSorted(request.repo.remote_fingerprints.map((fp) => `${team.id}:${fp}`));
}

/**
 * Applies one hook event of a team inside the caller's transaction (locked on {@link evaluateLockKeys}) and
 * decides the answer. A `dedupe_key` seen before returns the first answer and
 * changes nothing. Every other event registers or refreshes the session
 * (which renews the lease of all its intents), then does what its event asks
 * (`../shared/reference/comity-hook-events.md`; issue #9, item 3).
 */
export async function evaluateEvent(sql: Sql, team: Team, request: EvaluateRequest, options: EvaluateOptions): Promise<EvaluateAnswer> {
  const replay = await first<{ response: string }>(sql, "SELECT response FROM dedupe WHERE team_id = ? AND key = ?", [team.id, request.dedupe_key]);
  if (replay !== undefined) return JSON.parse(replay.response) as EvaluateAnswer;

  const { now, leaseMs } = options;
  const where = { sql, team, now, leaseMs, repoId: await resolveRepo(sql, team.id, request.repo.remote_fingerprints, now) };
  const c: Coordination = {
    ...where,
    family: request.session.parent_external_id ?? request.session.external_id,
    session: await touchSession(where, request),
  };

  let outcome: Outcome = QUIET;
  switch (request.event) {
    case "session_start":
      outcome = { ...QUIET, inject_context: await briefing(c) };
      break;
    case "prompt":
      outcome = { ...QUIET, inject_context: await deliverNotices(c) };
      break;
    case "pre_edit":
    case "pre_shell":
      outcome = await recordIntent(c, uniqueSorted(request.paths ?? []));
      break;
    case "post_edit":
      outcome = await recordAnalysis(c, request);
      break;
    case "stop":
    case "session_end":
      await endTurn(c, request);
      break;
    case "plan":
    case "pre_push":
      break;
  }
  const version = await first<{ v: number }>(sql, "UPDATE repos SET index_version = index_version + 1 WHERE id = ? RETURNING index_version AS v", [c.repoId]);
  const answer: EvaluateAnswer = {
    decision: outcome.decision,
    reason: outcome.reason,
    inject_context: outcome.inject_context,
    conflicts: outcome.conflicts,
    intent: outcome.intent,
    session_id: c.session.id,
    index_version: Number(version?.v ?? 0),
  };
  await sql.run("INSERT INTO dedupe (team_id, key, response, created_at) VALUES (?, ?, ?, ?)", [team.id, request.dedupe_key, JSON.stringify(answer), now]);
  return answer;
}

interface Coordination {
  readonly sql: Sql;
  readonly team: Team;
  readonly now: number;
  readonly leaseMs: number;
  readonly repoId: string;
  /** The agent this session belongs to: its parent for a subagent, else itself. A family never conflicts with itself. */
  readonly family: string;
  readonly session: SessionRow;
}

/** The team's repo one of these fingerprints already names (the oldest if several do), else a new one; every fingerprint then points at it. */
async function resolveRepo(sql: Sql, teamId: string, fingerprints: readonly string[], now: number): Promise<string> {
  const fps = uniqueSorted(fingerprints);
  const known = await sql.all<{ fingerprint: string; repo_id: string }>(
    `SELECT f.fingerprint, f.repo_id FROM repo_fingerprints f JOIN repos r ON r.id = f.repo_id WHERE f.team_id = ? AND f.fingerprint IN (${marks(fps)}) ORDER BY r.created_at, r.id`,
    [teamId, ...fps],
  );
  const repoId = known[0]?.repo_id ?? randomUUID();
  if (known.length === 0) await sql.run("INSERT INTO repos (id, team_id, created_at) VALUES (?, ?, ?)", [repoId, teamId, now]);
  const have = new Set(known.map((k) => k.fingerprint));
  const missing = fps.filter((fp) => !have.has(fp));
  await insertRows(sql, "INSERT INTO repo_fingerprints (team_id, fingerprint, repo_id) VALUES", missing.map((fp) => [teamId, fp, repoId]), "ON CONFLICT (team_id, fingerprint) DO NOTHING");
  return repoId;
}

/**
 * Registers the session on its first event in this repo (whatever the event: a server restart must not lose it),
 * else refreshes it; one statement either way. A session that had ended or fallen silent starts a new stretch
 * of activity.
 */
async function touchSession(c: Pick<Coordination, "sql" | "team" | "now" | "leaseMs" | "repoId">, request: EvaluateRequest): Promise<SessionRow> {
  const s = request.session;
  const row = await first<SessionRow>(
    c.sql,
    `INSERT INTO sessions (id, team_id, repo_id, external_id, tool, model, parent_external_id, branch, head_sha, event_count, started_at, last_seen_at, ended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
     ON CONFLICT (team_id, repo_id, external_id) DO UPDATE SET
       tool = excluded.tool, model = COALESCE(excluded.model, sessions.model), branch = excluded.branch,
       head_sha = COALESCE(excluded.head_sha, sessions.head_sha), event_count = sessions.event_count + 1,
       started_at = CASE WHEN sessions.ended_at IS NOT NULL OR sessions.last_seen_at < ? THEN excluded.started_at ELSE sessions.started_at END,
       last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at
     RETURNING id, external_id, tool, branch, started_at, status_excerpt`,
    [
      randomUUID(), c.team.id, c.repoId, s.external_id, s.tool, s.model ?? null, s.parent_external_id ?? null, request.repo.branch ?? null,
      request.repo.head_sha ?? null, c.now, c.now, request.event === "session_end" ? c.now : null, c.now - c.leaseMs,
    ],
  );
  if (row === undefined) throw new Error("session row missing after upsert");
  return row;
}

/**
 * Other sessions of this repo that are active: not ended, heard from within the lease, and not of the same
 * agent (a subagent and its parent, or two subagents of one parent, work together). An intent holds
 * while its session is active and has not released it (the lease slides with every event of the session);
 * one made before the session fell silent or ended (`created_at < started_at`) no longer does.
 */
const ACTIVE_OTHER =
  "s.team_id = ? AND s.repo_id = ? AND s.id <> ? AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?";
const activeOtherParams = (c: Coordination) => [c.team.id, c.repoId, c.session.id, c.now - c.leaseMs, c.family];

async function nextNumber(c: Coordination, counter: "next_intent" | "next_conflict"): Promise<number> {
  const row = await first<{ n: number }>(c.sql, `UPDATE teams SET ${counter} = ${counter} + 1 WHERE id = ? RETURNING ${counter} - 1 AS n`, [c.team.id]);
  return Number(row?.n);
}

interface ConflictWanted {
  readonly kind: ConflictRef["kind"];
  readonly severity: ConflictRef["severity"];
  readonly otherId: string;
  readonly subject: string;
}

/**
 * Numbers for these conflicts, in order: a conflict of the same kind between the same two sessions on the same
 * subject keeps its number; new ones take the next numbers of the team. Three statements whatever the count.
 */
async function conflictRefs(c: Coordination, wanted: readonly ConflictWanted[]): Promise<ConflictRef[]> {
  if (wanted.length === 0) return [];
  const keyOf = (w: { kind: string; otherId: string; subject: string }) => `${w.kind}\u0000${w.otherId}\u0000${w.subject}`;
  const others = [...new Set(wanted.map((w) => w.otherId))];
  const rows = await c.sql.all<{ number: number; kind: string; other_session_id: string; subject: string }>(
    `SELECT number, kind, other_session_id, subject FROM conflicts WHERE team_id = ? AND session_id = ? AND other_session_id IN (${marks(others)})`,
    [c.team.id, c.session.id, ...others],
  );
  const known = new Map(rows.map((r) => [keyOf({ kind: r.kind, otherId: r.other_session_id, subject: r.subject }), Number(r.number)]));
  const fresh = [...new Set(wanted.map(keyOf).filter((k) => !known.has(k)))];
  if (fresh.length > 0) {
    const top = await first<{ n: number }>(c.sql, "UPDATE teams SET next_conflict = next_conflict + ? WHERE id = ? RETURNING next_conflict AS n", [fresh.length, c.team.id]);
    const start = Number(top?.n) - fresh.length;
    fresh.forEach((k, i) => known.set(k, start + i));
    const byKey = new Map(wanted.map((w) => [keyOf(w), w]));
    await insertRows(
      c.sql,
      "INSERT INTO conflicts (team_id, number, kind, severity, session_id, other_session_id, subject, created_at) VALUES",
      fresh.map((k) => {
        const w = byKey.get(k) as ConflictWanted;
        return [c.team.id, known.get(k), w.kind, w.severity, c.session.id, w.otherId, w.subject, c.now];
      }),
    );
  }
  return wanted.map((w) => {
    const number = known.get(keyOf(w)) as number;
    return { number, ref: `CF-${number}`, kind: w.kind, severity: w.severity };
  });
}

/** `pre_edit` / `pre_shell`: an intent on the paths, and who else holds them or depends on their symbols. */
async function recordIntent(c: Coordination, paths: string[]): Promise<Outcome> {
  if (paths.length === 0) return QUIET;
  const number = await nextNumber(c, "next_intent");
  await c.sql.run("INSERT INTO intents (team_id, number, session_id, repo_id, event, created_at) VALUES (?, ?, ?, ?, ?, ?)", [c.team.id, number, c.session.id, c.repoId, "edit", c.now]);
  await insertRows(c.sql, "INSERT INTO intent_paths (team_id, intent_number, repo_id, path) VALUES", paths.map((p) => [c.team.id, number, c.repoId, p]));

  // Files another active session holds an intent on.
  const held = await c.sql.all<SessionRow & { path: string; since: number; intent: number }>(
    `SELECT ip.path, MIN(i.created_at) AS since, MIN(i.number) AS intent, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt
     FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number JOIN sessions s ON s.id = i.session_id
     WHERE ${ACTIVE_OTHER} AND ip.team_id = ? AND ip.repo_id = ? AND ip.path IN (${marks(paths)}) AND i.released_at IS NULL AND i.created_at >= s.started_at
     GROUP BY ip.path, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt`,
    [...activeOtherParams(c), c.team.id, c.repoId, ...paths],
  );
  // Symbols of these files that another active session changed, or newly uses (each branch joins sessions by
  // primary key, so neither scans; grouping happens below).
  const symbolic = await c.sql.all<SessionRow & { path: string; name: string; at: number }>(
    `SELECT sc.path, sc.qualified_name AS name, sc.created_at AS at, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt
     FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.repo_id = ? AND sc.path IN (${marks(paths)}) AND ${ACTIVE_OTHER} AND sc.created_at >= s.started_at
     UNION ALL
     SELECT fs.path, fs.qualified_name AS name, sr.updated_at AS at, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt
     FROM file_symbols fs JOIN session_references sr ON sr.name = fs.name JOIN sessions s ON s.id = sr.session_id
     WHERE fs.repo_id = ? AND fs.path IN (${marks(paths)}) AND fs.exported = 1 AND sr.path <> fs.path AND ${ACTIVE_OTHER} AND sr.updated_at >= s.started_at`,
    [c.repoId, ...paths, ...activeOtherParams(c), c.repoId, ...paths, ...activeOtherParams(c)],
  );

  const blocking = c.team.policy === "block";
  const heldSorted = sortRows(held, (r) => `${r.path}\u0000${r.id}`);
  const overlapped = new Set(heldSorted.map((h) => `${h.path}\u0000${h.id}`));
  const bySessionPath = new Map<string, { row: SessionRow & { path: string }; names: string[]; since: number }>();
  for (const r of symbolic) {
    const key = `${r.path}\u0000${r.id}`;
    if (overlapped.has(key)) continue;
    const entry = bySessionPath.get(key) ?? { row: r, names: [], since: 0 };
    entry.names.push(r.name);
    entry.since = Math.max(entry.since, Number(r.at));
    bySessionPath.set(key, entry);
  }
  const symbolSorted = [...bySessionPath.keys()].sort(compareStrings).map((k) => bySessionPath.get(k) as { row: SessionRow & { path: string }; names: string[]; since: number });
  const conflicts = await conflictRefs(c, [
    ...heldSorted.map((h) => ({ kind: "file_overlap" as const, severity: blocking ? ("block" as const) : ("warn" as const), otherId: h.id, subject: h.path })),
    ...symbolSorted.map((e) => ({ kind: "symbol_overlap" as const, severity: "warn" as const, otherId: e.row.id, subject: e.row.path })),
  ]);
  const lines: string[] = [];
  const headlines: string[] = [];
  heldSorted.forEach((h, i) => {
    lines.push(`- ${conflicts[i]?.ref} file_overlap: \`${h.path}\` is also being edited by ${describeSession(h)}, intent INT-${h.intent} since ${ago(Number(h.since), c.now)}.`);
    headlines.push(`${h.path} with ${describeSession(h)}`);
  });
  symbolSorted.forEach(({ row, names, since }, i) => {
    lines.push(`- ${conflicts[heldSorted.length + i]?.ref} symbol_overlap: ${describeSession(row)} is working with ${listSome(uniqueSorted(names), 6)} from \`${row.path}\` (last ${ago(since, c.now)}).`);
    headlines.push(`symbols of ${row.path} with ${describeSession(row)}`);
  });
  const intent = { number, ref: `INT-${number}`, status: "active" as const };
  if (conflicts.length === 0) return { ...QUIET, intent };
  const block = blocking && conflicts.some((x) => x.kind === "file_overlap");
  const reason = `${conflicts.length} coordination ${block ? "conflict(s), blocked by the team's policy" : "warning(s)"}: ${listSome(headlines, 3, false)}`;
  const advice = block ? "Your team's policy blocks editing a file another active session holds. Coordinate with it, or wait for its turn to end." : "Check with the other session before changing the same code, or keep to other files.";
  return {
    decision: block ? "block" : "warn",
    reason,
    inject_context: `## Comity — coordination warning\n${lines.join("\n")}\n${advice}`,
    conflicts,
    intent,
  };
}

/** `post_edit`: the session's files, symbols and new references; a breaking change warns the sessions that use the symbol. */
async function recordAnalysis(c: Coordination, request: EvaluateRequest): Promise<Outcome> {
  const touched = uniqueSorted([...(request.paths ?? []), ...(request.analysis ?? []).map((a) => a.path)]);
  await insertRows(c.sql, "INSERT INTO session_files (session_id, path, updated_at) VALUES", touched.map((p) => [c.session.id, p, c.now]), "ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at");
  const breaking: Array<{ path: string; qualified_name: string; names: string[]; summary: string }> = [];
  const symbols: unknown[][] = [];
  const references = new Map<string, unknown[]>();
  const changes: unknown[][] = [];
  for (const a of request.analysis ?? []) {
    if (a.symbols !== undefined) {
      await c.sql.run("DELETE FROM file_symbols WHERE repo_id = ? AND path = ?", [c.repoId, a.path]);
      const seen = new Set<string>();
      for (const s of a.symbols) {
        if (seen.has(s.qualified_name)) continue;
        seen.add(s.qualified_name);
        symbols.push([c.repoId, a.path, s.qualified_name, s.name, s.kind, s.exported ? 1 : 0]);
      }
    }
    for (const r of a.new_references ?? []) references.set(`${r.name}\u0000${a.path}`, [c.session.id, r.name, a.path, r.kind, r.module ?? null, c.now]);
    for (const ch of a.changes ?? []) {
      const summary = (ch.reasons ?? []).map((r) => r.message).slice(0, 2).join("; ") || ch.change;
      changes.push([c.team.id, c.repoId, c.session.id, a.path, ch.qualified_name, ch.change, ch.compatibility, summary, c.now]);
      if (ch.compatibility === "breaking") {
        const names = uniqueSorted([simpleName(ch.qualified_name), ...(ch.renamed_from ? [simpleName(ch.renamed_from)] : [])]);
        breaking.push({ path: a.path, qualified_name: ch.qualified_name, names, summary });
      }
    }
  }
  await insertRows(c.sql, "INSERT INTO file_symbols (repo_id, path, qualified_name, name, kind, exported) VALUES", symbols, "ON CONFLICT (repo_id, path, qualified_name) DO NOTHING");
  await insertRows(
    c.sql,
    "INSERT INTO session_references (session_id, name, path, kind, module, updated_at) VALUES",
    [...references.values()],
    "ON CONFLICT (session_id, name, path) DO UPDATE SET kind = excluded.kind, module = excluded.module, updated_at = excluded.updated_at",
  );
  await insertRows(c.sql, "INSERT INTO symbol_changes (team_id, repo_id, session_id, path, qualified_name, change, compatibility, summary, created_at) VALUES", changes);
  if (breaking.length === 0) return QUIET;

  // Per breaking change, the sessions whose new references name the symbol, or that edited the file defining it.
  const reaches: Array<{ b: (typeof breaking)[number]; row: SessionRow; uses: string[] }> = [];
  for (const b of breaking) {
    const affected = await c.sql.all<SessionRow & { uses: string }>(
      `SELECT x.uses, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt FROM (
         SELECT sr.session_id, sr.path AS uses FROM session_references sr WHERE sr.name IN (${marks(b.names)}) AND sr.path <> ?
         UNION
         SELECT sf.session_id, sf.path AS uses FROM session_files sf WHERE sf.path = ?
       ) x JOIN sessions s ON s.id = x.session_id WHERE ${ACTIVE_OTHER}`,
      [...b.names, b.path, b.path, ...activeOtherParams(c)],
    );
    const bySession = new Map<string, { row: SessionRow; uses: string[] }>();
    for (const r of affected) {
      const e = bySession.get(r.id) ?? { row: r, uses: [] };
      e.uses.push(r.uses);
      bySession.set(r.id, e);
    }
    for (const id of [...bySession.keys()].sort(compareStrings)) reaches.push({ b, ...(bySession.get(id) as { row: SessionRow; uses: string[] }) });
  }
  if (reaches.length === 0) return QUIET;
  const conflicts = await conflictRefs(c, reaches.map(({ b, row }) => ({ kind: "breaking_change" as const, severity: "warn" as const, otherId: row.id, subject: `${b.path}#${b.qualified_name}` })));
  const lines: string[] = [];
  const notices: unknown[][] = [];
  reaches.forEach(({ b, row, uses }, i) => {
    const ref = conflicts[i]?.ref;
    const where = listSome(uniqueSorted(uses), 4);
    lines.push(`- ${ref}: \`${b.qualified_name}\` in \`${b.path}\` (${b.summary}) is used by ${describeSession(row)} in ${where}.`);
    notices.push([randomUUID(), row.id, `- ${ref}: ${describeSession(c.session)} changed \`${b.qualified_name}\` in \`${b.path}\` incompatibly (${b.summary}); your work uses it in ${where}.`, c.now]);
  });
  await insertRows(c.sql, "INSERT INTO notices (id, session_id, text, created_at) VALUES", notices);
  const reached = new Set(reaches.map((r) => r.row.id)).size;
  return {
    decision: "warn",
    reason: `${conflicts.length} coordination warning(s): a breaking change affects ${reached === 1 ? "another active session" : `${reached} other active sessions`}`,
    inject_context: `## Comity — your breaking change affects other sessions\n${lines.join("\n")}\nThey will be told at their next prompt. Keep the old signature working, or tell them how to adapt.`,
    conflicts,
    intent: null,
  };
}

/** `prompt`: the notices queued for this session, once. */
async function deliverNotices(c: Coordination): Promise<string | null> {
  const rows = await c.sql.all<{ id: string; text: string }>("SELECT id, text FROM notices WHERE session_id = ? AND delivered_at IS NULL ORDER BY created_at, id", [c.session.id]);
  if (rows.length === 0) return null;
  await c.sql.run("UPDATE notices SET delivered_at = ? WHERE session_id = ? AND delivered_at IS NULL", [c.now, c.session.id]);
  return `## Comity update — system-generated\nOther sessions changed code your work depends on:\n${rows.map((r) => r.text).join("\n")}`;
}

/** `session_start`: who else is active in this repo and on what, and the recent breaking changes. */
async function briefing(c: Coordination): Promise<string | null> {
  const others = await c.sql.all<SessionRow>(
    `SELECT s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt FROM sessions s WHERE ${ACTIVE_OTHER} ORDER BY s.started_at, s.external_id, s.id LIMIT 10`,
    activeOtherParams(c),
  );
  const lines: string[] = [];
  for (const o of others) {
    const files = await c.sql.all<{ path: string }>(
      `SELECT path FROM session_files WHERE session_id = ?
       UNION SELECT ip.path FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number
       WHERE i.session_id = ? AND i.released_at IS NULL AND i.created_at >= ? ORDER BY path`,
      [o.id, o.id, o.started_at],
    );
    const symbols = await c.sql.all<{ q: string }>("SELECT DISTINCT qualified_name AS q FROM symbol_changes WHERE session_id = ? ORDER BY q", [o.id]);
    const parts = [`- ${describeSession(o)}, since ${ago(Number(o.started_at), c.now)}`];
    if (files.length > 0) parts.push(`files ${listSome(files.map((f) => f.path), 8)}`);
    if (symbols.length > 0) parts.push(`symbols ${listSome(symbols.map((s) => s.q), 8)}`);
    lines.push(parts.join("; ") + (o.status_excerpt ? `. Last status: "${o.status_excerpt.replace(/\s+/g, " ").slice(0, 200)}"` : ""));
  }
  const breaking = await c.sql.all<SessionRow & { path: string; qualified_name: string; summary: string; at: number }>(
    `SELECT sc.path, sc.qualified_name, sc.summary, sc.created_at AS at, s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt
     FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.repo_id = ? AND sc.compatibility = 'breaking' AND sc.created_at >= ? AND sc.session_id <> ?
     ORDER BY sc.created_at DESC, sc.path, sc.qualified_name LIMIT 10`,
    [c.repoId, c.now - BREAKING_HISTORY_MS, c.session.id],
  );
  if (lines.length === 0 && breaking.length === 0) return null;
  const out = ["## Comity briefing — system-generated"];
  if (lines.length > 0) out.push("Other active sessions in this repo:", ...lines);
  if (breaking.length > 0) {
    out.push(`Breaking changes in the last ${BREAKING_HISTORY_MS / 3_600_000} hours:`);
    for (const b of breaking) out.push(`- \`${b.qualified_name}\` in \`${b.path}\` (${b.summary}) by ${describeSession(b)}, ${ago(Number(b.at), c.now)}`);
  }
  return out.join("\n");
}

/** `stop` ends the turn, `session_end` the session: either releases the session's intents. */
async function endTurn(c: Coordination, request: EvaluateRequest): Promise<void> {
  await c.sql.run("UPDATE intents SET released_at = ? WHERE session_id = ? AND released_at IS NULL", [c.now, c.session.id]);
  await c.sql.run("UPDATE sessions SET turn_ended_at = ? WHERE id = ?", [c.now, c.session.id]);
  if (request.event === "stop" && request.status !== undefined) {
    if (request.status.excerpt !== undefined) await c.sql.run("UPDATE sessions SET status_excerpt = ? WHERE id = ?", [request.status.excerpt, c.session.id]);
    for (const p of uniqueSorted(request.status.files ?? [])) {
      await c.sql.run("INSERT INTO session_files (session_id, path, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at", [c.session.id, p, c.now]);
    }
  }
}

/** Rows per INSERT: well inside SQLite's 32,766 parameters and PostgreSQL's 65,535 for our widest table. */
const ROWS_PER_INSERT = 500;

/** One multi-row `INSERT … VALUES (…), (…) [suffix]` per chunk of rows: one round trip instead of one a row. */
async function insertRows(sql: Sql, head: string, rows: ReadonlyArray<readonly unknown[]>, suffix = ""): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    const values = chunk.map((r) => `(${marks(r)})`).join(", ");
    await sql.run(`${head} ${values}${suffix === "" ? "" : ` ${suffix}`}`, chunk.flat());
  }
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

function sortRows<T>(rows: readonly T[], key: (r: T) => string): T[] {
  return [...rows].sort((a, b) => compareStrings(key(a), key(b)));
}
