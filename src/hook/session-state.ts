import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";

/** What one session keeps between hook processes: context waiting for a host event that accepts it, and this turn's files. */
export interface SessionState {
  /** Context (warnings, briefings) queued for the next event that can show it. */
  readonly queued: readonly string[];
  /** Repo-relative paths touched this turn, per repo root. */
  readonly touched: Readonly<Record<string, readonly string[]>>;
  /** Files whose analysis showed symbol changes this session, per repo root: analysed again when HEAD moves (a commit). */
  readonly changed?: Readonly<Record<string, readonly string[]>>;
  /** HEAD as the session's last event saw it, per repo root. */
  readonly heads?: Readonly<Record<string, string>>;
}

const EMPTY: SessionState = { queued: [], touched: {} };

function fileOf(configDir: string, sessionId: string): string {
  return path.join(configDir, "sessions", `${createHash("sha256").update(sessionId).digest("hex").slice(0, 40)}.json`);
}

export function readSessionState(configDir: string, sessionId: string): SessionState {
  try {
    const parsed = JSON.parse(fs.readFileSync(fileOf(configDir, sessionId), "utf8")) as Partial<SessionState>;
    const record = <T>(v: unknown): Record<string, T> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, T>) : {});
    return { queued: Array.isArray(parsed.queued) ? parsed.queued : [], touched: record(parsed.touched), changed: record(parsed.changed), heads: record(parsed.heads) };
  } catch {
    return EMPTY;
  }
}

/** Writes atomically (temp file, then rename); an empty state removes the file. */
export function writeSessionState(configDir: string, sessionId: string, state: SessionState): void {
  const file = fileOf(configDir, sessionId);
  if (state.queued.length === 0 && Object.keys(state.touched).length === 0 && Object.keys(state.changed ?? {}).length === 0 && Object.keys(state.heads ?? {}).length === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  writeFileAtomic(file, JSON.stringify(state), { mode: 0o600 });
}
