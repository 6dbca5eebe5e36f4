import { randomBytes } from "node:crypto";

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

/** The sign-ins of a dashboard, in memory (they end with the process). */
export interface SignIns {
  /** A new sign-in's id (the cookie's value). */
  start(team: { readonly id: string; readonly name: string; readonly readOnly: boolean }, key: string | null): string;
  /** The sign-in of an id, unless it has ended or expired. */
  get(id: string): SignIn | null;
  end(id: string): void;
  /** Ends every sign-in made with this token. */
  endKey(key: string): void;
  /** The tokens that live sign-ins were made with. */
  keys(): Set<string>;
  readonly size: number;
}

/**
 * Sign-ins bounded in number: expired ones are pruned as new ones start, a token holds at most `perKey` (its oldest
 * ends first), and the whole set at most `total`, so that signing in again and again costs the server nothing.
 */
export function createSignIns(now: () => number, limits: SignInLimits = SIGN_IN_LIMITS): SignIns {
  // In insertion order: the first of a key, or of all, is the oldest.
  const all = new Map<string, SignIn>();
  const prune = (): void => {
    const t = now();
    for (const [id, s] of all) if (s.expires < t) all.delete(id);
  };
  return {
    start(team, key) {
      prune();
      if (key !== null) {
        const mine = [...all].filter(([, s]) => s.key === key);
        for (const [id] of mine.slice(0, Math.max(0, mine.length - limits.perKey + 1))) all.delete(id);
      }
      for (const id of all.keys()) {
        if (all.size < limits.total) break;
        all.delete(id);
      }
      const id = randomBytes(24).toString("base64url");
      all.set(id, { teamId: team.id, team: team.name, readOnly: team.readOnly, csrf: randomBytes(18).toString("base64url"), expires: now() + limits.ttlMs, key });
      return id;
    },
    get(id) {
      const s = all.get(id);
      if (s === undefined) return null;
      if (s.expires < now()) {
        all.delete(id);
        return null;
      }
      return s;
    },
    end(id) {
      all.delete(id);
    },
    endKey(key) {
      for (const [id, s] of all) if (s.key === key) all.delete(id);
    },
    keys() {
      return new Set([...all.values()].flatMap((s) => (s.key === null ? [] : [s.key])));
    },
    get size() {
      return all.size;
    },
  };
}
