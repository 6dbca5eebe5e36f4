import { randomBytes, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import { findOwningRepo } from "../workspace/discover-repos.js";
import { SESSION_ENV, withSessionEnv } from "../config/session-env.js";
import type { HttpHook } from "../init/host-configs.js";
import type { HookCall } from "./daemon-wire.js";

/**
 * Claude Code's `http` hooks, answered by the per-user daemon with no process started: the event's JSON is posted to
 * `http://127.0.0.1:PORT/v1/hook/claude_code/<Event>`, and the answer is the body. Defined once: `comity init --http`
 * writes the hooks from it, and the daemon reads its requests with it.
 */

/** Where and how the daemon listens for HTTP hooks: a port on 127.0.0.1 and the per-user secret hooks present. */
export interface DaemonHttpConfig {
  readonly port: number;
  readonly secret: string;
}

/**
 * What a hook reads from its environment that may differ from one session to another: an HTTP hook's event gets them
 * from its session's state (`SessionState.env`), or from the {@link ENV_HEADER} of the hooks earlier builds wrote and of
 * the MCP server's entry. The rest (HOME, PATH, the config folder) is the daemon's, which is the user's.
 */
export const HTTP_HOOK_ENV = SESSION_ENV;

/**
 * The one header that carries the variables of {@link HTTP_HOOK_ENV}: `NAME=${NAME}` for each, in that order, joined
 * by `; `. The MCP server's entry sends it (Claude Code fills it once, when it connects); the hooks that earlier builds
 * of `init --http` wrote send it at every event (still read), those written now do not (see {@link httpHook}).
 */
export const ENV_HEADER = "X-Comity-Env";

/** The header value `comity init --http` writes, before Claude Code fills it. */
export function envHeaderTemplate(): string {
  return HTTP_HOOK_ENV.map((name) => `${name}=\${${name}}`).join(ENV_SEPARATOR);
}

const ENV_SEPARATOR = "; ";

/**
 * The variables of a filled {@link ENV_HEADER} value, by name. The names come in a known order, so each value runs to
 * where the next name's `; NAME=` begins (a value holding that very text is cut there: it is the session's own
 * variable, and nothing but its label or server reads it). An empty value is an unset variable.
 */
export function parseEnvHeader(value: string): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  for (let i = 0; i < HTTP_HOOK_ENV.length; i++) {
    const name = HTTP_HOOK_ENV[i] as string;
    const start = `${i === 0 ? "" : ENV_SEPARATOR}${name}=`;
    if (!value.startsWith(start, at)) break;
    const from = at + start.length;
    const nextName = HTTP_HOOK_ENV[i + 1];
    const end = nextName === undefined ? value.length : value.indexOf(`${ENV_SEPARATOR}${nextName}=`, from);
    if (end === -1) {
      out.set(name, value.slice(from));
      break;
    }
    out.set(name, value.slice(from, end));
    at = end;
  }
  return out;
}

/** The header that carried one variable of {@link HTTP_HOOK_ENV} in the hooks earlier builds wrote (still read). */
export function envHeader(name: string): string {
  return `X-Comity-Env-${name}`;
}

/**
 * The events `comity init --http` wires as HTTP hooks, with their timeouts (seconds): those of every tool call and
 * turn. SessionStart, UserPromptSubmit and SessionEnd stay commands: they start the daemon when it is not running,
 * and replace one that is stopped.
 *
 * Claude Code waits out an HTTP hook's timeout when nothing answers (a daemon stopped, or its thread held), and it
 * takes fractions of a second: so these are short, a stalled daemon costing a tool call 1.2 s at most (Pre + Post)
 * until the next prompt's command hook replaces it. The daemon answers in milliseconds; an event that takes longer
 * than its hook's timeout is still recorded, only its context does not reach the model.
 */
export const HTTP_HOOK_EVENTS: Readonly<Record<string, number>> = { PreToolUse: 0.5, PostToolUse: 0.7, Stop: 1 };

