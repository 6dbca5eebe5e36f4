import type { Database } from "./database.js";

const HOUR = 3_600_000;

/** How long each kind of record is kept once it no longer matters. */
export const RETENTION = {
  /** A hook retries within seconds; a day of dedupe keys is plenty. */
  dedupeMs: 24 * HOUR,
  /** Delivered notices and released intents are history. */
  deliveredMs: 24 * HOUR,
  /** Symbol changes feed briefings (12 hours) and overlap checks of sessions still active. */
  symbolChangesMs: 7 * 24 * HOUR,
  /** A session silent this long is gone, with its files, references, notices, intents and conflicts. */
  sessionsMs: 7 * 24 * HOUR,
} as const;

/** How often `comity serve` prunes: often enough that each run deletes little (an hour's dedupe keys at most). */
export const PRUNE_EVERY_MS = 60_000;

/**
 * Deletes what has outlived its use, so the database does not grow without
 * bound: old dedupe keys, delivered notices, released intents and their
 * paths, old symbol changes, and sessions silent for a week with everything
 * of theirs. Every delete follows an index. Returns the number of rows deleted.
 */
export async function pruneExpired(db: Database, now: number): Promise<number> {
  return db.transaction("comity:prune", async (sql) => {
    let n = 0;
    n += await sql.run("DELETE FROM dedupe WHERE created_at < ?", [now - RETENTION.dedupeMs]);
    n += await sql.run("DELETE FROM dashboard_sign_ins WHERE expires_at < ?", [now]);
    // (a replica killed without stopping: listed as a peer for 15 s, its row kept a day for whoever looks)
    n += await sql.run("DELETE FROM replicas WHERE seen_at < ?", [now - 24 * 60 * 60 * 1000]);
    n += await sql.run("DELETE FROM notices WHERE delivered_at IS NOT NULL AND delivered_at < ?", [now - RETENTION.deliveredMs]);
    // An intent is over when released, or when its session fell silent (its lease slides with the session).
    const over = `(i.released_at < ? OR (i.released_at IS NULL AND (SELECT s.last_seen_at FROM sessions s WHERE s.id = i.session_id) < ?))`;
    const cutoff = now - RETENTION.deliveredMs;
    // The statements below scan whole tables (a session's rows, an intent's paths): asked first whether there is
    // anything for them to delete, which most minutes there is not, rather than scanning for nothing every minute on
    // every replica while the events of every repo wait for the database.
    const any = async (query: string, params: readonly unknown[]): Promise<boolean> => (await sql.all(`${query} LIMIT 1`, params)).length > 0;
    const silent = await any("SELECT 1 FROM sessions WHERE last_seen_at < ?", [cutoff]);
    if (silent || (await any("SELECT 1 FROM intents WHERE released_at < ?", [cutoff]))) {
      n += await sql.run(`DELETE FROM intent_paths WHERE EXISTS (SELECT 1 FROM intents i WHERE i.team_id = intent_paths.team_id AND i.number = intent_paths.intent_number AND ${over})`, [
        cutoff,
        cutoff,
      ]);
      n += await sql.run(`DELETE FROM intents WHERE EXISTS (SELECT 1 FROM intents i WHERE i.team_id = intents.team_id AND i.number = intents.number AND ${over})`, [cutoff, cutoff]);
    }
    n += await sql.run("DELETE FROM symbol_changes WHERE created_at < ?", [now - RETENTION.symbolChangesMs]);
    // A reservation over (released or expired) a while ago tells nobody anything.
    n += await sql.run("DELETE FROM reservations WHERE expires_at < ? OR released_at < ?", [cutoff, cutoff]);
    const gone = "SELECT id FROM sessions WHERE last_seen_at < ?";
    const sessionCutoff = [now - RETENTION.sessionsMs];
    // (sessions silent for a week are fewer still than those silent for a day)
    if (!silent || !(await any(gone, sessionCutoff))) {
      n += await sql.run("DELETE FROM session_events WHERE at < ?", [now - RETENTION.sessionsMs]);
      return n;
    }
    n += await sql.run(
      `DELETE FROM intent_paths WHERE EXISTS (SELECT 1 FROM intents i WHERE i.team_id = intent_paths.team_id AND i.number = intent_paths.intent_number AND i.session_id IN (${gone}))`,
      sessionCutoff,
    );
    n += await sql.run("DELETE FROM session_events WHERE at < ?", [now - RETENTION.sessionsMs]);
    for (const table of ["intents", "session_files", "session_references", "session_uses", "session_parse_errors", "session_events", "notices", "symbol_changes", "reservations"]) {
      n += await sql.run(`DELETE FROM ${table} WHERE session_id IN (${gone})`, sessionCutoff);
    }
    n += await sql.run(`DELETE FROM conflicts WHERE session_id IN (${gone}) OR other_session_id IN (${gone})`, [...sessionCutoff, ...sessionCutoff]);
    n += await sql.run(`DELETE FROM sessions WHERE last_seen_at < ?`, sessionCutoff);
    return n;
  });
}
