import { ComityError } from "../errors/comity-error.js";
import { compareStrings } from "../errors/diagnostic.js";
import { marks, type Sql } from "../store/database.js";
import { code, describeSession, quoted, shortSessionId } from "./coordination-text.js";
import { type Coordination, SESSION_COLS, type SessionRow } from "./coordination.js";

/**
 * Reservations: a session's explicit claim on files of its repo, stated in advance (the MCP server's `reserve`), where
 * the hooks' holds are taken implicitly at each edit. One has patterns (a file, a folder, a glob), an expiry, a mode
 * and a reason; it ends at its expiry, at `release`, or when its session ends or lapses. Another session's edit of a
 * reserved file is told (`docs/coordination.md`, "Reservations").
 */

/** `POST /v1/reservations`: reserve `patterns` of the repo for the session `session` (its external id). */
export interface ReserveRequest {
  readonly repo: { readonly remote_fingerprints: readonly string[] };
  readonly session: string;
  /** Repo-relative: `src/billing/` (a folder), `src/auth.ts`, `src/**\/*.sql`. */
  readonly patterns: readonly string[];
  readonly minutes: number;
  /** Exclusive: another session's edit is denied as policy says; shared: told, not denied. */
  readonly exclusive: boolean;
  readonly reason?: string | null;
}

export interface ReservationView {
  readonly ref: string;
  readonly pattern: string;
  readonly exclusive: boolean;
  readonly reason: string | null;
  readonly expires_at: number;
}

export interface ReserveAnswer {
  readonly reservations: readonly ReservationView[];
  /** Other sessions' active reservations that overlap these patterns (shared ones, since an exclusive one refuses). */
  readonly overlapping: ReadonlyArray<ReservationView & { readonly session: string; readonly description: string }>;
}

/** `POST /v1/reservations/release`: the session's reservations by ref (`RSV-3`) or pattern; all of them when neither. */
export interface ReleaseRequest {
  readonly repo: { readonly remote_fingerprints: readonly string[] };
  readonly session: string;
  readonly refs?: readonly string[];
  readonly patterns?: readonly string[];
}

export interface ReleaseAnswer {
  readonly released: readonly string[];
}

/** The team, clock and lease a request is answered with (as `channel.ts`'s). */
interface ChannelScope {
  readonly teamId: string;
  readonly now: number;
  readonly leaseMs: number;
}

/** Limits: patterns per request, their length, minutes, and active reservations a session may hold. */
export const RESERVATION_LIMITS = { patterns: 32, patternLength: 512, minutes: 480, perSession: 64 } as const;

const PATTERN = { type: "string", minLength: 1, maxLength: RESERVATION_LIMITS.patternLength } as const;
const REPO = {
  type: "object",
  required: ["remote_fingerprints"],
  properties: { remote_fingerprints: { type: "array", maxItems: 32, items: { type: "string", pattern: "^[0-9a-f]{16,128}$" } } },
} as const;

export const RESERVE_REQUEST_SCHEMA = {
  $id: "https://comity.dev/schema/reserve-request.json",
  type: "object",
  required: ["repo", "session", "patterns", "minutes", "exclusive"],
  properties: {
    repo: REPO,
    session: { type: "string", minLength: 1, maxLength: 512 },
    patterns: { type: "array", minItems: 1, maxItems: RESERVATION_LIMITS.patterns, items: PATTERN },
    minutes: { type: "integer", minimum: 1, maximum: RESERVATION_LIMITS.minutes },
    exclusive: { type: "boolean" },
    reason: { type: ["string", "null"], maxLength: 500 },
  },
} as const;

export const RELEASE_REQUEST_SCHEMA = {
  $id: "https://comity.dev/schema/release-request.json",
  type: "object",
  required: ["repo", "session"],
  properties: {
    repo: REPO,
    session: { type: "string", minLength: 1, maxLength: 512 },
    refs: { type: "array", maxItems: RESERVATION_LIMITS.perSession, items: { type: "string", pattern: "^RSV-[0-9]{1,15}$" } },
    patterns: { type: "array", maxItems: RESERVATION_LIMITS.patterns, items: PATTERN },
  },
} as const;