/** The HTTP hooks of `comity init --http`, by event. */
export function claudeHttpHooks(config: DaemonHttpConfig): Record<string, HttpHook> {
  return Object.fromEntries(Object.entries(HTTP_HOOK_EVENTS).map(([event, timeout]) => [event, httpHook(config, event, timeout)]));
}

/** The path of one event's HTTP hook. */
export function httpHookPath(host: string, event: string): string {
  return `/v1/hook/${host}/${event}`;
}

/**
 * The hook entry of one event: its URL and the secret. No variable of the session: Claude Code composes its whole
 * environment again for each variable it fills into a hook's headers, and the nine of {@link HTTP_HOOK_ENV} cost a
 * tool call 4-8 ms of its time (Pre + Post, measured against the same hooks without them). The daemon takes them from
 * the session's state instead, as the session's SessionStart and UserPromptSubmit, which run as commands, recorded
 * them.
 */
export function httpHook(config: DaemonHttpConfig, event: string, timeout: number): HttpHook {
  return { type: "http", url: `http://127.0.0.1:${config.port}${httpHookPath("claude_code", event)}`, headers: { Authorization: `Bearer ${config.secret}` }, timeout };
}

/**
 * The headers Claude Code sends for an HTTP hook: `$NAME` and `${NAME}` filled from `env` for the names the hook's
 * `allowedEnvVars` lists, an unlisted or unset one as an empty string. (The daemon's own callers, tests and
 * benchmarks, post as Claude Code does with it.)
 */
export function headersAsSent(hook: HttpHook, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const fill = (value: string): string =>
    value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a: string | undefined, b: string | undefined) => {
      const name = a ?? b ?? "";
      return (hook.allowedEnvVars ?? []).includes(name) ? (env[name] ?? "") : "";
    });
  return Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, fill(v)]));
}

/** Whether a port on 127.0.0.1 can be listened on now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The config folder's HTTP settings of the daemon, or null where none were made (`comity init --http` makes them). */
export function readDaemonHttpConfig(configDir: string): DaemonHttpConfig | null {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(configDir, CONFIG_LAYOUT.daemonHttp), "utf8")) as Record<string, unknown>;
    const { port, secret } = v;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) return null;
    if (typeof secret !== "string" || !/^[0-9a-f]{64}$/.test(secret)) return null;
    return { port, secret };
  } catch {
    return null;
  }
}

/**
 * The daemon's HTTP settings, made once per config folder (0600): a port below the range the kernel hands out to
 * outgoing connections (so that none takes it between two daemons), and a secret of 32 random bytes.
 * `isFree` says whether a port can be listened on now.
 */
export async function ensureDaemonHttpConfig(configDir: string, isFree: (port: number) => Promise<boolean> = portIsFree): Promise<DaemonHttpConfig> {
  const have = readDaemonHttpConfig(configDir);
  if (have !== null) return have;
  let port = 0;
  for (let tries = 0; tries < 50 && port === 0; tries++) {
    const candidate = 20000 + (randomBytes(2).readUInt16BE(0) % 12000);
    if (await isFree(candidate)) port = candidate;
  }
  if (port === 0) throw new Error("no free port on 127.0.0.1 between 20000 and 32000");
  const config: DaemonHttpConfig = { port, secret: randomBytes(32).toString("hex") };
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(configDir, CONFIG_LAYOUT.daemonHttp), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return config;
}

/** An HTTP request to the daemon, as far as it is read: method, target, headers (lowercase names) and body. */
export interface HttpHookRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** What to do with a request: answer it as this hook event, or refuse it with a status. */
export type HttpHookRoute = { readonly call: HookCall } | { readonly status: number; readonly reason: string };

