import { createHash, randomBytes } from "node:crypto";
import type { Database } from "../store/database.js";

/** A signed-in person: the team the token named, whether it was read-only, and the form token of the sign-in. */
export interface SignIn {
  readonly teamId: string;
  readonly team: string;
  readonly readOnly: boolean;
  readonly csrf: string;
  readonly expires: number;
  /**
   * What names the token it was made with (its hash): a revoked token's sign-ins end at their next request. Null
   * for one made without a token (`comity status --web`'s one-time link).
   */
  readonly key: string | null;
}

export interface SignInLimits {
  /** How long a sign-in lasts. */
  readonly ttlMs: number;
  /** Sign-ins made with one token at once; a new one ends its oldest past this. */
  readonly perKey: number;
  /** Sign-ins at once, all tokens together; a new one ends the oldest past this. */
  readonly total: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { ttlMs: 8 * 60 * 60 * 1000, perKey: 16, total: 10_000 };

/**
 * The sign-ins of a dashboard: in memory ({@link createSignIns}: `comity status --web`, ending with the process) or in
 * the server's database ({@link createStoredSignIns}: every replica of a server on one PostgreSQL reads the same).
 */
export interface SignIns {
  /** A new sign-in's id (the cookie's value). */
  start(team: { readonly id: string; readonly name: string; readonly readOnly: boolean }, key: string | null): Promise<string>;
  /** The sign-in of an id, unless it has ended or expired. */
  get(id: string): Promise<SignIn | null>;
  end(id: string): Promise<void>;
  /** Ends every sign-in made with this token. */
  endKey(key: string): Promise<void>;
}

/** What names a sign-in outside the browser that holds its id (the database's rows, the replicas' messages). */
export function signInHash(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("base64url");
}

const newId = (): string => randomBytes(24).toString("base64url");
const newCsrf = (): string => randomBytes(18).toString("base64url");

/**
 * Sign-ins in memory, bounded in number: expired ones are pruned as new ones start, a token holds at most `perKey`
 * (its oldest ends first), and the whole set at most `total`, so that signing in again and again costs the server
 * nothing.
 */
export function createSignIns(now: () => number, limits: SignInLimits = SIGN_IN_LIMITS): SignIns {
  // In insertion order: the first of a key, or of all, is the oldest.
  const all = new Map<string, SignIn>();
  const prune = (): void => {
    const t = now();
    for (const [id, s] of all) if (s.expires < t) all.delete(id);
  };
  return {
    async start(team, key) {
      prune();
      if (key !== null) {
        const mine = [...all].filter(([, s]) => s.key === key);
        for (const [id] of mine.slice(0, Math.max(0, mine.length - limits.perKey + 1))) all.delete(id);
      }
      for (const id of all.keys()) {
        if (all.size < limits.total) break;
        all.delete(id);
      }
      const id = newId();
      all.set(id, { teamId: team.id, team: team.name, readOnly: team.readOnly, csrf: newCsrf(), expires: now() + limits.ttlMs, key });
      return id;
    },
    async get(id) {
      const s = all.get(id);
      if (s === undefined) return null;
      if (s.expires < now()) {
        all.delete(id);
        return null;
      }
      return s;
    },
    async end(id) {
      all.delete(id);
    },
    async endKey(key) {
      for (const [id, s] of all) if (s.key === key) all.delete(id);
    },
  };
}

/**
 * Sign-ins in the server's database (`dashboard_sign_ins`), so that a cookie one replica issued is good on every
 * other, and a sign-out or a revoked token ends it on all of them at their next request. A row names its sign-in by
 * the id's hash, never the id: whoever reads the database cannot sign in with it. Bounded as {@link createSignIns} is:
 * expired rows go as new ones come, a token holds at most `perKey`, all of them at most `total`.
 */
export function createStoredSignIns(db: Database, now: () => number, limits: SignInLimits = SIGN_IN_LIMITS): SignIns {
  return {
    async start(team, key) {
      const id = newId();
      const t = now();
      // One lock for all sign-ins: the bounds count rows that concurrent sign-ins on other replicas also write.
      await db.transaction("comity:dashboard-sign-ins", async (sql) => {
        await sql.run("DELETE FROM dashboard_sign_ins WHERE expires_at < ?", [t]);
        if (key !== null) {
          const mine = await sql.all<{ id_hash: string }>("SELECT id_hash FROM dashboard_sign_ins WHERE token_hash = ? ORDER BY created_at, id_hash", [key]);
          for (const r of mine.slice(0, Math.max(0, mine.length - limits.perKey + 1))) await sql.run("DELETE FROM dashboard_sign_ins WHERE id_hash = ?", [r.id_hash]);
        }
        const total = await sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM dashboard_sign_ins");
        const over = Number(total[0]?.n ?? 0) - limits.total + 1;
        if (over > 0) {
          const oldest = await sql.all<{ id_hash: string }>("SELECT id_hash FROM dashboard_sign_ins ORDER BY created_at, id_hash LIMIT ?", [over]);
          for (const r of oldest) await sql.run("DELETE FROM dashboard_sign_ins WHERE id_hash = ?", [r.id_hash]);
        }
        await sql.run("INSERT INTO dashboard_sign_ins (id_hash, team_id, read_only, csrf, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
          signInHash(id),
          team.id,
          team.readOnly ? 1 : 0,
          newCsrf(),
          key,
          t,
          t + limits.ttlMs,
        ]);
      });
      return id;
    },
    async get(id) {
      const rows = await db.read((sql) =>
        sql.all<{ team_id: string; name: string; read_only: number; csrf: string; token_hash: string | null; expires_at: number }>(
          "SELECT s.team_id, t.name, s.read_only, s.csrf, s.token_hash, s.expires_at FROM dashboard_sign_ins s JOIN teams t ON t.id = s.team_id WHERE s.id_hash = ?",
          [signInHash(id)],
        ),
      );
      const r = rows[0];
      if (r === undefined || Number(r.expires_at) < now()) return null;
      return { teamId: r.team_id, team: r.name, readOnly: Number(r.read_only) === 1, csrf: r.csrf, expires: Number(r.expires_at), key: r.token_hash };
    },
    async end(id) {
      await db.transaction("comity:dashboard-sign-ins", (sql) => sql.run("DELETE FROM dashboard_sign_ins WHERE id_hash = ?", [signInHash(id)]));
    },
    async endKey(key) {
      await db.transaction("comity:dashboard-sign-ins", (sql) => sql.run("DELETE FROM dashboard_sign_ins WHERE token_hash = ?", [key]));
    },
  };
}
