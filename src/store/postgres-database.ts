import { createHash } from "node:crypto";
import { ComityError } from "../errors/comity-error.js";
import { redactUrl, type Database, type DatabaseMessages, type Row, type Sql } from "./database.js";

/** Connections in a pool unless asked otherwise: a server's, which it opens whole before it takes requests. */
export const POSTGRES_POOL_SIZE = 10;

/**
 * PostgreSQL through a `pg` pool. `?` placeholders become `$1…`; BIGINT
 * columns come back as numbers (times in ms and counters stay far below
 * 2^53). Each transaction first takes transaction-level advisory locks on
 * its keys, so the events of one repo of a team are applied one after the
 * other while other repos and teams run in parallel.
 */
export async function openPostgresDatabase(url: string, options: { max?: number; openAll?: boolean } = {}): Promise<Database> {
  const pg = (await import("pg")).default;
  const INT8 = 20;
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? "text"))) as typeof pg.types.getTypeParser,
  };
  // Connections stay open once made (no idle timeout): a new one costs PostgreSQL a backend process, its catalog
  // caches and every statement prepared again, and pools that shrank between bursts and grew again at their start
  // were what made latency spike under load. (allowExitOnIdle: idle connections do not keep a process alive.)
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? POSTGRES_POOL_SIZE, types, idleTimeoutMillis: 0, allowExitOnIdle: true });
  // An idle client losing its connection must not crash the server.
  pool.on("error", () => undefined);
  // A server opens its whole pool before it takes requests (`openAll`): opened under the first burst instead,
  // each connection is a new PostgreSQL process that the burst waits for. Anything else opens one, to fail early.
  const opened = await Promise.allSettled(Array.from({ length: options.openAll === true ? (options.max ?? POSTGRES_POOL_SIZE) : 1 }, () => pool.connect()));
  for (const o of opened) if (o.status === "fulfilled") o.value.release();
  const failed = opened.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed !== undefined) {
    await pool.end().catch(() => undefined);
    throw failed.reason;
  }
  const poolSql = sqlOver(pool);
  const messages = listener(pg, url, (channel, payload) => pool.query("SELECT pg_notify($1, $2)", [channel, payload]).then(() => undefined));
  const counters = counterConnection(pg, url, types);
  // (a server's first numbered event must not wait for this connection to open either)
  if (options.openAll === true) await counters.open().catch(() => undefined);
  return {
    dialect: "postgres",
    location: redactUrl(url),
    messages,
    async transaction<T>(lockKeys: string | readonly string[], fn: (sql: Sql) => Promise<T>): Promise<T> {
      // Sorted, so two transactions wanting overlapping keys take them in the same order and cannot deadlock.
      const keys = [...new Set(typeof lockKeys === "string" ? [lockKeys] : lockKeys)].sort();
      const client = await pool.connect();
      const atCommit: string[] = [];
      const sql: Sql = {
        ...sqlOver(client),
        committedAtOnce: counters.run,
        runAtCommit: (text, params = []) => void atCommit.push(inlined(text, params, (v) => client.escapeLiteral(v))),
      };
      try {
        // One round trip for all (the simple protocol takes several statements; keys are escaped, not bound).
        await client.query(["BEGIN", ...keys.map((k) => `SELECT pg_advisory_xact_lock(hashtext(${client.escapeLiteral(k)}))`)].join("; "));
        const out = await fn(sql);
        // (the writes left for the COMMIT, and it, in one round trip: an event's statements are each one, and the
        // round trips, more than the statements' work, are what an event costs PostgreSQL and the server here)
        await client.query([...atCommit, "COMMIT"].join("; "));
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
      await counters.close();
      await pool.end();
    },
  };
}

/**
 * Statements committed at once on a connection of their own (the teams' counters), so that no event's transaction
 * holds such a row (and with it every other event of the team) until it ends. Its own connection, not a pooled one:
 * a transaction waiting for a pooled connection while holding one could wait for ever once all of them do the same.
 * Opened with a server's pool (else at the first statement), and again after it is lost.
 */