/**
 * Why the daemon refuses a request, on its method, target and headers alone (before its body is read), or null:
 * anything a browser sends (an `Origin` header) or sends to another name than 127.0.0.1 or localhost at the daemon's
 * port (DNS rebinding; 403), a caller without the secret (401), other paths or hosts (404) and methods (405).
 */
export function httpRefusal(request: Omit<HttpHookRequest, "body">, config: DaemonHttpConfig, hosts: readonly string[]): { readonly status: number; readonly reason: string } | null {
  const header = headerOf(request);
  if (header("origin") !== undefined) return { status: 403, reason: "a request from a web page is refused" };
  const host = header("host") ?? "";
  if (host !== `127.0.0.1:${config.port}` && host !== `localhost:${config.port}`) return { status: 403, reason: "a request to another host name is refused" };
  const auth = Buffer.from(header("authorization") ?? "");
  const expected = Buffer.from(`Bearer ${config.secret}`);
  if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) return { status: 401, reason: "the daemon's secret is missing or wrong" };
  if (isMcpHttpRequest(request.url)) {
    // Comity's MCP server, stateless: each request is a POST of JSON-RPC answered in JSON; no stream to open or end.
    if (request.method !== "POST") return { status: 405, reason: "Comity's MCP server takes POST only (no stream, no session to end)" };
    return null;
  }
  const target = HOOK_TARGET.exec(request.url);
  if (target === null || !hosts.includes(target[1] ?? "")) return { status: 404, reason: "the daemon serves hook events and its MCP server only" };
  if (request.method !== "POST") return { status: 405, reason: "a hook event is a POST" };
  return null;
}

/**
 * The path of Comity's MCP server on the daemon's HTTP front (Streamable HTTP): `/v1/mcp?root=PROJECT&host=HOST`,
 * the project folder the server answers for and the host whose sessions call it (what `comity mcp` takes from the
 * folder it is started in and `--host`).
 */
export const MCP_HTTP_PATH = "/v1/mcp";

/** Whether a request target is the MCP server's (its query aside). */
export function isMcpHttpRequest(url: string): boolean {
  const q = url.indexOf("?");
  return (q === -1 ? url : url.slice(0, q)) === MCP_HTTP_PATH;
}

/** The MCP server's entry in Claude Code's MCP config for a project (`init --http`): its URL and the hooks' headers. */
export function mcpHttpServer(config: DaemonHttpConfig, root: string, host: string): { type: "http"; url: string; headers: Record<string, string> } {
  const query = new URLSearchParams({ root, host }).toString();
  // `${NAME:-}`: Claude Code expands variables in an MCP server's headers, and refuses a config naming an unset one
  // without a default.
  const env = HTTP_HOOK_ENV.map((name) => `${name}=\${${name}:-}`).join(ENV_SEPARATOR);
  return {
    type: "http",
    url: `http://127.0.0.1:${config.port}${MCP_HTTP_PATH}?${query}`,
    headers: { Authorization: `Bearer ${config.secret}`, [ENV_HEADER]: env, [CWD_HEADER]: "${PWD:-}" },
  };
}

/**
 * The folder the session runs in, as its shell exported it (`PWD`). Claude Code keeps one project entry for a repo and
 * all its worktrees, so the URL's root names the repo, not the worktree the session is in: the caller is the latest
 * session of the worktree this names, where it lies in a worktree of that repo.
 */
export const CWD_HEADER = "X-Comity-Cwd";

/**
 * Where and for whom an MCP request `httpRefusal` let through is answered: the project folder (absolute, a folder
 * that exists), the host, and `baseEnv` with the variables the request forwards; or why not (400).
 */
