import * as fs from "node:fs";
import type { HttpAnswer } from "../api/http-request.js";
import type { CoordinationMode } from "../config/coordination-mode.js";
import { ComityError } from "../errors/comity-error.js";
import { DEFAULT_LEASE_MS } from "./evaluate-event.js";
import type { ActiveSession, OpenConflict } from "./list-sessions.js";

/** The version of `comity status --json`; a field's meaning never changes within one. */
export const STATUS_SCHEMA = "comity.status/1";

export interface StatusReport {
  readonly schema: typeof STATUS_SCHEMA;
  readonly mode: CoordinationMode["kind"];
  /** The embedded store's file, or the API's URL (without user info); null when coordination is off. */
  readonly source: string | null;
  /** The repos asked about (remote fingerprints), or null for every repo the store knows. */
  readonly repos: readonly string[] | null;
  readonly sessions: readonly ActiveSession[];
  readonly conflicts: readonly OpenConflict[];
}

export interface StatusOptions {
  readonly mode: CoordinationMode;
  readonly fingerprints: readonly string[] | null;
  readonly now: number;
  readonly leaseMs?: number;
  /** A GET with a bearer token (the CLI passes `httpRequest` with a deadline). */
  readonly get: (url: URL, token: string) => Promise<HttpAnswer>;
}

/**
 * Who is active and on what, and the collisions between them, from where the hooks coordinate: the embedded
 * store (read only: a store not made yet has no one in it) or the team's API (`GET /v1/sessions`).
 */
export async function readStatus(options: StatusOptions): Promise<StatusReport> {
  const { mode } = options;
  const base = { schema: STATUS_SCHEMA, mode: mode.kind, repos: options.fingerprints } as const;
  if (mode.kind === "off") return { ...base, source: null, sessions: [], conflicts: [] };
  if (mode.kind === "embedded") {
    if (!fs.existsSync(mode.file)) return { ...base, source: mode.file, sessions: [], conflicts: [] };
    const { openEmbeddedStore, LOCAL_TEAM } = await import("./embedded-store.js");
    const { listConflicts, listSessions } = await import("./list-sessions.js");
    const store = await openEmbeddedStore(mode.file);
    try {
      const filter = { now: options.now, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, fingerprints: options.fingerprints ?? undefined };
      const [sessions, conflicts] = await store.database.read(async (sql) => [await listSessions(sql, LOCAL_TEAM, filter), await listConflicts(sql, LOCAL_TEAM, filter)] as const);
      return { ...base, source: mode.file, sessions, conflicts };
    } finally {
      await store.close();
    }
  }
  const { apiUrl } = await import("../api/http-request.js");
  const { redactUserinfo } = await import("../api/redact-url.js");
  const url = apiUrl(mode.url, "/v1/sessions");
  for (const fp of options.fingerprints ?? []) url.searchParams.append("repo", fp);
  const shown = redactUserinfo(mode.url);
  let answer: HttpAnswer;
  try {
    answer = await options.get(url, mode.token);
  } catch (error) {
    throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} does not answer: ${(error as Error).message}`, { cause: error });
  }
  if (answer.status === 401 || answer.status === 403) throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} rejects the token (HTTP ${answer.status}): see comity doctor`);
  if (answer.status < 200 || answer.status > 299) throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} answered HTTP ${answer.status}`);
  let json: { sessions?: unknown; conflicts?: unknown };
  try {
    json = JSON.parse(answer.text) as typeof json;
  } catch {
    throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} did not answer JSON`);
  }
  if (!Array.isArray(json.sessions)) throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} answered without a sessions list`);
  // An older server lists sessions only, without the fields a newer one adds.
  const sessions = (json.sessions as ActiveSession[]).map((s) => ({
    ...s,
    parent_external_id: s.parent_external_id ?? null,
    label: s.label ?? null,
    worktree: s.worktree ?? null,
    cwd_path: s.cwd_path ?? null,
    changes: s.changes ?? [],
    queued: s.queued ?? 0,
    messages: s.messages ?? [],
  }));
  return { ...base, source: shown, sessions, conflicts: Array.isArray(json.conflicts) ? (json.conflicts as OpenConflict[]) : [] };
}