function counterConnection(
  pg: typeof import("pg").default,
  url: string,
  types: { getTypeParser: typeof import("pg").types.getTypeParser },
): { open(): Promise<unknown>; run<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>; close(): Promise<void> } {
  let client: Promise<import("pg").Client> | null = null;
  let closed = false;
  const drop = (c: Promise<import("pg").Client>): void => {
    if (client !== c) return;
    client = null;
    void c.then((x) => x.end()).catch(() => undefined);
  };
  const open = (): Promise<import("pg").Client> => {
    if (client !== null) return client;
    // (named, so that an operator reading pg_stat_activity knows it)
    const c = new pg.Client({ connectionString: url, types, application_name: "comity counters" });
    const opened = c.connect().then(() => c);
    client = opened;
    c.on("error", () => drop(opened));
    c.on("end", () => drop(opened));
    opened.catch(() => drop(opened));
    return opened;
  };
  return {
    open,
    async run<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
      if (closed) throw new Error("the database is closed");
      const opened = open();
      try {
        return await sqlOver(await opened).all<T>(text, params);
      } catch (error) {
        drop(opened);
        throw error;
      }
    },
    async close() {
      closed = true;
      const c = client;
      client = null;
      if (c !== null) await c.then((x) => x.end()).catch(() => undefined);
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

type Queryable = { query(query: { name?: string; text: string }, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }> };

/** Our `Sql` over a pool (any free connection) or one client (inside a transaction). */
function sqlOver(db: Queryable): Sql {
  return {
    async all<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      return (await db.query(prepared(text), [...params])).rows as R[];
    },
    async run(text: string, params: readonly unknown[] = []): Promise<number> {
      return (await db.query(prepared(text), [...params])).rowCount ?? 0;
    },
  };
}

/**
 * How many statements are prepared by name: the core's statements are a few dozen, and their `IN (?, ?, …)` lists
 * vary in length, so a bound keeps what each connection (and the server's backend) holds small; past it, statements
 * go unnamed, parsed and planned at each run as before.
 */
const MAX_PREPARED = 1000;
const preparedStatements = new Map<string, { name: string; text: string }>();

/**
 * A statement as a named prepared statement: each connection parses and plans it once and then only binds and runs
 * it. An event is a transaction of about 20 short statements, and parsing and planning each afresh cost PostgreSQL
 * three times what running them did.
 */
function prepared(text: string): { name?: string; text: string } {
  const known = preparedStatements.get(text);
  if (known !== undefined) return known;
  if (preparedStatements.size >= MAX_PREPARED) return { text: numbered(text) };
  const statement = { name: `comity_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`, text: numbered(text) };
  preparedStatements.set(text, statement);
  return statement;
}

/**
 * A statement with its parameters written in as literals (`?` → `'text'`, `42`, `NULL`, `TRUE`), for the simple
 * protocol, which takes several statements at once but no parameters. Strings through `quote` (the client's,
 * which knows the server's quoting); a number that is not finite, or a value of another type, is refused.
 */
export function inlined(text: string, params: readonly unknown[], quote: (value: string) => string): string {
  let i = 0;
  const out = text.replace(/\?/g, () => {
    if (i >= params.length) throw new ComityError("INTERNAL", `a statement has more placeholders than its ${params.length} parameters`);
    const v = params[i++];
    if (v === null || v === undefined) return "NULL";
    if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
    // (a negative number in parentheses: after a `-` in the text, `--5` would start a comment)
    if (typeof v === "number" && Number.isFinite(v)) return v < 0 ? `(${v})` : String(v);
    if (typeof v === "string") return quote(v);
    throw new ComityError("INTERNAL", `a statement's parameter ${i} cannot be written as a literal (${typeof v})`);
  });
  if (i !== params.length) throw new ComityError("INTERNAL", `a statement has ${i} placeholders for ${params.length} parameters`);
  return out;
}

/** `?` → `$n`. Our statements never hold a `?` inside a string literal. */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}