export function mcpHttpContext(
  request: Omit<HttpHookRequest, "body">,
  baseEnv: Readonly<Record<string, string>>,
  hosts: readonly string[],
): { readonly cwd: string; readonly host: string | null; readonly env: Record<string, string> } | { readonly status: number; readonly reason: string } {
  const q = request.url.indexOf("?");
  const params = new URLSearchParams(q === -1 ? "" : request.url.slice(q + 1));
  const root = params.get("root");
  if (root === null || !path.isAbsolute(root) || !fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    return { status: 400, reason: "root= must name the project's folder, absolute (comity init --http writes it)" };
  }
  const host = params.get("host");
  if (host !== null && !hosts.includes(host)) return { status: 400, reason: `unknown host '${host}'` };
  return { cwd: sessionFolder(headerOf(request)(CWD_HEADER.toLowerCase()), path.resolve(root)), host, env: withSessionEnv(baseEnv, forwardedVars(request) ?? undefined) };
}

/** The folder a request's {@link CWD_HEADER} names where it is in a worktree of `root`'s repo (the same git objects), else `root`. */
function sessionFolder(claimed: string | undefined, root: string): string {
  if (claimed === undefined || claimed === "" || !path.isAbsolute(claimed)) return root;
  try {
    const there = findOwningRepo(claimed);
    const project = findOwningRepo(root);
    return there !== null && project !== null && there.commonDir !== null && there.commonDir === project.commonDir ? path.resolve(claimed) : root;
  } catch {
    return root;
  }
}

/**
 * The variables of {@link HTTP_HOOK_ENV} a request forwards in its headers, by name (Claude Code sends an unset one
 * as an empty string: unset it is), or null where it has none of those headers (the hooks `init --http` writes now).
 */
function forwardedVars(request: Pick<HttpHookRequest, "headers">): Record<string, string> | null {
  const header = headerOf(request);
  const combined = header(ENV_HEADER.toLowerCase());
  if (combined !== undefined) return Object.fromEntries(parseEnvHeader(combined));
  const vars: Record<string, string> = {};
  let any = false;
  for (const name of HTTP_HOOK_ENV) {
    const value = header(envHeader(name).toLowerCase());
    if (value === undefined) continue;
    any = true;
    vars[name] = value;
  }
  return any ? vars : null;
}

/**
 * The hook event of a request `httpRefusal` let through: `comity hook --tool HOST --event EVENT` in the folder the
 * payload names, with `baseEnv`; the session's own variables are those the request forwards, else (the hooks
 * `init --http` writes now) those its session's state recorded.
 */
export function httpHookCall(request: HttpHookRequest, build: string, baseEnv: Readonly<Record<string, string>>): HookCall {
  const target = HOOK_TARGET.exec(request.url);
  const forwarded = forwardedVars(request);
  const env = forwarded === null ? { ...baseEnv } : withSessionEnv(baseEnv, forwarded);
  let cwd = baseEnv["HOME"] ?? "/";
  try {
    const payload = JSON.parse(request.body) as Record<string, unknown> | null;
    if (payload !== null && typeof payload["cwd"] === "string" && path.isAbsolute(payload["cwd"])) cwd = payload["cwd"];
  } catch {
    // the hook itself reports a payload that is not JSON, as on the command path
  }
  return { kind: "hook", build, args: ["--tool", target?.[1] ?? "", "--event", target?.[2] ?? ""], cwd, env, stdin: request.body, ...(forwarded === null ? { envFromSession: true as const } : {}) };
}

/** Reads one HTTP request to the daemon (pure): its refusal ({@link httpRefusal}), else its hook event ({@link httpHookCall}). */
export function routeHttpHook(request: HttpHookRequest, config: DaemonHttpConfig, build: string, baseEnv: Readonly<Record<string, string>>, hosts: readonly string[]): HttpHookRoute {
  return httpRefusal(request, config, hosts) ?? { call: httpHookCall(request, build, baseEnv) };
}

/** The path of a hook event: `/v1/hook/HOST/EVENT`. */
const HOOK_TARGET = /^\/v1\/hook\/([a-z_]+)\/([A-Za-z]+)$/;

function headerOf(request: Pick<HttpHookRequest, "headers">): (name: string) => string | undefined {
  return (name) => {
    const v = request.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
}
