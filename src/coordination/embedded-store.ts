import * as fs from "node:fs";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { ComityError } from "../errors/comity-error.js";
import type { Database } from "../store/database.js";
import { migrate, MIGRATIONS } from "../store/migrations.js";
import { pruneExpired } from "../store/prune.js";
import { openSqliteDatabase } from "../store/sqlite-database.js";
import { DEFAULT_LEASE_MS, evaluateEvent, evaluateInTransaction, evaluateLockKeys, type TeamRef } from "./evaluate-event.js";
import { sendMessage, whoHolds } from "./channel.js";
import { type InboxAnswer, type InboxRequest, readInbox } from "./inbox.js";
import { type ReleaseAnswer, type ReleaseRequest, type ReserveAnswer, type ReserveRequest, release, reserve } from "./reservations.js";
import { asPolicy, loadRequestValidator, overLimits, type EvaluateAnswer, type EvaluateRequest, type MessageAnswer, type MessageRequest, type TeamPolicy, type WhoAnswer } from "./wire.js";

/** The one team of the embedded store: every agent of the machine. */
export const LOCAL_TEAM: TeamRef = { id: "local" };

/** How long an event waits for another hook's transaction before the hook gives up (and fails open). */
export const EMBEDDED_BUSY_TIMEOUT_MS = 3000;

export interface EmbeddedStore {
  readonly file: string;
  readonly database: Database;
  /**
   * Applies one event as `comity serve` would, in one transaction, and returns the core's answer. `waitUntil`: until
   * when it may wait for another process's transaction, where that is later than the store's busy timeout from now
   * ({@link EMBEDDED_BUSY_TIMEOUT_MS}): a hook that reached the store late (its process starved of CPU) still waits
   * that long, and its event is applied even where its watchdog then ends it.
   */
  evaluate(request: EvaluateRequest, now: number, waitUntil?: number): Promise<EvaluateAnswer>;
  /**
   * Applies an event another hook process wrote down and could not apply in its time (`src/hook/pending-events.ts`),
   * at the time it happened; unless its session's turn or the session itself has ended since, when what it says no
   * longer holds (an intent recorded then would hold files nobody works on). Whether it was applied.
   */
  applyLate(request: EvaluateRequest, at: number, waitUntil?: number): Promise<boolean>;
  /** Deletes what has outlived its use, as the server does every minute. */
  prune(now: number): Promise<number>;
  policy(): Promise<TeamPolicy>;
  /** `comity message`: a message for another agent of the machine, delivered at its next event that takes context. */
  message(request: MessageRequest, now: number): Promise<MessageAnswer>;
  /** `comity who`: the active sessions that hold or changed a file of a repo. */
  who(fingerprints: readonly string[], filePath: string, now: number): Promise<WhoAnswer>;
  /** The MCP server's `reserve`: a session's explicit claim on files (`reservations.ts`). */
  reserve(request: ReserveRequest, now: number): Promise<ReserveAnswer>;
  release(request: ReleaseRequest, now: number): Promise<ReleaseAnswer>;
  /** The MCP server's `inbox`: a session's messages, those not given yet given now (`inbox.ts`). */
  inbox(request: InboxRequest, now: number): Promise<InboxAnswer>;
  setPolicy(policy: TeamPolicy): Promise<void>;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  readonly busyTimeoutMs?: number;
  readonly leaseMs?: number;
  /** Told when a corrupt or unreadable store was moved aside (the hook writes it to hook.log). */
  readonly onMovedAside?: (reason: string, movedTo: string) => void;
  readonly now?: () => number;
}

/**
 * The coordination store of one machine: SQLite at `file` (`<config dir>/coordination.sqlite`), WAL, a busy
 * timeout, one local team. Many hook processes open it at once; each event is one `BEGIN IMMEDIATE`
 * transaction through the same core as `comity serve` ({@link evaluateInTransaction}). A store SQLite cannot read (corrupt,
 * not a database, unreadable) is moved aside and rebuilt empty: coordination starts over, and no agent is blocked.
 */
export async function openEmbeddedStore(file: string, options: EmbeddedOptions = {}): Promise<EmbeddedStore> {
  const now = options.now ?? Date.now;
  try {
    return await openAt(file, options);
  } catch (error) {
    if (!isUnusable(error)) throw error;
    const movedTo = moveAside(file, null, now());
    options.onMovedAside?.(describe(error), movedTo);
    return await openAt(file, options);
  }
}

