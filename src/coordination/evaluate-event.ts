import { randomUUID } from "node:crypto";
import { compareStrings } from "../errors/diagnostic.js";
import { first, marks, type Sql } from "../store/database.js";
import { ago, code, describeSession, listSome, oneLine, quoted } from "./coordination-text.js";
import { deliversContext } from "./host-delivery.js";
import { packageKey, packageLabel, packageOfImport } from "../packages/package-of-import.js";
import { filesUsing, importNamesModule, importTarget, stemSuffixes, topName } from "./uses-symbol.js";
import { asPolicy, type ConflictKind, type ConflictRef, type EvaluateAnswer, type EvaluateRequest, type TeamPolicy } from "./wire.js";

export type { ConflictRef, EvaluateAnswer } from "./wire.js";

/** An intent's lease: a session silent for longer than this no longer holds its files. */
export const DEFAULT_LEASE_MS = 10 * 60 * 1000;
/** How far back a session-start briefing reports breaking changes. */
export const BREAKING_HISTORY_MS = 12 * 60 * 60 * 1000;

/** The team an event belongs to; its policy is read afresh at every request. */
export interface TeamRef {
  readonly id: string;
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
  label: string | null;
  cwd_path: string | null;
  /** The agent it belongs to: its parent's external id for a subagent, else its own. */
  family: string;
  repo_id: string;
}

const SESSION_GROUP = "s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt, s.label, s.cwd_path, s.parent_external_id, s.repo_id";
const SESSION_COLS = `${SESSION_GROUP}, COALESCE(s.parent_external_id, s.external_id) AS family`;

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
export function evaluateLockKeys(team: TeamRef, request: EvaluateRequest): string[] {
  return uniqueSorted(request.repo.remote_fingerprints.map((fp) => `${team.id}:${fp}`));
}

/**
 * The coordination core: applies one hook event of a team inside the caller's transaction (locked on
 * {@link evaluateLockKeys}) and decides the answer, as `../shared/reference/coordination.md` says. The HTTP
 * server calls it; it takes the storage as a parameter so that an embedded store can too.
 *
 * A collision is a conflict row between the session to tell and the other one, told once: to the session it
 * affects as a denial before its next related edit (policy `first_contact`, the default, or `block`) or as
 * context (`advisory`, and at prompts, session starts and after tools on hosts that show context there); to the
 * other session, as context, that someone joined. A `dedupe_key` seen before returns the first answer and
 * changes nothing.
 */