/**
 * A pattern as stored: repo-relative, POSIX, without `./` or a leading `/`; a folder keeps its trailing `/`. Throws on
 * one that leaves the repo (`..`) or is empty.
 */
export function normalizePattern(raw: string): string {
  let p = raw
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/^\/+/, "")
    .replace(/\/{2,}/g, "/");
  if (p === "." || p === "./") p = "**";
  if (p === "") throw new ComityError("INVALID_ARGUMENT", `'${raw}' names no file: give a file, a folder (src/billing/) or a glob (src/**/*.sql)`);
  if (p.split("/").includes("..")) throw new ComityError("INVALID_ARGUMENT", `'${raw}' leaves the repo: give a path inside it`);
  return p;
}

const GLOB = /[*?[]/;

/** Whether a repo-relative path falls under a pattern: the file itself, a file of the folder, a match of the glob. */
export function patternMatches(pattern: string, filePath: string): boolean {
  if (!GLOB.test(pattern)) {
    const folder = pattern.endsWith("/") ? pattern : `${pattern}/`;
    return filePath === pattern || filePath.startsWith(folder);
  }
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "*" && pattern[i + 1] === "*") {
      // `**/` is any number of folders, none included; `**` elsewhere is anything.
      if (pattern[i + 2] === "/") {
        re += "(?:.*/)?";
        i += 2;
      } else {
        re += ".*";
        i += 1;
      }
    } else if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  if (pattern.endsWith("/")) re += ".*";
  return new RegExp(`^${re}$`).test(filePath);
}

/** Whether two patterns may name a common file: one's literal part (up to its first wildcard) leads the other's. */
export function patternsOverlap(a: string, b: string): boolean {
  const lit = (p: string): string => {
    const i = p.search(GLOB);
    return i < 0 ? p : p.slice(0, i);
  };
  const [la, lb] = [lit(a), lit(b)];
  const under = (x: string, y: string): boolean => x === y || x.startsWith(y.endsWith("/") || y === "" ? y : `${y}/`) || (GLOB.test(y) && x.startsWith(lit(y)));
  return under(la, lb) || under(lb, la) || (GLOB.test(a) && lb.startsWith(la)) || (GLOB.test(b) && la.startsWith(lb));
}

type ReservationRow = SessionRow & { number: number; pattern: string; exclusive: number; reason: string | null; created_at: number; expires_at: number };

/** The active session `externalId` of the repos these fingerprints name, or a ComityError saying there is none. */
export async function sessionOf(sql: Sql, scope: ChannelScope, fingerprints: readonly string[], externalId: string): Promise<SessionRow> {
  const rows =
    fingerprints.length === 0
      ? []
      : await sql.all<SessionRow>(
          `SELECT ${SESSION_COLS} FROM sessions s WHERE s.team_id = ? AND s.external_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ?
           AND s.repo_id IN (SELECT repo_id FROM repo_fingerprints WHERE team_id = ? AND fingerprint IN (${marks(fingerprints)}))
           ORDER BY s.last_seen_at DESC, s.id`,
          [scope.teamId, externalId, scope.now - scope.leaseMs, scope.teamId, ...fingerprints],
        );
  const row = rows[0];
  if (row === undefined) throw new ComityError("INVALID_ARGUMENT", `no active session ${shortSessionId(externalId)} in this repo: Comity's hooks have not seen it yet, or it ended`);
  return row;
}