async function openAt(file: string, options: EmbeddedOptions): Promise<EmbeddedStore> {
  const database = await openSqliteDatabase(file, { checkpointer: false, busyTimeoutMs: options.busyTimeoutMs ?? EMBEDDED_BUSY_TIMEOUT_MS });
  const inode = inodeOf(file);
  try {
    await ensureSchema(database, options.now ?? Date.now, readSettings(file).policy);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  let validate: ReturnType<typeof loadRequestValidator> | null = null;
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (!isUnusable(error)) throw error;
      // Found broken in use: moved aside now, rebuilt by the next event.
      await database.close().catch(() => undefined);
      const movedTo = moveAside(file, inode, (options.now ?? Date.now)());
      options.onMovedAside?.(describe(error), movedTo);
      throw new ComityError("INTERNAL", `the embedded store was unusable (${describe(error)}): moved to ${movedTo}`, { cause: error });
    }
  };
  return {
    file,
    database,
    evaluate(request, now, waitUntil) {
      const over = overLimits(request);
      if (over !== null) return Promise.reject(new ComityError("INVALID_ARGUMENT", `${over}: split the request`));
      return guarded(() => evaluateInTransaction(database, LOCAL_TEAM, request, { now, leaseMs, ...(waitUntil === undefined ? {} : { waitUntil }) }));
    },
    async applyLate(request, at, waitUntil) {
      // (read back from a file, not built by this process: checked as the server checks what it is sent)
      validate ??= loadRequestValidator();
      if (!(await validate)(request).ok || overLimits(request) !== null || request.dry_run === true) return false;
      return guarded(() =>
        database.transaction(
          evaluateLockKeys(LOCAL_TEAM, request),
          async (sql) => {
            const ended = await sql.all<{ t: number | null; e: number | null }>(
              "SELECT MAX(COALESCE(turn_ended_at, 0)) AS t, MAX(COALESCE(ended_at, 0)) AS e FROM sessions WHERE team_id = ? AND external_id = ?",
              [LOCAL_TEAM.id, request.session.external_id],
            );
            if (Math.max(Number(ended[0]?.t ?? 0), Number(ended[0]?.e ?? 0)) > at) return false;
            await evaluateEvent(sql, LOCAL_TEAM, request, { now: at, leaseMs, unheard: true });
            return true;
          },
          waitUntil === undefined ? undefined : { waitUntil },
        ),
      );
    },
    prune: (now) => guarded(() => pruneExpired(database, now)),
    message: (request, now) => guarded(() => database.transaction(`message:${LOCAL_TEAM.id}`, (sql) => sendMessage(sql, { teamId: LOCAL_TEAM.id, now, leaseMs }, request))),
    who: (fingerprints, filePath, now) => guarded(() => database.read((sql) => whoHolds(sql, { teamId: LOCAL_TEAM.id, now, leaseMs }, fingerprints, filePath))),
    reserve: (request, now) => guarded(() => database.transaction(`reserve:${LOCAL_TEAM.id}`, (sql) => reserve(sql, { teamId: LOCAL_TEAM.id, now, leaseMs }, request))),
    release: (request, now) => guarded(() => database.transaction(`reserve:${LOCAL_TEAM.id}`, (sql) => release(sql, { teamId: LOCAL_TEAM.id, now, leaseMs }, request))),
    inbox: (request, now) => guarded(() => database.transaction(`inbox:${LOCAL_TEAM.id}`, (sql) => readInbox(sql, { teamId: LOCAL_TEAM.id, now, leaseMs }, request))),
    policy: () => guarded(async () => asPolicy((await database.read((sql) => sql.all<{ policy: string }>("SELECT policy FROM teams WHERE id = ?", [LOCAL_TEAM.id])))[0]?.policy)),
    setPolicy: (policy) =>
      guarded(async () => {
        // Kept outside the database too: a store rebuilt after it was found corrupt starts with it.
        writeSettings(file, { ...readSettings(file), policy });
        await database.transaction("comity:policy", (sql) => sql.run("UPDATE teams SET policy = ? WHERE id = ?", [policy, LOCAL_TEAM.id]));
      }),
    close: () => database.close(),
  };
}

/**
 * The schema and the local team, made once: later opens only read the schema version (the common case takes no
 * write lock). Many processes opening a new store at once each try, and the migrations' own transaction lets
 * one of them apply them.
 */
async function ensureSchema(database: Database, now: () => number, policy: TeamPolicy): Promise<void> {
  let ready = false;
  try {
    const rows = await database.read((sql) =>
      sql.all<{ v: number | null; t: number }>("SELECT (SELECT MAX(version) FROM comity_migrations) AS v, (SELECT COUNT(*) FROM teams WHERE id = ?) AS t", [LOCAL_TEAM.id]),
    );
    ready = Number(rows[0]?.v ?? 0) >= MIGRATIONS.length && Number(rows[0]?.t ?? 0) > 0;
  } catch (error) {
    if (isUnusable(error)) throw error;
    // no tables yet
  }
  if (ready) return;
  await migrate(database);
  await database.transaction("comity:team", (sql) =>
    sql.run("INSERT INTO teams (id, name, policy, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", [LOCAL_TEAM.id, LOCAL_TEAM.id, policy, now()]),
  );
}

/** This machine's coordination settings, kept beside the store and outside it: the policy (`comity policy`). */
interface Settings {
  readonly policy: TeamPolicy;
}

/** Where a store's settings are: `coordination.settings.json` beside `coordination.sqlite`. */
export function settingsFile(storeFile: string): string {
  return storeFile.replace(/(\.sqlite)?$/, ".settings.json");
}

/** The store's settings; the defaults when the file is missing or unreadable. */
function readSettings(storeFile: string): Settings {
  try {
    const json = JSON.parse(fs.readFileSync(settingsFile(storeFile), "utf8")) as { policy?: unknown };
    return { policy: asPolicy(typeof json.policy === "string" ? json.policy : undefined) };
  } catch {
    return { policy: asPolicy(undefined) };
  }
}

function writeSettings(storeFile: string, settings: Settings): void {
  writeFileAtomic(settingsFile(storeFile), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

/** SQLite's codes for a store that cannot be used as it is: corrupt, not a database, unreadable, read-only. */
function isUnusable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB|CANTOPEN|READONLY|PERM)/.test(code);
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `${typeof code === "string" ? `${code}: ` : ""}${error instanceof Error ? error.message : String(error)}`;
}

function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}

/**
 * Renames the store and its WAL files to `<file>.broken-<time>`: kept for whoever wants to look, out of the way.
 * When `inode` is given, only if the file is still the one found broken (another hook may have rebuilt it since).
 */
function moveAside(file: string, inode: number | null, now: number): string {
  const target = `${file}.broken-${new Date(now).toISOString().replace(/[:.]/g, "-")}-${process.pid}`;
  if (inode !== null && inodeOf(file) !== inode) return target;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      fs.renameSync(`${file}${suffix}`, `${target}${suffix}`);
    } catch {
      // not there, or already moved by another hook
    }
  }
  return target;
}