export async function evaluateEvent(sql: Sql, team: TeamRef, request: EvaluateRequest, options: EvaluateOptions): Promise<EvaluateAnswer> {
  const replay = await first<{ response: string }>(sql, "SELECT response FROM dedupe WHERE team_id = ? AND key = ?", [team.id, request.dedupe_key]);
  if (replay !== undefined) return JSON.parse(replay.response) as EvaluateAnswer;

  const { now, leaseMs } = options;
  const policyRow = await first<{ policy: string }>(sql, "SELECT policy FROM teams WHERE id = ?", [team.id]);
  const policy = asPolicy(policyRow?.policy);
  const where = { sql, teamId: team.id, now, leaseMs, repoId: await resolveRepo(sql, team.id, request.repo.remote_fingerprints, now) };
  const session = await touchSession(where, request);
  const family = request.session.parent_external_id ?? request.session.external_id;
  const c: Coordination = {
    ...where,
    policy,
    request,
    family,
    session,
    familyId: (await familyReps(where, [family])).get(family) ?? session.id,
  };

  let outcome: Outcome = QUIET;
  switch (request.event) {
    case "session_start":
      outcome = await atSessionStart(c);
      break;
    case "prompt":
      outcome = await deliverQueued(c, "## Comity update — system-generated");
      break;
    case "pre_edit":
    case "pre_shell":
      outcome = await beforeEdit(c, uniqueSorted(request.paths ?? []));
      break;
    case "plan":
      outcome = await beforePlan(c, request.plan_text ?? "");
      break;
    case "post_edit":
      outcome = await afterEdit(c, request);
      break;
    case "stop":
    case "session_end":
      await endTurn(c, request);
      break;
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
  // The session's history, for people (the dashboard): what happened, and what it was told.
  await sql.run("INSERT INTO session_events (team_id, session_id, at, event, decision, refs, paths) VALUES (?, ?, ?, ?, ?, ?, ?)", [
    team.id, c.session.id, now, request.event, answer.decision, JSON.stringify(answer.conflicts.map((x) => x.ref)), JSON.stringify((request.paths ?? []).slice(0, 20)),
  ]);
  if (request.event === "session_start") {
    const rootPackage = (request.repo.packages ?? []).find((p) => p.path === ".") ?? (request.repo.packages ?? [])[0];
    if (rootPackage !== undefined) await sql.run("UPDATE repos SET label = ? WHERE id = ? AND (label IS NULL OR label <> ?)", [rootPackage.name.slice(0, 200), c.repoId, rootPackage.name.slice(0, 200)]);
  }
  return answer;
}

interface Coordination {
  readonly sql: Sql;
  readonly teamId: string;
  readonly now: number;
  readonly leaseMs: number;
  readonly repoId: string;
  readonly policy: TeamPolicy;
  readonly request: EvaluateRequest;
  /** The agent this session belongs to: its parent for a subagent, else itself. A family never conflicts with itself. */
  readonly family: string;
  readonly session: SessionRow;
  /** The session that stands for this agent in conflicts (its parent's, for a subagent): a family is told once. */
  readonly familyId: string;
}

/**
 * The session that stands for each agent of this repo in conflicts: the one whose external id is the family's
 * (the parent), so that a conflict between two agents is one, whichever of their subagents meets it.
 */
async function familyReps(c: { sql: Sql; teamId: string; repoId: string }, families: readonly string[]): Promise<Map<string, string>> {
  const list = uniqueSorted(families);
  if (list.length === 0) return new Map();
  const rows = await c.sql.all<{ id: string; external_id: string }>(
    `SELECT id, external_id FROM sessions WHERE team_id = ? AND repo_id = ? AND external_id IN (${marks(list)})`,
    [c.teamId, c.repoId, ...list],
  );
  return new Map(rows.map((r) => [r.external_id, r.id]));
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
async function touchSession(c: { sql: Sql; teamId: string; now: number; leaseMs: number; repoId: string }, request: EvaluateRequest): Promise<SessionRow> {
  const s = request.session;
  const row = await first<SessionRow>(
    c.sql,
    `INSERT INTO sessions (id, team_id, repo_id, external_id, tool, model, parent_external_id, branch, head_sha, label, cwd_path, event_count, started_at, last_seen_at, ended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
     ON CONFLICT (team_id, repo_id, external_id) DO UPDATE SET
       tool = excluded.tool, model = COALESCE(excluded.model, sessions.model), branch = excluded.branch,
       head_sha = COALESCE(excluded.head_sha, sessions.head_sha), label = COALESCE(excluded.label, sessions.label),
       cwd_path = COALESCE(excluded.cwd_path, sessions.cwd_path), event_count = sessions.event_count + 1,
       started_at = CASE WHEN sessions.ended_at IS NOT NULL OR sessions.last_seen_at < ? THEN excluded.started_at ELSE sessions.started_at END,
       last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at
     RETURNING id, external_id, tool, branch, started_at, status_excerpt, label, cwd_path, COALESCE(parent_external_id, external_id) AS family, repo_id`,
    [
      randomUUID(), c.teamId, c.repoId, s.external_id, s.tool, s.model ?? null, s.parent_external_id ?? null, request.repo.branch ?? null,
      request.repo.head_sha ?? null, s.label ?? null, request.repo.cwd_path ?? null, c.now, c.now, request.event === "session_end" ? c.now : null, c.now - c.leaseMs,
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
const activeOtherParams = (c: Coordination) => [c.teamId, c.repoId, c.session.id, c.now - c.leaseMs, c.family];

async function nextNumber(c: Coordination, counter: "next_intent" | "next_conflict", count = 1): Promise<number> {
  const row = await first<{ n: number }>(c.sql, `UPDATE teams SET ${counter} = ${counter} + ? WHERE id = ? RETURNING ${counter} - ? AS n`, [count, c.teamId, count]);
  return Number(row?.n);
}

/** A collision to record: who is told (`session`), about whom (`other`), what, and which files it concerns. */
interface Wanted {
  readonly kind: ConflictKind;
  /** `affected`: the session must be told before its next related edit; `informed`: told as context only. */
  readonly role: "affected" | "informed";
  readonly session: SessionRow;
  readonly other: SessionRow;
  readonly subject: string;
  /** The line's text after `- CF-n kind: `. */
  readonly body: string;
  /** The files an edit of which makes this conflict relevant (defining and using files). */
  readonly paths: readonly string[];
  /** When the change behind it was made: notices are told in that order. */
  readonly changeAt: number;
}

interface ConflictRow {
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
async function recordConflicts(c: Coordination, wanted: readonly Wanted[]): Promise<ConflictRow[]> {
  if (wanted.length === 0) return [];
  const keyOf = (w: { kind: string; session: string; other: string; subject: string }) => `${w.kind}\u0000${w.session}\u0000${w.other}\u0000${w.subject}`;
  const reps = await familyReps(c, wanted.flatMap((w) => [w.session.family, w.other.family]));
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
      // The session that was told someone joined it is not then told it joined them: one conflict, one telling.
      continue;
    } else if (row.withdrawn_at !== null || row.told_at === null) {
      // Not told yet (or withdrawn and back): the latest facts replace the text.
      const paths = JSON.stringify(uniqueSorted([...(JSON.parse(row.paths) as string[]), ...w.paths]));
      await c.sql.run("UPDATE conflicts SET body = ?, paths = ?, withdrawn_at = NULL, told_at = CASE WHEN withdrawn_at IS NULL THEN told_at ELSE NULL END WHERE team_id = ? AND number = ?", [
        w.body, paths, c.teamId, row.number,
      ]);
      known.set(k, { ...row, body: w.body, paths, told_at: row.withdrawn_at === null ? row.told_at : null, withdrawn_at: null });
    }
  }
  if (fresh.length > 0) {
    const start = await nextNumber(c, "next_conflict", fresh.length);
    const inserted = fresh.map((w, i) => {
      const row: ConflictRow = {
        number: start + i, kind: w.kind, role: w.role, session_id: repOf(w.session), other_session_id: repOf(w.other), subject: w.subject,
        body: w.body, paths: JSON.stringify(uniqueSorted(w.paths)), change_at: w.changeAt, told_at: null, withdrawn_at: null,
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
async function untold(c: Coordination): Promise<ConflictRow[]> {
  return c.sql.all<ConflictRow>(
    `SELECT ${CONFLICT_COLS.split(", ").map((x) => `k.${x}`).join(", ")} FROM conflicts k JOIN sessions s ON s.id = k.other_session_id
     WHERE k.team_id = ? AND k.session_id = ? AND k.told_at IS NULL AND k.withdrawn_at IS NULL AND s.ended_at IS NULL AND s.last_seen_at >= ?
     ORDER BY k.change_at, k.number`,
    [c.teamId, c.familyId, c.now - c.leaseMs],
  );
}

async function markTold(c: Coordination, rows: readonly ConflictRow[]): Promise<void> {
  const numbers = [...new Set(rows.filter((r) => r.told_at === null).map((r) => r.number))];
  if (numbers.length === 0) return;
  await c.sql.run(`UPDATE conflicts SET told_at = ? WHERE team_id = ? AND number IN (${marks(numbers)})`, [c.now, c.teamId, ...numbers]);
}

const lineOf = (r: ConflictRow): string => `- CF-${r.number} ${r.kind}: ${r.body}`;
const refOf = (r: ConflictRow, severity: "warn" | "block" = "warn"): ConflictRef => ({ number: r.number, ref: `CF-${r.number}`, kind: r.kind, severity });

function sortByChange(rows: readonly ConflictRow[]): ConflictRow[] {
  const byNumber = new Map(rows.map((r) => [r.number, r]));
  return [...byNumber.values()].sort((a, b) => Number(a.change_at) - Number(b.change_at) || a.number - b.number);
}

/** Context for the queued conflicts of this session, once, where its host shows context at this event. */
async function deliverQueued(c: Coordination, heading: string, extra: readonly ConflictRow[] = []): Promise<Outcome> {
  if (!deliversContext(c.session.tool, c.request.event)) return QUIET;
  const rows = sortByChange([...extra.filter((r) => r.told_at === null && r.withdrawn_at === null), ...(await untold(c))]);
  if (rows.length === 0) return QUIET;
  await markTold(c, rows);
  return {
    decision: "warn",
    reason: `${rows.length} coordination notice(s)`,
    inject_context: `${heading}\n${rows.map(lineOf).join("\n")}`,
    conflicts: rows.map((r) => refOf(r)),
    intent: null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the other sessions hold, changed and use.

interface HolderRow extends SessionRow {
  path: string;
  since: number;
  held: number;
}

/**
 * Other active families holding (an intent) or having changed (post_edit) these paths, one row per path and
 * session; with `null`, every path they hold or changed (a plan may name any), at most 5,000 of each.
 */
async function holdersOf(c: Coordination, paths: readonly string[] | null): Promise<HolderRow[]> {
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

interface ChangeRow extends SessionRow {
  path: string;
  qualified_name: string;
  renamed_from: string | null;
  change: string;
  compatibility: string;
  summary: string;
  state: string;
  at: number;
  /** The package the changed file belongs to (`npm:@acme/lib`), and the names it is imported under from it (JSON). */
  package: string | null;
  public_names: string | null;
}

const CHANGE_COLS = `sc.path, sc.qualified_name, sc.renamed_from, sc.change, sc.compatibility, sc.summary, sc.state, sc.created_at AS at, sc.package, sc.public_names, ${SESSION_COLS}`;

/** Changes other active families made, not reverted; optionally only breaking ones, or only in these paths. */
async function othersChanges(c: Coordination, filter: { breaking?: boolean; paths?: readonly string[] }): Promise<ChangeRow[]> {
  const paths = filter.paths ?? null;
  if (paths !== null && paths.length === 0) return [];
  // From the repo's active sessions to their changes (CROSS JOIN keeps that order in SQLite): never the repo's
  // week of history. The session pins the repo; `+sc.created_at` keeps SQLite from reading the repo's changes by
  // time instead.
  return c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM sessions s CROSS JOIN symbol_changes sc
     WHERE ${ACTIVE_OTHER} AND sc.session_id = s.id${filter.breaking === true ? " AND sc.compatibility = 'breaking'" : ""}${paths === null ? "" : ` AND sc.path IN (${marks(paths)})`}
       AND +sc.created_at >= s.started_at
     ORDER BY sc.created_at, sc.path, sc.qualified_name`,
    [...activeOtherParams(c), ...(paths ?? [])],
  );
}

/** A group of one session's changes to one top-level symbol of a file (a type and its members are one). */
interface ChangeGroup {
  readonly path: string;
  readonly top: string;
  /** The package of the changed file, when the hook said (`npm:@acme/lib`). */
  readonly package: string | null;
  readonly author: SessionRow;
  readonly changes: readonly ChangeRow[];
  readonly at: number;
}

function groupChanges(rows: readonly ChangeRow[]): ChangeGroup[] {
  const groups = new Map<string, { path: string; top: string; package: string | null; author: SessionRow; changes: ChangeRow[]; at: number }>();
  for (const r of rows) {
    const top = topName(r.qualified_name);
    const key = `${r.id}\u0000${r.path}\u0000${top}`;
    const g = groups.get(key) ?? { path: r.path, top, package: r.package, author: r, changes: [], at: Number(r.at) };
    g.changes.push(r);
    g.at = Math.min(g.at, Number(r.at));
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => a.at - b.at || compareStrings(`${a.path}#${a.top}`, `${b.path}#${b.top}`));
}

type GroupLike = { top: string; changes: readonly { qualified_name: string; renamed_from: string | null; summary: string }[] };

/** "`parseConfig`", "`Calc` members `add`, `sub`", "`parseConfig` (renamed to `loadConfig`)". */
function groupName(g: GroupLike): string {
  const members = g.changes.filter((x) => x.qualified_name !== g.top);
  const renamed = g.changes.find((x) => x.renamed_from !== null && x.renamed_from !== x.qualified_name);
  if (renamed !== undefined) return `${code(renamed.renamed_from ?? "")} (renamed to ${code(renamed.qualified_name)})`;
  if (members.length > 0 && members.length === g.changes.length) return `${code(g.top)} members ${listSome(uniqueSorted(members.map((m) => m.qualified_name.slice(g.top.length + 1))), 6)}`;
  return `${code(g.top)}`;
}

/** What changed and why it breaks callers: the change reasons (`PARAMETER_ADDED_REQUIRED: required parameter strict added`). */
function groupWhy(g: GroupLike): string {
  return [...new Set(g.changes.map((x) => oneLine(x.summary, 240)))].slice(0, 3).join("; ");
}

function describeGroup(g: GroupLike): string {
  return `${groupName(g)} (${groupWhy(g)})`;
}

function stateOf(g: ChangeGroup): string {
  return g.changes.some((x) => x.state === "committed") ? "committed" : "local, not committed";
}

/** The names a use of a group may import: the top-level name now, and the old name of a rename. */
function namesOf(g: ChangeGroup): string[] {
  return uniqueSorted([g.top, ...g.changes.flatMap((x) => (x.renamed_from === null ? [] : [topName(x.renamed_from)]))]);
}

// ---------------------------------------------------------------------------------------------------------------
// Events.

/** `pre_edit` / `pre_shell`: who else holds or changed these files, which in-flight breaking changes they use. */
async function beforeEdit(c: Coordination, paths: string[]): Promise<Outcome> {
  if (paths.length === 0) return QUIET;
  const pathSet = new Set(paths);
  const hints = (c.request.uses ?? []).filter((u) => pathSet.has(u.path));
  await insertRows(
    c.sql,
    "INSERT INTO session_uses (session_id, path, name, module, target, updated_at, package) VALUES",
    uniqueRows(hints.map((u) => [c.session.id, u.path, u.name, u.module ?? "", importTarget(u.path, u.module ?? ""), c.now, packageOfImport(u.path, u.module ?? "")])),
    "ON CONFLICT (session_id, path, name, module) DO NOTHING",
  );

  const holders = await holdersOf(c, paths);
  const theirChanges = groupChanges(await othersChanges(c, { paths }));
  const wanted: Wanted[] = holders.map((h) => ({
    kind: "file_overlap",
    role: "affected",
    session: c.session,
    other: h,
    subject: h.path,
    body: overlapBody(c, h, theirChanges.filter((g) => g.path === h.path && g.author.id === h.id)),
    paths: [h.path],
    changeAt: Number(h.since),
  }));
  wanted.push(...(await breakingUsedIn(c, paths)));
  const rows = await recordConflicts(c, wanted);
  // recordConflicts answers in the order asked: the first rows are the holders' file overlaps, one each.
  const heldRows = rows.slice(0, holders.length).filter((_, i) => Number(holders[i]?.held) === 1);

  // What this edit must tell: its new and untold conflicts, and those queued earlier that concern these files.
  const queued = (await untold(c)).filter((r) => r.role === "affected" && (JSON.parse(r.paths) as string[]).some((p) => pathSet.has(p)));
  const toTell = sortByChange([...rows, ...queued].filter((r) => r.role === "affected" && r.told_at === null && r.withdrawn_at === null));
  const blocked = c.policy === "block" && heldRows.length > 0;
  // first_contact and block deny once what this session was not told; block also denies a held file every time.
  if (blocked || (toTell.length > 0 && c.policy !== "advisory")) {
    await markTold(c, toTell);
    const shown = sortByChange(blocked ? [...heldRows, ...toTell] : toTell);
    const advice = blocked
      ? "Your team's policy (block) denies editing a file another active session holds: coordinate with it, or wait until its turn ends."
      : "Comity denied this edit once so that you read this first. If you still need the change, retry the same change: it will be allowed. Otherwise coordinate with the other session or keep to other files.";
    return {
      decision: "block",
      reason: `Comity — coordination conflict before this edit:\n${shown.map(lineOf).join("\n")}\n${advice}`,
      inject_context: null,
      conflicts: shown.map((r) => refOf(r, "block")),
      intent: null,
    };
  }

  // Allowed: the session now holds the files, and whoever held them first hears that it joined.
  const number = await nextNumber(c, "next_intent");
  await c.sql.run("INSERT INTO intents (team_id, number, session_id, repo_id, event, created_at) VALUES (?, ?, ?, ?, ?, ?)", [c.teamId, number, c.session.id, c.repoId, "edit", c.now]);
  await insertRows(c.sql, "INSERT INTO intent_paths (team_id, intent_number, repo_id, path) VALUES", paths.map((p) => [c.teamId, number, c.repoId, p]));
  await recordConflicts(
    c,
    holders.map((h) => ({
      kind: "file_overlap" as const,
      role: "informed" as const,
      session: h,
      other: c.session,
      subject: h.path,
      body: `${describeSession(c.session)} started editing ${code(h.path)}, which you are also changing. Coordinate before you both change the same code.`,
      paths: [h.path],
      changeAt: c.now,
    })),
  );
  const intent = { number, ref: `INT-${number}`, status: "active" as const };
  const delivered = await deliverQueued(c, "## Comity — coordination warning", toTell);
  return { ...delivered, intent };
}

function overlapBody(c: Coordination, h: HolderRow, groups: readonly ChangeGroup[]): string {
  const how = Number(h.held) === 1 ? `holds it since ${ago(Number(h.since), c.now)}` : `changed it ${ago(Number(h.since), c.now)}`;
  const breaking = groups.filter((g) => g.changes.some((x) => x.compatibility === "breaking"));
  const other = groups.filter((g) => !breaking.includes(g));
  const parts = [`${code(h.path)} is also being changed by ${describeSession(h)}, which ${how}`];
  if (breaking.length > 0) parts.push(`it changed ${breaking.map(describeGroup).join(", ")} incompatibly (${stateOf(breaking[0] as ChangeGroup)})`);
  if (other.length > 0) parts.push(`it also changed ${listSome(other.map((g) => g.top), 6)}`);
  return `${parts.join("; ")}.`;
}

/** In-flight breaking changes of other sessions that this session's files among `paths` use (by their imports). */
async function breakingUsedIn(c: Coordination, paths: readonly string[]): Promise<Wanted[]> {
  if (paths.length === 0) return [];
  const uses = await c.sql.all<{ path: string; name: string; module: string; package: string | null }>(
    `SELECT path, name, module, package FROM session_uses WHERE session_id = ? AND path IN (${marks(paths)})`,
    [c.session.id, ...paths],
  );
  if (uses.length === 0) return []; // files that import nothing use nobody's change
  const out: Wanted[] = [];
  // Across packages: breaking changes, in any repo of the team, to what these files import from a package.
  for (const g of groupChanges(await packageChanges(c, uniqueSorted(uses.flatMap((u) => (u.package === null ? [] : [u.package])))))) {
    for (const name of publicNamesOfGroup(g)) {
      const users = uniqueSorted(uses.filter((u) => u.package === g.package && (u.name === name || u.name === "*") && !coveredInRepo(c.session, g, u)).map((u) => u.path));
      if (users.length > 0) out.push(crossRepoWanted(c.session, g, name, users));
    }
  }
  const groups = groupChanges(await othersChanges(c, { breaking: true }));
  if (groups.length === 0) return out;
  const imports = uses.map((u) => ({ path: u.path, name: u.name, module: u.module === "" ? null : u.module }));
  for (const g of groups) {
    const users = filesUsing(imports, g.path, namesOf(g));
    if (users.length === 0) continue;
    out.push(breakingWanted(c.session, g, users));
  }
  return out;
}

/**
 * Breaking changes of other active families, in any repo of the team, to files of these packages, oldest first:
 * what the radar across repos compares with what a session imports from them.
 */
async function packageChanges(c: Coordination, packages: readonly string[]): Promise<ChangeRow[]> {
  if (packages.length === 0) return [];
  return c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.team_id = ? AND sc.package IN (${marks(packages)}) AND sc.compatibility = 'breaking' AND +sc.created_at >= s.started_at
       AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?
     ORDER BY sc.created_at, sc.path, sc.qualified_name`,
    [c.teamId, ...packages, c.now - c.leaseMs, c.family],
  );
}

/**
 * Whether a use of a package in the author's own repo is one the in-repo check already sees (a Python absolute
 * import of the defining module, `app.config`): told once, as `breaking_change`, not again across packages.
 */
function coveredInRepo(user: SessionRow, g: ChangeGroup, use: { path: string; module: string }): boolean {
  return user.repo_id === g.author.repo_id && importNamesModule(use.path, use.module, g.path);
}

/** The names other code imports a group under from its package: its changes' public names (its top-level name when the hook did not say). */
function publicNamesOfGroup(g: ChangeGroup): string[] {
  return uniqueSorted(g.changes.flatMap((x) => (x.public_names === null ? [g.top] : (JSON.parse(x.public_names) as string[]))));
}

/** A session whose code imports `name` from the package of a group another session broke: told before its next edit of that code. */
function crossRepoWanted(user: SessionRow, g: ChangeGroup, name: string, users: readonly string[]): Wanted {
  const where = user.repo_id === g.author.repo_id ? `${code(g.path)}` : `${code(g.path)} of the repo that publishes it`;
  return {
    kind: "cross_repo_breaking",
    role: "affected",
    session: user,
    other: g.author,
    subject: `${g.package}#${name}`,
    body: `${code(name)} of package ${code(packageLabel(g.package ?? ""))} (${where}) was changed incompatibly by ${describeSession(g.author)}: ${groupWhy(g)} (${stateOf(g)}). Your code imports it in ${listSome(users, 4)}.`,
    paths: [...users],
    changeAt: g.at,
  };
}

function breakingWanted(user: SessionRow, g: ChangeGroup, users: readonly string[]): Wanted {
  return {
    kind: "breaking_change",
    role: "affected",
    session: user,
    other: g.author,
    subject: `${g.path}#${g.top}`,
    body: `${groupName(g)} in ${code(g.path)} was changed incompatibly by ${describeSession(g.author)}: ${groupWhy(g)} (${stateOf(g)}). Your code uses it in ${listSome(users, 4)}.`,
    paths: [g.path, ...users],
    changeAt: g.at,
  };
}

/** `plan`: the files and exported symbols it names that other sessions hold or changed. */
async function beforePlan(c: Coordination, text: string): Promise<Outcome> {
  if (text.trim() === "") return QUIET;
  const wanted: Wanted[] = [];
  for (const h of await holdersOf(c, null)) {
    if (!namesFile(text, h.path)) continue;
    wanted.push({ kind: "plan_overlap", role: "affected", session: c.session, other: h, subject: h.path, body: `your plan names ${code(h.path)}, which ${describeSession(h)} is changing.`, paths: [h.path], changeAt: Number(h.since) });
  }
  for (const g of groupChanges((await othersChanges(c, {})).filter((x) => x.compatibility !== "internal"))) {
    const names = namesOf(g);
    if (!names.some((n) => namesWord(text, n)) || wanted.some((w) => w.other.id === g.author.id && w.subject === g.path)) continue;
    const how = g.changes.some((x) => x.compatibility === "breaking") ? "incompatibly" : "compatibly";
    wanted.push({
      kind: "plan_overlap", role: "affected", session: c.session, other: g.author, subject: `${g.path}#${g.top}`,
      body: `your plan names ${describeGroup(g)} in ${code(g.path)}, which ${describeSession(g.author)} changed ${how} (${stateOf(g)}).`, paths: [g.path], changeAt: g.at,
    });
  }
  const rows = await recordConflicts(c, wanted);
  const toTell = sortByChange(rows.filter((r) => r.told_at === null && r.withdrawn_at === null));
  if (toTell.length === 0) return QUIET;
  await markTold(c, toTell);
  const text2 = `Comity — your plan meets other sessions' work:\n${toTell.map(lineOf).join("\n")}`;
  if (c.policy === "advisory") return { decision: "warn", reason: `${toTell.length} coordination warning(s)`, inject_context: text2, conflicts: toTell.map((r) => refOf(r)), intent: null };
  return {
    decision: "block",
    reason: `${text2}\nComity stopped the plan once so that you read this first. Adjust the plan, or present the same plan again to go on.`,
    inject_context: null,
    conflicts: toTell.map((r) => refOf(r, "block")),
    intent: null,
  };
}

/** Whether a plan names a file: its repo path, or its file name (`config.ts`) as a word. */
function namesFile(text: string, repoPath: string): boolean {
  if (text.includes(repoPath)) return true;
  const base = repoPath.slice(repoPath.lastIndexOf("/") + 1);
  return base.includes(".") && base.length > 3 && namesWord(text, base);
}

function namesWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^A-Za-z0-9_$])${escaped}($|[^A-Za-z0-9_$])`).test(text);
}

/** `post_edit`: the session's files, symbols, uses and changes; who its breaking changes reach; what it now uses. */
async function afterEdit(c: Coordination, request: EvaluateRequest): Promise<Outcome> {
  const analyses = request.analysis ?? [];
  const touched = uniqueSorted([...(request.paths ?? []), ...analyses.map((a) => a.path)]);
  // Files changed without an intent first (a shell command nobody could predict): overlaps found now.
  const unforeseen = await holdersOf(c, touched);
  await insertRows(c.sql, "INSERT INTO session_files (session_id, path, updated_at) VALUES", touched.map((p) => [c.session.id, p, c.now]), "ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at");

  const selfNotes: string[] = [];
  const symbols: unknown[][] = [];
  const myChanged: Array<{ path: string; qualified_name: string }> = [];
  for (const a of analyses) {
    if (a.parse_error === true) {
      const n = await c.sql.run("INSERT INTO session_parse_errors (session_id, path, created_at) VALUES (?, ?, ?) ON CONFLICT (session_id, path) DO NOTHING", [c.session.id, a.path, c.now]);
      if (n > 0) selfNotes.push(`- ${code(a.path)} does not parse now: Comity keeps its symbols as they were, and reports no change of it, until it parses again.`);
    } else {
      await c.sql.run("DELETE FROM session_parse_errors WHERE session_id = ? AND path = ?", [c.session.id, a.path]);
      if (a.symbols !== undefined) {
        await c.sql.run("DELETE FROM file_symbols WHERE repo_id = ? AND path = ?", [c.repoId, a.path]);
        const seen = new Set<string>();
        for (const s of a.symbols) {
          if (seen.has(s.qualified_name)) continue;
          seen.add(s.qualified_name);
          symbols.push([c.repoId, a.path, s.qualified_name, s.name, s.kind, s.exported ? 1 : 0]);
        }
      }
      // A file that parses says all it imports (one that does not only adds to what was known).
      if (a.references !== undefined) await c.sql.run("DELETE FROM session_uses WHERE session_id = ? AND path = ?", [c.session.id, a.path]);
      await reconcileChanges(c, a.path, a.changes ?? [], a.package == null ? null : packageKey(a.package.ecosystem, a.package.name));
      for (const ch of a.changes ?? []) myChanged.push({ path: a.path, qualified_name: ch.qualified_name });
    }
    await insertRows(c.sql, "INSERT INTO session_uses (session_id, path, name, module, target, updated_at, package) VALUES", usesOf(c, a), "ON CONFLICT (session_id, path, name, module) DO NOTHING");
  }
  await insertRows(c.sql, "INSERT INTO file_symbols (repo_id, path, qualified_name, name, kind, exported) VALUES", symbols, "ON CONFLICT (repo_id, path, qualified_name) DO NOTHING");

  const wanted: Wanted[] = [];
  // Files this session changed that another active session holds or changed, unforeseen by an intent.
  const existing = await c.sql.all<{ kind: string; other_session_id: string; subject: string }>(
    `SELECT kind, other_session_id, subject FROM conflicts WHERE team_id = ? AND session_id = ? AND kind IN ('file_overlap', 'symbol_overlap')`,
    [c.teamId, c.familyId],
  );
  const holderReps = await familyReps(c, unforeseen.map((h) => h.family));
  const told = new Set(existing.map((e) => `${e.other_session_id}\u0000${e.kind === "file_overlap" ? e.subject : e.subject.slice(0, e.subject.indexOf("#"))}`));
  const untoldHolders = unforeseen.filter((h) => !told.has(`${holderReps.get(h.family) ?? h.id}\u0000${h.path}`));
  if (untoldHolders.length > 0) {
    const theirChanges = await othersChanges(c, { paths: uniqueSorted(untoldHolders.map((u) => u.path)) });
    for (const h of untoldHolders) {
      const same = theirChanges.filter((x) => x.id === h.id && x.path === h.path && myChanged.some((m) => m.path === h.path && m.qualified_name === x.qualified_name));
      if (same.length > 0) {
        for (const g of groupChanges(same)) {
          wanted.push({ kind: "symbol_overlap", role: "affected", session: c.session, other: h, subject: `${g.path}#${g.top}`, body: `you and ${describeSession(h)} both changed ${describeGroup(g)} in ${code(g.path)}.`, paths: [g.path], changeAt: g.at });
        }
      } else {
        wanted.push({ kind: "file_overlap", role: "affected", session: c.session, other: h, subject: h.path, body: overlapBody(c, h, groupChanges(theirChanges.filter((x) => x.id === h.id && x.path === h.path))), paths: [h.path], changeAt: Number(h.since) });
      }
    }
  }
  // What this session's analysed files use that another session broke.
  wanted.push(...(await breakingUsedIn(c, analyses.map((a) => a.path))));
  // This session's breaking changes: every other active session that uses them is told, and so is this one.
  const mine =
    touched.length === 0
      ? []
      : await c.sql.all<ChangeRow>(
          `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
           WHERE sc.session_id = ? AND sc.compatibility = 'breaking' AND sc.path IN (${marks(touched)})
           ORDER BY sc.created_at, sc.path, sc.qualified_name`,
          [c.session.id, ...touched],
        );
  const myGroups = groupChanges(mine);
  const informed: Wanted[] = [];
  if (myGroups.length > 0) {
    // Only the imports that can name a changed file (their target is one of its stems), through the index; each
    // is then checked exactly. Never every import of every active session.
    const names = uniqueSorted([...myGroups.flatMap(namesOf), "*"]);
    const targets = uniqueSorted(myGroups.flatMap((g) => stemSuffixes(g.path)));
    const users: Array<SessionRow & { path: string; name: string; module: string }> = [];
    for (let i = 0; i < names.length; i += 200) {
      const chunk = names.slice(i, i + 200);
      users.push(
        ...(await c.sql.all<SessionRow & { path: string; name: string; module: string }>(
          `SELECT su.path, su.name, su.module, ${SESSION_COLS} FROM session_uses su CROSS JOIN sessions s
           WHERE su.target IN (${marks(targets)}) AND su.name IN (${marks(chunk)}) AND s.id = su.session_id AND ${ACTIVE_OTHER}`,
          [...targets, ...chunk, ...activeOtherParams(c)],
        )),
      );
    }
    const bySession = new Map<string, { row: SessionRow; imports: Array<{ path: string; name: string; module: string | null }> }>();
    for (const u of users) {
      const e = bySession.get(u.id) ?? { row: u, imports: [] };
      e.imports.push({ path: u.path, name: u.name, module: u.module === "" ? null : u.module });
      bySession.set(u.id, e);
    }
    for (const g of myGroups) {
      for (const id of [...bySession.keys()].sort(compareStrings)) {
        const { row, imports } = bySession.get(id) as { row: SessionRow; imports: Array<{ path: string; name: string; module: string | null }> };
        const callers = filesUsing(imports, g.path, namesOf(g));
        if (callers.length === 0) continue;
        wanted.push(breakingWanted(row, { ...g, author: c.session }, callers));
        informed.push({
          kind: "breaking_change", role: "informed", session: c.session, other: row, subject: `${g.path}#${g.top}`,
          body: `your change to ${describeGroup(g)} in ${code(g.path)} breaks code of ${describeSession(row)}, which uses it in ${listSome(callers, 4)}. It will be told before its next edit of that code or at its next prompt. Keep the old form working, or make sure it can adapt.`,
          paths: [g.path], changeAt: g.at,
        });
      }
    }
  }
  // Across packages: every other active session of the team whose code imports a public name of these changes.
  for (const g of myGroups) {
    const names = g.package === null ? [] : publicNamesOfGroup(g);
    if (names.length === 0) continue;
    const rows = await c.sql.all<SessionRow & { path: string; name: string; module: string }>(
      `SELECT su.path, su.name, su.module, ${SESSION_COLS} FROM session_uses su JOIN sessions s ON s.id = su.session_id
       WHERE su.package = ? AND su.name IN (${marks([...names, "*"])}) AND s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?`,
      [g.package, ...names, "*", c.teamId, c.now - c.leaseMs, c.family],
    );
    const bySession = new Map<string, { row: SessionRow; uses: Array<{ path: string; name: string; module: string }> }>();
    for (const r of rows) {
      if (!coveredInRepo(r, { ...g, author: c.session }, r)) bySession.set(r.id, { row: r, uses: [...(bySession.get(r.id)?.uses ?? []), { path: r.path, name: r.name, module: r.module }] });
    }
    for (const id of [...bySession.keys()].sort(compareStrings)) {
      const { row, uses } = bySession.get(id) as { row: SessionRow; uses: Array<{ path: string; name: string; module: string }> };
      for (const name of names) {
        const files = uniqueSorted(uses.filter((u) => u.name === name || u.name === "*").map((u) => u.path));
        if (files.length === 0) continue;
        wanted.push(crossRepoWanted(row, { ...g, author: c.session }, name, files));
        informed.push({
          kind: "cross_repo_breaking", role: "informed", session: c.session, other: row, subject: `${g.package}#${name}`,
          body: `your change to ${describeGroup(g)} in ${code(g.path)} breaks code that imports ${code(name)} from package ${code(packageLabel(g.package ?? ""))}: ${describeSession(row)}${row.repo_id === c.repoId ? "" : ", in another repo,"} uses it in ${listSome(files, 4)}. It will be told before its next edit of that code or at its next prompt. Keep the old form working, or make sure it can adapt.`,
          paths: [g.path], changeAt: g.at,
        });
      }
    }
  }
  await recordConflicts(c, [...wanted, ...informed]);
  const delivered = await deliverQueued(c, "## Comity — coordination warning");
  if (selfNotes.length === 0) return delivered;
  const notes = `## Comity — note\n${selfNotes.join("\n")}`;
  return { ...delivered, decision: delivered.decision === "allow" ? "warn" : delivered.decision, inject_context: delivered.inject_context === null ? notes : `${delivered.inject_context}\n\n${notes}` };
}

function usesOf(c: Coordination, a: NonNullable<EvaluateRequest["analysis"]>[number]): unknown[][] {
  const refs = [...(a.references ?? []), ...(a.new_references ?? [])].filter((r) => (r.kind === "import" || r.kind === "export") && r.module != null && r.module !== "");
  return uniqueRows(refs.map((r) => [c.session.id, a.path, r.name, r.module ?? "", importTarget(a.path, r.module ?? ""), c.now, packageOfImport(a.path, r.module ?? "")]));
}

/**
 * The session's changes of one file, as its latest analysis says (HEAD against the working tree): a change it no
 * longer shows was reverted (HEAD has not moved: the notices it queued and not yet told are withdrawn) or
 * committed (HEAD moved); the others are updated, keeping when they were first made.
 */
async function reconcileChanges(c: Coordination, filePath: string, changes: NonNullable<NonNullable<EvaluateRequest["analysis"]>[number]["changes"]>, pkg: string | null): Promise<void> {
  const head = c.request.repo.head_sha ?? null;
  const before = await c.sql.all<{ qualified_name: string; change: string; compatibility: string; summary: string; renamed_from: string | null; head_sha: string | null; state: string; package: string | null; public_names: string | null }>(
    "SELECT qualified_name, change, compatibility, summary, renamed_from, head_sha, state, package, public_names FROM symbol_changes WHERE session_id = ? AND path = ?",
    [c.session.id, filePath],
  );
  const now = new Map(changes.map((ch) => [ch.qualified_name, ch]));
  const withdrawn = new Set<string>();
  const reverted: string[] = [];
  const committed: string[] = [];
  for (const b of before) {
    const ch = now.get(b.qualified_name);
    if (ch === undefined) {
      if (b.state === "committed") continue;
      if (b.head_sha !== null && head !== null && b.head_sha !== head) committed.push(b.qualified_name);
      else {
        reverted.push(b.qualified_name);
        if (b.compatibility === "breaking") withdrawn.add(topName(b.qualified_name));
      }
      continue;
    }
    if (b.compatibility === "breaking" && ch.compatibility !== "breaking") withdrawn.add(topName(b.qualified_name));
    const same =
      b.change === ch.change && b.compatibility === ch.compatibility && b.summary === summaryOf(ch) && b.renamed_from === (ch.renamed_from ?? null) && b.head_sha === head && b.state === "local" &&
      b.package === pkg && b.public_names === publicNamesOf(ch);
    if (same) continue;
    await c.sql.run("UPDATE symbol_changes SET change = ?, compatibility = ?, summary = ?, renamed_from = ?, head_sha = ?, state = 'local', package = ?, public_names = ? WHERE session_id = ? AND path = ? AND qualified_name = ?", [
      ch.change, ch.compatibility, summaryOf(ch), ch.renamed_from ?? null, head, pkg, publicNamesOf(ch), c.session.id, filePath, ch.qualified_name,
    ]);
  }
  // A reverted change is gone (nothing keeps it); a committed one stays, for briefings.
  for (const [list, statement] of [
    [reverted, "DELETE FROM symbol_changes WHERE session_id = ? AND path = ? AND qualified_name IN"],
    [committed, "UPDATE symbol_changes SET state = 'committed' WHERE session_id = ? AND path = ? AND qualified_name IN"],
  ] as const) {
    for (let i = 0; i < list.length; i += ROWS_PER_INSERT) {
      const chunk = list.slice(i, i + ROWS_PER_INSERT);
      await c.sql.run(`${statement} (${marks(chunk)})`, [c.session.id, filePath, ...chunk]);
    }
  }
  const known = new Set(before.map((b) => b.qualified_name));
  await insertRows(
    c.sql,
    "INSERT INTO symbol_changes (team_id, repo_id, session_id, path, qualified_name, change, compatibility, summary, created_at, renamed_from, head_sha, state, package, public_names) VALUES",
    changes
      .filter((ch) => !known.has(ch.qualified_name))
      .map((ch) => [c.teamId, c.repoId, c.session.id, filePath, ch.qualified_name, ch.change, ch.compatibility, summaryOf(ch), c.now, ch.renamed_from ?? null, head, "local", pkg, publicNamesOf(ch)]),
  );
  // A type whose members are all reverted is withdrawn; one with a breaking member left is not. Two statements,
  // not an OR: each follows an index (the author as the other side, and as the one told). Across packages, the
  // subject is the package's public name.
  const gone = [...withdrawn].filter((top) => !changes.some((ch) => topName(ch.qualified_name) === top && ch.compatibility === "breaking"));
  const publicOf = (top: string): string[] => {
    const b = before.find((x) => topName(x.qualified_name) === top && x.public_names !== null);
    return pkg === null ? [] : (b === undefined ? [top] : (JSON.parse(b.public_names as string) as string[])).map((n) => `${pkg}#${n}`);
  };
  const subjects = [...gone.map((top) => `${filePath}#${top}`), ...gone.flatMap(publicOf)];
  for (let i = 0; i < subjects.length; i += ROWS_PER_INSERT) {
    const chunk = subjects.slice(i, i + ROWS_PER_INSERT);
    for (const side of ["other_session_id", "session_id"]) {
      for (const kind of ["breaking_change", "cross_repo_breaking"]) {
        await c.sql.run(
          `UPDATE conflicts SET withdrawn_at = ? WHERE ${side} = ? AND team_id = ? AND kind = ? AND subject IN (${marks(chunk)}) AND withdrawn_at IS NULL AND told_at IS NULL`,
          [c.now, c.familyId, c.teamId, kind, ...chunk],
        );
      }
    }
  }
}

/** The public names a change carries, as stored (JSON), or null when the hook did not say. */
function publicNamesOf(ch: { public_names?: readonly string[] | null | undefined }): string | null {
  return ch.public_names == null ? null : JSON.stringify([...ch.public_names].sort(compareStrings));
}

function summaryOf(ch: { change: string; reasons?: ReadonlyArray<{ code: string; message: string }> | undefined }): string {
  const reasons = (ch.reasons ?? []).slice(0, 2).map((r) => `${r.code}: ${r.message}`);
  return reasons.length > 0 ? reasons.join("; ") : ch.change;
}

/** `session_start`: who else is active in this repo and on what, the recent breaking changes, and queued notices. */
async function atSessionStart(c: Coordination): Promise<Outcome> {
  // The packages the repo depends on, as its manifests say now: in-flight breaking changes to them are news.
  const brief = await briefing(c, uniqueSorted(c.request.repo.dependencies ?? []));
  const queued = await deliverQueued(c, "## Comity update — system-generated");
  const text = [brief, queued.inject_context].filter((t): t is string => t !== null).join("\n\n");
  return { ...queued, inject_context: text === "" ? null : text };
}

async function briefing(c: Coordination, dependencies: readonly string[]): Promise<string | null> {
  const others = await c.sql.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions s WHERE ${ACTIVE_OTHER} ORDER BY s.started_at, s.external_id, s.id LIMIT 10`, activeOtherParams(c));
  const lines: string[] = [];
  for (const o of others) {
    const files = await c.sql.all<{ path: string }>(
      `SELECT path FROM session_files WHERE session_id = ?
       UNION SELECT ip.path FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number
       WHERE i.session_id = ? AND i.released_at IS NULL AND i.created_at >= ? ORDER BY path`,
      [o.id, o.id, o.started_at],
    );
    const symbols = await c.sql.all<{ q: string; compatibility: string }>(
      "SELECT qualified_name AS q, MIN(compatibility) AS compatibility FROM symbol_changes WHERE session_id = ? GROUP BY qualified_name ORDER BY qualified_name",
      [o.id],
    );
    const parts = [`- ${describeSession(o)}, since ${ago(Number(o.started_at), c.now)}`];
    if (files.length > 0) parts.push(`files ${listSome(files.map((f) => f.path), 8)}`);
    // Breaking first ("breaking" < "compatible" < "internal" is also their alphabetical order).
    const ordered = [...symbols].sort((a, b) => compareStrings(a.compatibility, b.compatibility) || compareStrings(a.q, b.q));
    if (ordered.length > 0) parts.push(`symbols ${listSome(ordered.map((s) => (s.compatibility === "breaking" ? `${code(s.q)} (breaking)` : code(s.q))), 8, false)}`);
    lines.push(parts.join("; ") + (o.status_excerpt ? `. Last status: ${quoted(o.status_excerpt)}` : ""));
  }
  // A breaking change is news while its author is active, or once it is committed: one left behind by a session
  // that ended without committing it is gone with that session.
  const breaking = await c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.repo_id = ? AND sc.compatibility = 'breaking' AND sc.created_at >= ? AND sc.session_id <> ?
       AND (sc.state = 'committed' OR (s.ended_at IS NULL AND s.last_seen_at >= ?))
     ORDER BY sc.created_at DESC, sc.path, sc.qualified_name LIMIT 20`,
    [c.repoId, c.now - BREAKING_HISTORY_MS, c.session.id, c.now - c.leaseMs],
  );
  // Across packages: in-flight breaking changes, made in other repos, to packages this repo depends on.
  const upstream = groupChanges((await packageChanges(c, dependencies)).filter((x) => x.repo_id !== c.repoId)).filter((g) => publicNamesOfGroup(g).length > 0);
  if (lines.length === 0 && breaking.length === 0 && upstream.length === 0) return null;
  const out = ["## Comity briefing — system-generated"];
  if (lines.length > 0) out.push("Other active sessions in this repo:", ...lines);
  if (breaking.length > 0) {
    out.push(`Breaking changes in the last ${BREAKING_HISTORY_MS / 3_600_000} hours:`);
    for (const g of groupChanges(breaking).reverse().slice(0, 10)) out.push(`- ${groupName(g)} in ${code(g.path)} by ${describeSession(g.author)}, ${ago(g.at, c.now)}: ${groupWhy(g)} (${stateOf(g)})`);
  }
  if (upstream.length > 0) {
    out.push("Breaking changes in progress in packages this repo depends on:");
    for (const g of upstream.reverse().slice(0, 10)) {
      out.push(`- ${listSome(publicNamesOfGroup(g), 4)} of ${code(packageLabel(g.package ?? ""))} (${code(g.path)}) by ${describeSession(g.author)}, ${ago(g.at, c.now)}: ${groupWhy(g)} (${stateOf(g)})`);
    }
  }
  return out.join("\n");
}

/** `stop` ends the turn, `session_end` the session: either releases the session's intents. */
async function endTurn(c: Coordination, request: EvaluateRequest): Promise<void> {
  await c.sql.run("UPDATE intents SET released_at = ? WHERE session_id = ? AND released_at IS NULL", [c.now, c.session.id]);
  await c.sql.run("UPDATE sessions SET turn_ended_at = ? WHERE id = ?", [c.now, c.session.id]);
  if (request.event === "stop" && request.status !== undefined) {
    if (request.status.excerpt !== undefined) await c.sql.run("UPDATE sessions SET status_excerpt = ? WHERE id = ?", [request.status.excerpt, c.session.id]);
    const files = uniqueSorted(request.status.files ?? []);
    await insertRows(c.sql, "INSERT INTO session_files (session_id, path, updated_at) VALUES", files.map((p) => [c.session.id, p, c.now]), "ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at");
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

/** Rows without repeats (PostgreSQL refuses an INSERT … ON CONFLICT that touches one row twice). */
function uniqueRows(rows: readonly unknown[][]): unknown[][] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = JSON.stringify(r.slice(0, 4));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

