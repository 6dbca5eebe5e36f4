import * as os from "node:os";
import { httpRequest } from "../api/http-request.js";
import { configDir as configDirOf } from "../config/config-dir.js";
import { coordinationMode } from "../config/coordination-mode.js";
import type { ActiveSession } from "../coordination/list-sessions.js";
import { ComityError } from "../errors/comity-error.js";
import { findOwningRepo } from "../workspace/discover-repos.js";

/** Where a caller runs: its environment and folder, and the host it runs in when known (`--host`). */
export interface CallerContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly host: string | null;
  readonly now?: () => number;
}

/** How long an API call of a tool waits: a model waiting on a tool waits on this. */
export const API_TIMEOUT_MS = 3000;

/** Where a caller's claims go: its repo's fingerprints, where coordination happens, and its session (null: none yet). */
interface Located {
  readonly fingerprints: string[];
  readonly mode: ReturnType<typeof coordinationMode>;
  readonly session: ActiveSession | null;
}

/**
 * The caller's repo and session: the most recent active session of its working tree and host (the hooks report them;
 * neither an MCP call nor a `comity reserve` carries a session id), else of its working tree; subagents are not
 * candidates. Null outside a git repo.
 */
async function locate(ctx: CallerContext): Promise<Located | null> {
  const repo = findOwningRepo(ctx.cwd);
  if (repo === null) return null;
  const home = ctx.env["HOME"] ?? os.homedir();
  const [{ worktreeFolder }, { fingerprintsUnder }, { readStatus }] = await Promise.all([
    import("../hook/build-request.js"),
    import("../workspace/repo-fingerprints.js"),
    import("../coordination/read-status.js"),
  ]);
  const mode = coordinationMode(ctx.env, configDirOf(ctx.env, home));
  const fingerprints = await fingerprintsUnder(repo.root, mode, ctx.env);
  const report = await readStatus({
    mode,
    fingerprints,
    now: (ctx.now ?? Date.now)(),
    get: (url, token) => httpRequest(url, { method: "GET", token, timeoutMs: API_TIMEOUT_MS }),
  });
  const here = worktreeFolder(repo.root, home);
  const mine = report.sessions.filter((s) => s.worktree === here && s.parent_external_id === null);
  const byRecent = (a: ActiveSession, b: ActiveSession) => (a.last_seen_at < b.last_seen_at ? 1 : a.last_seen_at > b.last_seen_at ? -1 : 0);
  const ofHost = mine.filter((s) => ctx.host !== null && s.tool === ctx.host).sort(byRecent);
  return { fingerprints: fingerprints ?? [], mode, session: ofHost[0] ?? [...mine].sort(byRecent)[0] ?? null };
}

/** The session a caller is (an MCP tool call, a `comity reserve` from an agent's shell), as {@link locate} finds it. */
export async function callerSession(ctx: CallerContext): Promise<ActiveSession | null> {
  return (await locate(ctx))?.session ?? null;
}

/** The caller's session and where its claims go, or an error a model can act on: reservations are a session's. */
async function claimContext(ctx: CallerContext): Promise<Located & { readonly session: ActiveSession }> {
  const found = await locate(ctx);
  if (found === null) throw new ComityError("INVALID_ARGUMENT", `${ctx.cwd} is in no git repo`);
  const { session } = found;
  if (session === null) throw new ComityError("INVALID_ARGUMENT", "no active session of this folder yet: Comity's hooks have not seen this session (its first tool call or prompt makes it known)");
  return { ...found, session };
}

const post = (url: URL, token: string, body?: unknown) => httpRequest(url, { method: "POST", token, body, timeoutMs: API_TIMEOUT_MS });

/** Reserves files for the caller's session (`coordination/reservations.ts`): what it says, and the facts. */
export async function reserveForCaller(
  ctx: CallerContext,
  input: { readonly paths: readonly string[]; readonly minutes: number; readonly exclusive: boolean; readonly reason: string | null },
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const { session, fingerprints, mode } = await claimContext(ctx);
  const { reserveFiles } = await import("../coordination/reach-agents.js");
  const got = await reserveFiles({
    mode,
    request: { repo: { remote_fingerprints: fingerprints }, session: session.external_id, patterns: input.paths, minutes: input.minutes, exclusive: input.exclusive, reason: input.reason },
    now: (ctx.now ?? Date.now)(),
    post,
  });
  const how = input.exclusive ? "exclusive" : "shared";
  const text = [
    `Reserved (${how}, for ${input.minutes} minute${input.minutes === 1 ? "" : "s"}): ${got.reservations.map((r) => `${r.pattern} (${r.ref})`).join(", ")}. Release it with release when you are done.`,
    ...got.overlapping.map((o) => `Also reserved, shared, by ${o.description}: ${o.pattern} (${o.ref})${o.reason === null ? "" : `: ${o.reason}`}.`),
  ].join("\n");
  return { text, structured: { reservations: got.reservations.map((r) => ({ ...r })), overlapping: got.overlapping.map((o) => ({ ...o })) } };
}

/** Releases the caller's reservations: those named by ref or path, or all of them. */
export async function releaseForCaller(
  ctx: CallerContext,
  input: { readonly refs?: readonly string[]; readonly paths?: readonly string[] },
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const { session, fingerprints, mode } = await claimContext(ctx);
  const { releaseFiles } = await import("../coordination/reach-agents.js");
  const done = await releaseFiles({
    mode,
    request: {
      repo: { remote_fingerprints: fingerprints },
      session: session.external_id,
      ...(input.refs === undefined ? {} : { refs: input.refs }),
      ...(input.paths === undefined ? {} : { patterns: input.paths }),
    },
    now: (ctx.now ?? Date.now)(),
    post,
  });
  return { text: done.released.length === 0 ? "You held no reservation." : `Released ${done.released.join(", ")}.`, structured: { released: [...done.released] } };
}

/**
 * The caller's inbox (`coordination/inbox.ts`): its latest messages, oldest first, and those its hooks had not given it
 * yet given now, so that they are not given again at its next event. Null where no session of its folder is known.
 */
export async function inboxForCaller(ctx: CallerContext): Promise<{ readonly session: string; readonly messages: import("../coordination/inbox.js").InboxAnswer["messages"] } | null> {
  const found = await locate(ctx);
  if (found === null || found.session === null) return null;
  const { readInboxOf } = await import("../coordination/reach-agents.js");
  const got = await readInboxOf({
    mode: found.mode,
    request: { repo: { remote_fingerprints: found.fingerprints }, session: found.session.external_id },
    now: (ctx.now ?? Date.now)(),
    post,
  });
  return { session: found.session.external_id, messages: got.messages };
}
