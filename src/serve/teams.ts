import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ComityError } from "../errors/comity-error.js";
import { first, type Database, type Sql } from "../store/database.js";
import { asPolicy, type TeamPolicy } from "../coordination/wire.js";

export type { TeamPolicy } from "../coordination/wire.js";

export interface Team {
  readonly id: string;
  readonly name: string;
  readonly policy: TeamPolicy;
}

/** Tokens are stored as their SHA-256: a leaked database holds no usable token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new token for the team (created when it does not exist yet), with an optional name. The only time the token is visible. */
export async function createToken(db: Database, teamName: string, now: () => number = Date.now, tokenName: string | null = null, readOnly = false): Promise<{ team: Team; token: string; id: string }> {
  const name = teamName.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) throw new ComityError("INVALID_ARGUMENT", `team name '${teamName}': use 1 to 64 letters, digits, '.', '_' or '-'`);
  if (tokenName !== null && !/^[^\u0000-\u001f]{1,64}$/.test(tokenName)) throw new ComityError("INVALID_ARGUMENT", `token name '${tokenName}': 1 to 64 characters, no control characters`);
  const token = `cmt_${randomBytes(32).toString("base64url")}`;
  const id = randomBytes(6).toString("hex");
  const team = await db.transaction(`team:${name}`, async (sql) => {
    await sql.run("INSERT INTO teams (id, name, policy, created_at) VALUES (?, ?, 'first_contact', ?) ON CONFLICT (name) DO NOTHING", [randomUUID(), name, now()]);
    const t = await teamByName(sql, name);
    if (t === undefined) throw new ComityError("INTERNAL", `team ${name} vanished`);
    await sql.run("INSERT INTO tokens (hash, team_id, created_at, id, name, read_only) VALUES (?, ?, ?, ?, ?, ?)", [hashToken(token), t.id, now(), id, tokenName, readOnly ? 1 : 0]);
    return t;
  });
  return { team, token, id };
}

/**
 * Sets a team's policy: `first_contact` (the default: the first edit that meets a conflict is denied once, with
 * the warning), `advisory` (warnings as context only) or `block` (also a file another session holds is denied).
 * The core reads the policy at every request, so a change takes effect at the next one.
 */
export async function setTeamPolicy(db: Database, teamName: string, policy: TeamPolicy): Promise<Team> {
  return db.transaction(`team:${teamName}`, async (sql) => {
    const n = await sql.run("UPDATE teams SET policy = ? WHERE name = ?", [policy, teamName]);
    if (n === 0) throw new ComityError("INVALID_ARGUMENT", `no team named '${teamName}' (create one with: comity serve token create --team ${teamName})`);
    const t = await teamByName(sql, teamName);
    if (t === undefined) throw new ComityError("INTERNAL", `team ${teamName} vanished`);
    return t;
  });
}

/** A team's current policy. */
export async function teamPolicy(db: Database, teamName: string): Promise<Team> {
  const t = await db.read((sql) => teamByName(sql, teamName));
  if (t === undefined) throw new ComityError("INVALID_ARGUMENT", `no team named '${teamName}' (create one with: comity serve token create --team ${teamName})`);
  return t;
}

/** The team a bearer token belongs to (and when the token was last used), or undefined. */
export async function teamForToken(sql: Sql, token: string): Promise<(Team & { readonly tokenLastUsed: number | null; readonly readOnly: boolean }) | undefined> {
  const row = await first<{ id: string; name: string; policy: string; last_used_at: number | null; read_only: number }>(
    sql,
    "SELECT t.id, t.name, t.policy, k.last_used_at, k.read_only FROM tokens k JOIN teams t ON t.id = k.team_id WHERE k.hash = ?",
    [hashToken(token)],
  );
  return row === undefined ? undefined : { ...toTeam(row), tokenLastUsed: row.last_used_at === null ? null : Number(row.last_used_at), readOnly: Number(row.read_only) === 1 };
}

/** Whether a token of this hash exists (not revoked): the dashboard's sign-ins made with it end when it does not. */
export async function tokenHashExists(sql: Sql, hash: string): Promise<boolean> {
  return (await first<{ n: number }>(sql, "SELECT 1 AS n FROM tokens WHERE hash = ?", [hash])) !== undefined;
}

/** Sets a team's policy by its id (the dashboard's switch). */
export async function setTeamPolicyById(db: Database, teamId: string, policy: TeamPolicy): Promise<void> {
  await db.transaction(`team-id:${teamId}`, (sql) => sql.run("UPDATE teams SET policy = ? WHERE id = ?", [policy, teamId]));
}

/** Records that a token was used now (the server does it at most once a minute per token). */
export async function touchToken(db: Database, token: string, now: number): Promise<void> {
  const hash = hashToken(token);
  await db.transaction(`token:${hash}`, (sql) => sql.run("UPDATE tokens SET last_used_at = ? WHERE hash = ?", [now, hash]));
}

export interface TokenInfo {
  readonly id: string;
  readonly name: string | null;
  readonly created_at: number;
  readonly last_used_at: number | null;
}

/** A team's tokens: id, name, created, last used; never the token nor its hash. */
export async function listTokens(db: Database, teamName: string): Promise<TokenInfo[]> {
  const team = await teamPolicy(db, teamName);
  const rows = await db.read((sql) =>
    sql.all<{ id: string; name: string | null; created_at: number; last_used_at: number | null }>("SELECT id, name, created_at, last_used_at FROM tokens WHERE team_id = ? ORDER BY created_at, id", [
      team.id,
    ]),
  );
  return rows.map((r) => ({ id: r.id, name: r.name, created_at: Number(r.created_at), last_used_at: r.last_used_at === null ? null : Number(r.last_used_at) }));
}

/**
 * Deletes a token by its id: the next request with it gets 401, the dashboard's sign-ins made with it are gone, and
 * every replica listening on the database ends their live streams now. Returns the team it belonged to.
 */
export async function revokeToken(db: Database, id: string): Promise<{ team: string; name: string | null }> {
  const out = await db.transaction(`token-id:${id}`, async (sql) => {
    const row = await first<{ team: string; name: string | null; hash: string }>(sql, "SELECT t.name AS team, k.name, k.hash FROM tokens k JOIN teams t ON t.id = k.team_id WHERE k.id = ?", [id]);
    if (row === undefined) throw new ComityError("INVALID_ARGUMENT", `no token with id '${id}' (see: comity serve token list --team NAME)`);
    await sql.run("DELETE FROM tokens WHERE id = ?", [id]);
    await sql.run("DELETE FROM dashboard_sign_ins WHERE token_hash = ?", [row.hash]);
    return row;
  });
  // (after the commit: a replica told before it would still find the token)
  await db.messages?.send(REVOKED_CHANNEL, out.hash).catch(() => undefined);
  return { team: out.team, name: out.name };
}

/** The channel on which a revoked token's hash is told to every replica. */
export const REVOKED_CHANNEL = "comity_revoked";

async function teamByName(sql: Sql, name: string): Promise<Team | undefined> {
  const row = await first<{ id: string; name: string; policy: string }>(sql, "SELECT id, name, policy FROM teams WHERE name = ?", [name]);
  return row === undefined ? undefined : toTeam(row);
}

function toTeam(row: { id: string; name: string; policy: string }): Team {
  return { id: row.id, name: row.name, policy: asPolicy(row.policy) };
}
