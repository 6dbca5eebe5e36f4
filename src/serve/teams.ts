import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ComityError } from "../errors/comity-error.js";
import { first, type Database, type Sql } from "./database.js";
import { POLICIES, type TeamPolicy } from "../coordination/wire.js";

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

/** A new token for the team (created when it does not exist yet). The only time the token is visible. */
export async function createToken(db: Database, teamName: string, now: () => number = Date.now): Promise<{ team: Team; token: string }> {
  const name = teamName.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) throw new ComityError("INVALID_ARGUMENT", `team name '${teamName}': use 1 to 64 letters, digits, '.', '_' or '-'`);
  const token = `cmt_${randomBytes(32).toString("base64url")}`;
  const team = await db.transaction(`team:${name}`, async (sql) => {
    await sql.run("INSERT INTO teams (id, name, policy, created_at) VALUES (?, ?, 'first_contact', ?) ON CONFLICT (name) DO NOTHING", [randomUUID(), name, now()]);
    const t = await teamByName(sql, name);
    if (t === undefined) throw new ComityError("INTERNAL", `team ${name} vanished`);
    await sql.run("INSERT INTO tokens (hash, team_id, created_at) VALUES (?, ?, ?)", [hashToken(token), t.id, now()]);
    return t;
  });
  return { team, token };
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

/** The team a bearer token belongs to, or undefined. */
export async function teamForToken(sql: Sql, token: string): Promise<Team | undefined> {
  const row = await first<{ id: string; name: string; policy: string }>(
    sql,
    "SELECT t.id, t.name, t.policy FROM tokens k JOIN teams t ON t.id = k.team_id WHERE k.hash = ?",
    [hashToken(token)],
  );
  return row === undefined ? undefined : toTeam(row);
}

async function teamByName(sql: Sql, name: string): Promise<Team | undefined> {
  const row = await first<{ id: string; name: string; policy: string }>(sql, "SELECT id, name, policy FROM teams WHERE name = ?", [name]);
  return row === undefined ? undefined : toTeam(row);
}

function toTeam(row: { id: string; name: string; policy: string }): Team {
  return { id: row.id, name: row.name, policy: asPolicy(row.policy) };
}

/** A stored policy as one of the three (anything unknown is the default). */
export function asPolicy(value: unknown): TeamPolicy {
  return (POLICIES as readonly unknown[]).includes(value) ? (value as TeamPolicy) : "first_contact";
}
