import * as fs from "node:fs";
import type { HttpAnswer } from "../api/http-request.js";
import type { CoordinationMode } from "../config/coordination-mode.js";
import { ComityError } from "../errors/comity-error.js";
import type { InboxAnswer, InboxRequest } from "./inbox.js";
import type { ReleaseAnswer, ReleaseRequest, ReserveAnswer, ReserveRequest } from "./reservations.js";
import type { MessageAnswer, MessageRequest, WhoAnswer } from "./wire.js";

/** How the CLI reaches the API: a request with a bearer token (`httpRequest` with a deadline). */
export type ApiCall = (url: URL, token: string, body?: unknown) => Promise<HttpAnswer>;

/**
 * `comity message`: leaves a message for another agent where the hooks coordinate (the embedded store, or the team's
 * API), to be given to it at its next event that takes context. Throws a `ComityError` naming the active sessions
 * when `to` names none or several.
 */
export async function leaveMessage(options: { mode: CoordinationMode; request: MessageRequest; now: number; post: ApiCall }): Promise<MessageAnswer> {
  const { mode } = options;
  if (mode.kind === "off") throw new ComityError("INVALID_ARGUMENT", "coordination is off (COMITY_API_URL=off): there is no one to reach");
  if (mode.kind === "embedded") {
    const { openEmbeddedStore } = await import("./embedded-store.js");
    const store = await openEmbeddedStore(mode.file);
    try {
      return await store.message(options.request, options.now);
    } finally {
      await store.close();
    }
  }
  const answer = await call(mode, "/v1/messages", (url) => options.post(url, mode.token, options.request));
  return answer as unknown as MessageAnswer;
}

/** `comity who`: the active sessions that hold or changed a file of the repo these fingerprints name. */
export async function askWho(options: { mode: CoordinationMode; fingerprints: readonly string[]; path: string; now: number; get: ApiCall }): Promise<WhoAnswer> {
  const { mode } = options;
  if (mode.kind === "off") return { path: options.path, sessions: [] };
  if (mode.kind === "embedded") {
    if (!fs.existsSync(mode.file)) return { path: options.path, sessions: [] };
    const { openEmbeddedStore } = await import("./embedded-store.js");
    const store = await openEmbeddedStore(mode.file);
    try {
      return await store.who(options.fingerprints, options.path, options.now);
    } finally {
      await store.close();
    }
  }
  return (await call(mode, "/v1/who", (url) => {
    for (const fp of options.fingerprints) url.searchParams.append("repo", fp);
    url.searchParams.set("path", options.path);
    return options.get(url, mode.token);
  })) as unknown as WhoAnswer;
}

/**
 * The MCP server's `reserve` and `release`: a session's explicit claim on files of its repo, where the hooks
 * coordinate (the embedded store, or the team's API). Throws a `ComityError` that says why one is refused.
 */
export async function reserveFiles(options: { mode: CoordinationMode; request: ReserveRequest; now: number; post: ApiCall }): Promise<ReserveAnswer> {
  return (await onStore(options.mode, "/v1/reservations", (store) => store.reserve(options.request, options.now), options.post, options.request)) as ReserveAnswer;
}

export async function releaseFiles(options: { mode: CoordinationMode; request: ReleaseRequest; now: number; post: ApiCall }): Promise<ReleaseAnswer> {
  return (await onStore(options.mode, "/v1/reservations/release", (store) => store.release(options.request, options.now), options.post, options.request)) as ReleaseAnswer;
}

export async function readInboxOf(options: { mode: CoordinationMode; request: InboxRequest; now: number; post: ApiCall }): Promise<InboxAnswer> {
  return (await onStore(options.mode, "/v1/inbox", (store) => store.inbox(options.request, options.now), options.post, options.request)) as InboxAnswer;
}

async function onStore<T>(
  mode: CoordinationMode,
  apiPath: string,
  local: (store: import("./embedded-store.js").EmbeddedStore) => Promise<T>,
  post: ApiCall,
  body: unknown,
): Promise<T | Record<string, unknown>> {
  if (mode.kind === "off") throw new ComityError("INVALID_ARGUMENT", "coordination is off (COMITY_API_URL=off): there is no one to coordinate with");
  if (mode.kind === "embedded") {
    const { openEmbeddedStore } = await import("./embedded-store.js");
    const store = await openEmbeddedStore(mode.file);
    try {
      return await local(store);
    } finally {
      await store.close();
    }
  }
  return call(mode, apiPath, (url) => post(url, mode.token, body));
}

/** One API call, its JSON answer, or a ComityError that says what went wrong in the user's words. */
async function call(mode: Extract<CoordinationMode, { kind: "served" }>, apiPath: string, send: (url: URL) => Promise<HttpAnswer>): Promise<Record<string, unknown>> {
  const { apiUrl } = await import("../api/http-request.js");
  const { redactUserinfo } = await import("../api/redact-url.js");
  const shown = redactUserinfo(mode.url);
  let answer: HttpAnswer;
  try {
    answer = await send(apiUrl(mode.url, apiPath));
  } catch (error) {
    throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} does not answer: ${(error as Error).message}`, { cause: error });
  }
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    // said below
  }
  if (answer.status === 401 || answer.status === 403) throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} rejects the token (HTTP ${answer.status}): see comity doctor`);
  if ((answer.status === 404 || answer.status === 409) && typeof json["message"] === "string") throw new ComityError("INVALID_ARGUMENT", json["message"]);
  if (answer.status < 200 || answer.status > 299)
    throw new ComityError("INVALID_ARGUMENT", `the API at ${shown} answered HTTP ${answer.status}${typeof json["message"] === "string" ? `: ${json["message"]}` : ""}`);
  return json;
}