/** The active reservations of these repos (released, expired, or of a session that ended or lapsed: none). */
async function activeReservations(sql: Sql, scope: ChannelScope, repoIds: readonly string[]): Promise<ReservationRow[]> {
  if (repoIds.length === 0) return [];
  return sql.all<ReservationRow>(
    `SELECT ${SESSION_COLS}, r.number, r.pattern, r.exclusive, r.reason, r.created_at, r.expires_at FROM reservations r JOIN sessions s ON s.id = r.session_id
     WHERE r.team_id = ? AND r.repo_id IN (${marks(repoIds)}) AND r.released_at IS NULL AND r.expires_at > ? AND s.ended_at IS NULL AND s.last_seen_at >= ?
     ORDER BY r.number LIMIT 5000`,
    [scope.teamId, ...repoIds, scope.now, scope.now - scope.leaseMs],
  );
}

const view = (r: { number: number; pattern: string; exclusive: number | boolean; reason: string | null; expires_at: number }): ReservationView => ({
  ref: `RSV-${r.number}`,
  pattern: r.pattern,
  exclusive: Number(r.exclusive) === 1 || r.exclusive === true,
  reason: r.reason,
  expires_at: Number(r.expires_at),
});

/**
 * Reserves patterns for a session. An exclusive reservation that meets another session's active one is refused,
 * naming it; a shared one is granted beside other shared ones, and says which it meets.
 */
export async function reserve(sql: Sql, scope: ChannelScope, request: ReserveRequest): Promise<ReserveAnswer> {
  const patterns = [...new Set(request.patterns.map(normalizePattern))].sort(compareStrings);
  if (!Number.isInteger(request.minutes) || request.minutes < 1 || request.minutes > RESERVATION_LIMITS.minutes)
    throw new ComityError("INVALID_ARGUMENT", `minutes must be a whole number from 1 to ${RESERVATION_LIMITS.minutes}`);
  const session = await sessionOf(sql, scope, request.repo.remote_fingerprints, request.session);
  const active = await activeReservations(sql, scope, [session.repo_id]);
  const mine = active.filter((r) => r.id === session.id);
  if (mine.length + patterns.length > RESERVATION_LIMITS.perSession)
    throw new ComityError("INVALID_ARGUMENT", `a session holds at most ${RESERVATION_LIMITS.perSession} reservations (${mine.length} now): release some first`);
  const others = active.filter((r) => r.id !== session.id && r.family !== session.family && patterns.some((p) => patternsOverlap(p, r.pattern)));
  const blocking = others.filter((r) => request.exclusive || Number(r.exclusive) === 1);
  if (blocking.length > 0) {
    const named = blocking.map(
      (r) => `${code(r.pattern)} (RSV-${r.number}, ${Number(r.exclusive) === 1 ? "exclusive" : "shared"}) by ${describeSession(r)}${r.reason === null ? "" : `: ${quoted(r.reason, 200)}`}`,
    );
    throw new ComityError("INVALID_ARGUMENT", `already reserved: ${named.join("; ")}. Reach it with send_message, take a shared reservation, or wait for it to end.`);
  }
  const expires = scope.now + request.minutes * 60_000;
  const out: ReservationView[] = [];
  for (const pattern of patterns) {
    // The same pattern reserved again by its session: its expiry, mode and reason are renewed.
    const again = mine.find((r) => r.pattern === pattern);
    if (again !== undefined) {
      await sql.run("UPDATE reservations SET expires_at = ?, exclusive = ?, reason = ? WHERE team_id = ? AND number = ?", [
        expires,
        request.exclusive ? 1 : 0,
        request.reason ?? null,
        scope.teamId,
        again.number,
      ]);
      out.push(view({ ...again, exclusive: request.exclusive ? 1 : 0, reason: request.reason ?? null, expires_at: expires }));
      continue;
    }
    const counter = await sql.all<{ n: number }>("UPDATE teams SET next_reservation = next_reservation + 1 WHERE id = ? RETURNING next_reservation - 1 AS n", [scope.teamId]);
    const number = Number(counter[0]?.n);
    await sql.run("INSERT INTO reservations (team_id, number, session_id, repo_id, pattern, exclusive, reason, created_at, expires_at, released_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)", [
      scope.teamId,
      number,
      session.id,
      session.repo_id,
      pattern,
      request.exclusive ? 1 : 0,
      request.reason ?? null,
      scope.now,
      expires,
    ]);
    out.push(view({ number, pattern, exclusive: request.exclusive ? 1 : 0, reason: request.reason ?? null, expires_at: expires }));
  }
  return { reservations: out, overlapping: others.map((r) => ({ ...view(r), session: shortSessionId(r.external_id), description: describeSession(r) })) };
}

