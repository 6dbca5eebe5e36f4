/** One row as a driver returns it: column name to value. */
export type Row = Record<string, unknown>;

/**
 * The SQL both storages speak: `?` placeholders, integers as JS numbers
 * (times in milliseconds, counters), text for everything else. Written once,
 * run on SQLite and on PostgreSQL.
 */
export interface Sql {
  all<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** The number of rows changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * One statement run outside this transaction and committed at once, where the storage can (PostgreSQL, on a
   * connection of its own): what a row updated inside the transaction would otherwise keep locked until it ends.
   * Absent (SQLite, whose one writer runs one transaction at a time anyway): the caller runs it in the transaction.
   */
  committedAtOnce?<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * A write whose row count nobody reads and whose rows nothing later in this transaction reads, sent with the
   * transaction's COMMIT where the storage can (PostgreSQL: the writes and the COMMIT in one round trip; a write that
   * fails fails the COMMIT, and the transaction is rolled back as if it had failed where it was asked for). Absent
   * (SQLite, where a statement is a call, not a round trip): the caller runs it now.
   */
  runAtCommit?(sql: string, params?: readonly unknown[]): void;
}

export type Dialect = "sqlite" | "postgres";

export interface TransactionOptions {
  /**
   * Until when (epoch ms) the transaction may wait for another process's write lock, where that is later than the
   * storage's own wait (never sooner: a caller's end extends the wait, it does not cut it): a hook process waits its
   * turn for as long as its budget lasts. SQLite's busy wait; PostgreSQL, whose server queues its transactions
   * itself, does without it.
   */
  readonly waitUntil?: number;
}

/** A connection (SQLite) or a pool (PostgreSQL) behind one interface. */
export interface Database {
  readonly dialect: Dialect;
  /** Where it is, for people (a file path, or a URL without its password). */
  readonly location: string;
  /**
   * Runs `fn` in one transaction: all of it lands or none. Transactions that
   * share a lock key (a team's repo) never interleave, so intents, conflicts
   * and dedupe keys stay consistent under concurrent requests; others may run
   * side by side where the storage allows it (PostgreSQL).
   */
  transaction<T>(lockKeys: string | readonly string[], fn: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs reads outside any transaction lock (a token lookup must not wait behind another team's events). */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Messages to every process on the same database (PostgreSQL's `LISTEN`/`NOTIFY`): what lets the replicas of one
   * server wake each other's dashboards. Absent on SQLite, which one process serves.
   */
  readonly messages?: DatabaseMessages;
  close(): Promise<void>;
}

export interface DatabaseMessages {
  /** Sends a message to every listener of the channel, this process's included (best effort: none is stored). */
  send(channel: string, payload: string): Promise<void>;
  /**
   * Hears a channel's messages from now on, over one connection of its own that comes back by itself when it is lost
   * (the database restarted); `resumed` is called then, since what was sent meanwhile is not heard.
   */
  listen(channel: string, onMessage: (payload: string) => void, resumed?: () => void): Promise<void>;
}

/** First row or undefined. */
export async function first<T>(sql: Sql, text: string, params: readonly unknown[] = []): Promise<T | undefined> {
  const rows = await sql.all<T>(text, params);
  return rows[0];
}

/** `?, ?, …`: one placeholder per value, for `IN (…)` lists and multi-row VALUES. */
export function marks(values: readonly unknown[]): string {
  return values.map(() => "?").join(", ");
}

/** A database URL fit for messages and logs: its user name and password masked (`postgres://***@host/db`). */
export { redactUserinfo as redactUrl } from "../api/redact-url.js";
