import { redactUrl, type Database, type DatabaseMessages, type Row, type Sql } from "./database.js";

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
  const messages = listener(pg, url, (channel, payload) => pool.query("SELECT pg_notify($1, $2)", [channel, payload]).then(() => undefined));
  return {
    dialect: "postgres",
    location: redactUrl(url),
    messages,
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
      await messages.close();
      await pool.end();
    },
  };
}

/** Backoff between attempts to get the listening connection back: from a quarter second to 5 s. */
const LISTEN_RETRY_MS = [250, 500, 1000, 2000, 5000];

/**
 * `LISTEN` on a connection of its own (a pooled one would be handed to others), opened at the first `listen`, and
 * opened again after it is lost, every channel listened to again, each `resumed` told.
 */
function listener(pg: typeof import("pg").default, url: string, send: (channel: string, payload: string) => Promise<void>): DatabaseMessages & { close(): Promise<void> } {
  const channels = new Map<string, { onMessage: (payload: string) => void; resumed: (() => void) | undefined }>();
  let client: import("pg").Client | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  const quoted = (channel: string): string => `"${channel.replace(/"/g, '""')}"`;
  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url });
      c.on("notification", (n) => {
        const to = channels.get(n.channel);
        if (to !== undefined) to.onMessage(n.payload ?? "");
      });
      const lost = (): void => {
        if (client !== c) return;
        client = null;
        c.removeAllListeners("end");
        void c.end().catch(() => undefined);
        later();
      };
      c.on("error", lost);
      c.on("end", lost);
      try {
        await c.connect();
        for (const channel of channels.keys()) await c.query(`LISTEN ${quoted(channel)}`);
      } catch (error) {
        void c.end().catch(() => undefined);
        throw error;
      }
      if (closed) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      if (failures > 0) for (const ch of channels.values()) ch.resumed?.();
      failures = 0;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };
  const later = (): void => {
    if (closed || retry !== null) return;
    failures++;
    retry = setTimeout(
      () => {
        retry = null;
        connect().catch(() => later());
      },
      LISTEN_RETRY_MS[Math.min(failures, LISTEN_RETRY_MS.length) - 1],
    );
    retry.unref();
  };
  return {
    send,
    async listen(channel, onMessage, resumed) {
      channels.set(channel, { onMessage, resumed });
      if (client !== null) await client.query(`LISTEN ${quoted(channel)}`);
      else
        await connect().catch(() => {
          later();
        });
    },
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      const c = client;
      client = null;
      if (c !== null) {
        c.removeAllListeners("end");
        c.removeAllListeners("error");
        c.on("error", () => undefined);
        await c.end().catch(() => undefined);
      }
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