/** Releases a session's reservations (by ref or pattern; all of them when neither is given). */
export async function release(sql: Sql, scope: ChannelScope, request: ReleaseRequest): Promise<ReleaseAnswer> {
  const session = await sessionOf(sql, scope, request.repo.remote_fingerprints, request.session);
  const mine = (await activeReservations(sql, scope, [session.repo_id])).filter((r) => r.id === session.id);
  const refs = new Set(request.refs ?? []);
  const patterns = new Set((request.patterns ?? []).map(normalizePattern));
  const all = refs.size === 0 && patterns.size === 0;
  const gone = mine.filter((r) => all || refs.has(`RSV-${r.number}`) || patterns.has(r.pattern));
  if (!all && gone.length === 0)
    throw new ComityError(
      "INVALID_ARGUMENT",
      `none of this session's active reservations is ${[...refs, ...patterns].join(", ")}${mine.length === 0 ? ": it holds none" : `; it holds ${mine.map((r) => `RSV-${r.number} (${r.pattern})`).join(", ")}`}`,
    );
  if (gone.length > 0) await sql.run(`UPDATE reservations SET released_at = ? WHERE team_id = ? AND number IN (${marks(gone)})`, [scope.now, scope.teamId, ...gone.map((r) => r.number)]);
  return { released: gone.map((r) => `RSV-${r.number}`) };
}

/** The active reservations of other sessions (not of this one's family) in this event's repo that name any of `paths`, each with the paths it names. */
export async function reservationsMeeting(c: Coordination, paths: readonly string[]): Promise<Array<{ reservation: ReservationRow; paths: string[] }>> {
  if (paths.length === 0) return [];
  const active = await activeReservations(c.sql, { teamId: c.teamId, now: c.now, leaseMs: c.leaseMs }, [c.repoId]);
  const out: Array<{ reservation: ReservationRow; paths: string[] }> = [];
  for (const r of active) {
    if (r.id === c.session.id || r.family === c.family) continue;
    const met = paths.filter((p) => patternMatches(r.pattern, p));
    if (met.length > 0) out.push({ reservation: r, paths: met });
  }
  return out;
}

/** The active reservations of these repos that name a file, each said for people (what `who` lists). */
export async function reservationsMeetingPath(sql: Sql, scope: ChannelScope, repoIds: readonly string[], filePath: string): Promise<Array<{ row: SessionRow; text: string }>> {
  return (await activeReservations(sql, scope, repoIds))
    .filter((r) => patternMatches(r.pattern, filePath))
    .map((r) => ({
      row: r,
      text: `RSV-${r.number} ${r.pattern}, ${Number(r.exclusive) === 1 ? "exclusive" : "shared"}, for ${minutesLeft(Number(r.expires_at), scope.now)}${r.reason === null || r.reason === "" ? "" : `: ${r.reason}`}`,
    }));
}

/** The active reservations of these sessions, by session id (what `status` and the dashboard show). */
export async function reservationsOf(sql: Sql, scope: ChannelScope, repoIds: readonly string[]): Promise<Map<string, ReservationView[]>> {
  const out = new Map<string, ReservationView[]>();
  for (const r of await activeReservations(sql, scope, repoIds)) out.set(r.id, [...(out.get(r.id) ?? []), view(r)]);
  return out;
}

/** How long until a time, for people: `18 more minutes`, `1 more minute`. */
export function minutesLeft(until: number, now: number): string {
  const m = Math.max(1, Math.round((until - now) / 60_000));
  return `${m} more minute${m === 1 ? "" : "s"}`;
}
