import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { nodeSyncFs, readTextOrNull, removeIfThere } from "../fs/sync-fs.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { MAX_CONTEXT_CHARS } from "./render-output.js";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import { sessionEnvOf } from "../config/session-env.js";

/** What one session keeps between hook processes: context waiting for a host event that accepts it, and this turn's files. */
export interface SessionState {
  /** Context (warnings, briefings) queued for the next event that can show it, oldest first. */
  readonly queued: readonly string[];
  /** Repo-relative paths touched this turn, per repo root. */
  readonly touched: Readonly<Record<string, readonly string[]>>;
  /** Files whose analysis showed symbol changes this session, per repo root: analysed again when HEAD moves (a commit). */
  readonly changed?: Readonly<Record<string, readonly string[]>>;
  /** HEAD as the session's last event saw it, per repo root. */
  readonly heads?: Readonly<Record<string, string>>;
  /** The session's turn: one more at each prompt that is not a redelivery of the last event. Part of dedupe keys. */
  readonly turn?: number;
  /** A hash of the session's last event when it was a prompt, to tell a redelivered prompt from a new one with the same text. */
  readonly last?: string;
  /**
   * The session's own variables of `SESSION_ENV`, as its last event run as a command saw them: Claude Code's HTTP
   * hooks carry none (filling variables into their headers cost each tool call milliseconds of Claude Code's time),
   * so the daemon answers them with these.
   */
  readonly env?: Readonly<Record<string, string>>;
}

const EMPTY_STATE: SessionState = { queued: [], touched: {} };

/** Context kept queued per session: as many characters as one event delivers; the newest warnings win. */
export const MAX_QUEUED_CHARS = MAX_CONTEXT_CHARS;
/** A lock older than this was left by a process that died: it is taken over. */
const STALE_LOCK_MS = 5_000;
/** How long a hook waits for another one of its session before it goes on without the lock (it never blocks an agent). */
const LOCK_WAIT_MS = 2_000;

function fileOf(configDir: string, sessionId: string): string {
  return path.join(configDir, CONFIG_LAYOUT.sessions, `${createHash("sha256").update(sessionId).digest("hex").slice(0, 40)}.json`);
}

export function readSessionState(configDir: string, sessionId: string): SessionState {
  return parseSessionState(readTextOrNull(nodeSyncFs, fileOf(configDir, sessionId)));
}

function parseSessionState(text: string | null): SessionState {
  if (text === null) return EMPTY_STATE;
  try {
    const parsed = JSON.parse(text) as Partial<SessionState>;
    const record = <T>(v: unknown): Record<string, T> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, T>) : {});
    return {
      queued: Array.isArray(parsed.queued) ? parsed.queued.filter((q): q is string => typeof q === "string") : [],
      touched: record(parsed.touched),
      changed: record(parsed.changed),
      heads: record(parsed.heads),
      turn: typeof parsed.turn === "number" ? parsed.turn : 0,
      ...(typeof parsed.last === "string" ? { last: parsed.last } : {}),
      ...(typeof parsed.env === "object" && parsed.env !== null && !Array.isArray(parsed.env) ? { env: sessionEnvOf(parsed.env as Record<string, string | undefined>) } : {}),
    };
  } catch {
    return EMPTY_STATE;
  }
}

/**
 * Applies `update` to the session's state as it is on disk now, under a lock file, and writes the result
 * (atomically: temp file, then rename). Hooks of one session run at once (a host's parallel tool calls):
 * each says what it changes, never what the whole state is, so none loses another's warnings or files.
 * A lock left by a dead process is taken over after 5 s; one still held after 2 s is ignored rather than
 * making an agent wait. The queue keeps at most {@link MAX_QUEUED_CHARS} characters, dropping the oldest.
 */
export function updateSessionState(configDir: string, sessionId: string, update: (current: SessionState) => SessionState): SessionState {
  const file = fileOf(configDir, sessionId);
  // Most events of a turn change nothing here (the file was touched already): seen so without the lock, they take
  // none (making and removing a lock file cost a daemon's event a quarter of a millisecond). `update` merges what
  // the event adds (its paths, HEADs, the context it delivered or left), so what adds nothing to the state seen adds
  // nothing to one another hook of the session writes meanwhile; only a turn's start or end clears, and the host runs
  // those alone, never beside another event of the session.
  const seen = readTextOrNull(nodeSyncFs, file);
  const unchanged = nothingToWrite(seen, update);
  if (unchanged !== null) return unchanged;
  const release = acquireLock(`${file}.lock`);
  try {
    const before = readTextOrNull(nodeSyncFs, file);
    const current = parseSessionState(before);
    const next = capQueue(update(current));
    const text = JSON.stringify(next);
    if (isEmpty(next)) {
      if (before !== null) removeIfThere(file);
    } else if (before === null || text !== JSON.stringify(current)) writeFileAtomic(file, text, { mode: 0o600 });
    return next;
  } finally {
    release();
  }
}

function isEmpty(state: SessionState): boolean {
  return state.queued.length === 0 && [state.touched, state.changed, state.heads, state.env].every((r) => Object.keys(r ?? {}).length === 0) && (state.turn ?? 0) === 0;
}

/** The state `update` leaves as the file `text` already holds it (nothing to write), or null where it changes it. */
function nothingToWrite(text: string | null, update: (current: SessionState) => SessionState): SessionState | null {
  const current = parseSessionState(text);
  const next = capQueue(update(current));
  if (text === null) return isEmpty(next) ? next : null;
  return !isEmpty(next) && JSON.stringify(next) === JSON.stringify(current) ? next : null;
}

function capQueue(state: SessionState): SessionState {
  const kept: string[] = [];
  let chars = 0;
  for (let i = state.queued.length - 1; i >= 0; i--) {
    const q = state.queued[i] as string;
    if (kept.length > 0 && chars + q.length > MAX_QUEUED_CHARS) break;
    kept.unshift(q.length > MAX_QUEUED_CHARS ? q.slice(0, MAX_QUEUED_CHARS) : q);
    chars += q.length;
  }
  return kept.length === state.queued.length ? state : { ...state, queued: kept };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** An exclusive lock file (its folder made where missing); returns its release. */
function acquireLock(lock: string): () => void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let made = false;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, "wx", 0o600));
      return () => removeIfThere(lock);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && !made) {
        made = true;
        fs.mkdirSync(path.dirname(lock), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== "EEXIST") return () => undefined; // cannot lock here: go on
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) {
        removeIfThere(lock);
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    if (Date.now() > deadline) return () => undefined;
    Atomics.wait(sleeper, 0, 0, 2);
  }
}
