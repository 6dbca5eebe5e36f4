import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import type { Database, Row, Sql, TransactionOptions } from "./database.js";
import type { Checkpointer } from "./sqlite-checkpointer.js";

export interface SqliteOptions {
  /** How long a transaction waits for another process's write lock (ms, default 5000). */
  readonly busyTimeoutMs?: number;
  /**
   * Checkpoints in a worker thread (default true): for a long-lived server. A short-lived process (a hook)
   * leaves checkpoints to SQLite's own, at commit.
   */
  readonly checkpointer?: boolean;
}

/**
 * SQLite through better-sqlite3: one connection in WAL mode, so readers (a
 * `comity serve token create` next to a running server) do not wait on the
 * writer. better-sqlite3 is synchronous, so transactions are serialised by a
 * promise chain: one at a time, in arrival order.
 */
export async function openSqliteDatabase(file: string, options: SqliteOptions = {}): Promise<Database> {
  const { Driver, nativeBinding } = loadDriver();
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const db = new Driver(file, nativeBinding === null ? {} : { nativeBinding });
  if (file !== ":memory:") {
    // Paths and symbol names of a team's work, and token hashes: for the owner only.
    try {
      fs.chmodSync(file, 0o600);
    } catch {
      // a file system without modes
    }
  }
  // The busy timeout first: another process may be switching the file to WAL at this very moment.
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Checkpoints happen in a worker thread, off the request path. This connection checkpoints only when the WAL
  // passes 40 MB: by then the worker has copied nearly every frame, so it is quick, and the WAL starts over
  // (a writer that never pauses otherwise keeps the worker from ever finishing). If the worker fails, this
  // connection checkpoints as SQLite does by default. After a checkpoint the WAL file keeps its size (up to 64 MB)
  // and is written over from the start: growing it again would allocate blocks on every commit, and on ext4 such a
  // commit waits for the journal, which is what the server's p99 under load was made of.
  let checkpointer: Checkpointer | null = null;
  if (file !== ":memory:" && options.checkpointer !== false) {
    db.pragma("wal_autocheckpoint = 10000");
    db.pragma("journal_size_limit = 67108864");
    const { startCheckpointer } = await import("./sqlite-checkpointer.js");
    checkpointer = startCheckpointer(file, () => {
      if (db.open) db.pragma("wal_autocheckpoint = 1000");
    });
  }
  const statements = new Map<string, Statement<unknown[]>>();
  const prepare = (text: string) => {
    let s = statements.get(text);
    if (s === undefined) {
      // Multi-row inserts and IN lists make many texts; a bounded cache is plenty.
      if (statements.size >= 2000) statements.clear();
      s = db.prepare<unknown[]>(text);
      statements.set(text, s);
    }
    return s;
  };
  const sql: Sql = {
    async all<T = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
      const s = prepare(text);
      if (!s.reader) {
        s.run(...(params as unknown[]));
        return [];
      }
      return s.all(...(params as unknown[])) as T[];
    },
    async run(text: string, params: readonly unknown[] = []): Promise<number> {
      const s = prepare(text);
      return s.reader ? s.all(...(params as unknown[])).length : s.run(...(params as unknown[])).changes;
    },
  };
  let tail: Promise<unknown> = Promise.resolve();
  return {
    dialect: "sqlite",
    location: file,
    transaction<T>(_lockKeys: string | readonly string[], fn: (sql: Sql) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const next = tail.then(async () => {
        // (this connection's transactions run one at a time: its wait is set for this one, then set back; a caller's
        // end extends it, never cuts it below the connection's own)
        const wait = options.waitUntil === undefined ? null : Math.max(busyTimeoutMs, Math.floor(options.waitUntil - Date.now()));
        if (wait !== null) db.pragma(`busy_timeout = ${wait}`);
        try {
          db.exec("BEGIN IMMEDIATE");
        } finally {
          if (wait !== null) db.pragma(`busy_timeout = ${busyTimeoutMs}`);
        }
        try {
          const out = await fn(sql);
          db.exec("COMMIT");
          checkpointer?.committed();
          return out;
        } catch (error) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw error;
        }
      });
      tail = next.catch(() => undefined);
      return next;
    },
    read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
      // Behind the chain too: on one connection, a read inside another's open transaction would see its uncommitted rows.
      const next = tail.then(() => fn(sql));
      tail = next.catch(() => undefined);
      return next;
    },
    async close(): Promise<void> {
      await tail;
      await checkpointer?.stop();
      db.close();
    },
  };
}

/**
 * better-sqlite3 through `require` with its addon's path: a hook process opens the embedded store at every event,
 * and importing the package as ESM, then letting `bindings` search for the addon, cost 15-20 ms of its start
 * (measured: 6-11 ms this way). Falls back to the package's own lookup where the addon is elsewhere.
 */
function loadDriver(): { Driver: typeof BetterSqlite3; nativeBinding: string | null } {
  const require = createRequire(import.meta.url);
  const Driver = require("better-sqlite3") as typeof BetterSqlite3;
  let nativeBinding: string | null = null;
  try {
    nativeBinding = require.resolve("better-sqlite3/build/Release/better_sqlite3.node");
  } catch {
    // a build elsewhere: the package finds it
  }
  return { Driver, nativeBinding };
}
