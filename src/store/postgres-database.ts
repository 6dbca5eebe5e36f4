import { redactUrl, type Database, type Row, type Sql } from "./database.js";

/**
 * PostgreSQL through a `pg` pool. `?` placeholders become `$1…`; BIGINT
 * columns come back as numbers (times in ms and counters stay far below
 * 2^53). Each transaction first takes transaction-level advisory locks on
 * its keys, so the events of one repo of a team are applied one after the
 * other while other repos and teams run in parallel.
 */
export async function openPostgresDatabase(url: string, options: { max?: number } = {}): Promise<Database> {
  const pg = (await import("pg")).default;
  const INT8 = 20;
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? "text"))) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types });
  // An idle client losing its connection must not crash the server.
  pool.on("error", () => undefined);
  const client0 = await pool.connect();
  client0.release();
  const poolSql = sqlOver(pool);
  return {
    dialect: "postgres",
    location: redactUrl(url),
    async transaction<T>(lockKeys: string | readonly string[], fn: (sql: Sql) => Promise<T>): Promise<T> {
      // Sorted, so two transactions wanting overlapping keys take them in the same order and cannot deadlock.
      const keys = [...new Set(typeof lockKeys === "string" ? [lockKeys] : lockKeys)].sort();
      const client = await pool.connect();
      const sql = sqlOver(client);
      try {
        // One round trip for all (the simple protocol takes several statements; keys are escaped, not bound).
        await client.query(["BEGIN", ...keys.map((k) => `SELECT pg_advisory_xact_lock(hashtext(${client.escapeLiteral(k)}))`)].join("; "));
        const out = await fn(sql);
        await client.query("COMMIT");
        return out;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
      return fn(poolSql);
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}

/** Our `Sql` over a pool (any free connection) or one client (inside a transaction). */
function sqlOver(db: { query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }> }): Sql {
  return {
    async all<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      return (await db.query(numbered(text), [...params])).rows as R[];
    },
    async run(text: string, params: readonly unknown[] = []): Promise<number> {
      return (await db.query(numbered(text), [...params])).rowCount ?? 0;
    },
  };
}

/** `?` → `$n`. Our statements never hold a `?` inside a string literal. */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}
