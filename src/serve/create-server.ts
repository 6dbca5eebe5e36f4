import * as http from "node:http";
import * as os from "node:os";
import { CLI_VERSION } from "../version.js";
import type { Database } from "../store/database.js";
import { DEFAULT_LEASE_MS, evaluateInTransaction } from "../coordination/evaluate-event.js";
import { listConflicts, listSessions } from "../coordination/list-sessions.js";
import { loadRequestValidator, MESSAGE_REQUEST_SCHEMA, overLimits, type MessageRequest } from "../coordination/wire.js";
import { sendMessage, whoHolds } from "../coordination/channel.js";
import { INBOX_REQUEST_SCHEMA, type InboxRequest, readInbox } from "../coordination/inbox.js";
import { RELEASE_REQUEST_SCHEMA, type ReleaseRequest, release, RESERVE_REQUEST_SCHEMA, type ReserveRequest, reserve } from "../coordination/reservations.js";
import { ComityError } from "../errors/comity-error.js";
import { hashToken, REVOKED_CHANNEL, setTeamPolicyById, teamForToken, tokenHashExists, touchToken, type Team } from "./teams.js";
import { createDashboard } from "../dashboard/create-dashboard.js";
import { createStoredSignIns } from "../dashboard/sign-ins.js";
import { type Replica, type ReplicaIdentity, startReplica } from "./replicas.js";
import type { StreamLimits } from "../dashboard/event-streams.js";

/**
 * Failed authentications allowed per client address in {@link FAILED_AUTH_WINDOW_MS}; past that, the address gets
 * 429 with `Retry-After` for what its unknown tokens ask, without a storage lookup (a token that worked from it in
 * the last minute is still looked up, so a real client on the same address goes on, and a revoked one still fails).
 */
export const FAILED_AUTH_LIMIT = 20;
export const FAILED_AUTH_WINDOW_MS = 10_000;

/** The API's routes: hooks evaluate events; `comity status`, `who` and `message` read and write beside them. */
const ROUTES = ["GET /v1/health", "POST /v1/hooks/evaluate", "GET /v1/sessions", "GET /v1/who", "POST /v1/messages", "POST /v1/reservations", "POST /v1/reservations/release", "POST /v1/inbox"];

/** Bodies above this get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The server's limits (docs/server.md): a client gets 5 s to send its headers and 10 s for the whole
 * request, checked every second (Node checks every 30 s by default, so a slow client would hold a socket that
 * long); an idle keep-alive connection closes after 5 s; at most 1,024 connections at once, beyond which new
 * ones are closed at once.
 */
export const SERVER_LIMITS = { headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, checkEveryMs: 1_000, keepAliveTimeoutMs: 5_000, maxConnections: 1024 } as const;

export interface ServerOptions {
  readonly database: Database;
  /** A session silent for longer no longer holds its intents (default 10 minutes). */
  readonly leaseMs?: number;
  /** The clock, injectable for tests. */
  readonly now?: () => number;
  /** One line per server-side failure (the library never prints; the CLI passes stderr). */
  readonly log?: (line: string) => void;
  readonly maxBodyBytes?: number;
  /** Overrides of {@link SERVER_LIMITS} (tests). */
  readonly limits?: Partial<{ -readonly [K in keyof typeof SERVER_LIMITS]: number }>;
  /** Mark the dashboard's cookie Secure (the server is reached over TLS, through a proxy). */
  readonly secureCookies?: boolean;
  /** Overrides of the dashboard's `STREAM_LIMITS` (tests). */
  readonly streamLimits?: Partial<StreamLimits>;
  /**
   * This replica's name among those on the same database, and where its peers reach it (default: the host's name and
   * the port it listens on). Written to `replicas` once it listens; `/v1/health` lists the live ones.
   */
  readonly replica?: ReplicaIdentity;
}

/** The channels on which the replicas of one database tell each other what their dashboards must hear. */
const CHANGES_CHANNEL = "comity_changes";
const SIGN_OUTS_CHANNEL = "comity_sign_outs";

/**
 * The coordination API as a `node:http` server (not yet listening):
 * `POST /v1/hooks/evaluate`, `GET /v1/sessions` (both need a team's bearer
 * token) and `GET /v1/health`. Errors are JSON `{error, message, field?}`.
 */
export async function createCoordinationServer(options: ServerOptions): Promise<http.Server> {
  const validate = await loadRequestValidator();
  const validateMessage = await loadRequestValidator<MessageRequest>(MESSAGE_REQUEST_SCHEMA);
  const validateReserve = await loadRequestValidator<ReserveRequest>(RESERVE_REQUEST_SCHEMA);
  const validateRelease = await loadRequestValidator<ReleaseRequest>(RELEASE_REQUEST_SCHEMA);
  const validateInbox = await loadRequestValidator<InboxRequest>(INBOX_REQUEST_SCHEMA);
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const db = options.database;
  const messages = db.messages;
  // A change's word to the other replicas, at most one a team every 100 ms (their pages refresh at most every
  // 200 ms anyway): one NOTIFY a burst of events, not one an event.
  const pendingWord = new Map<string, NodeJS.Timeout>();
  const changed = (teamId: string): void => {
    dashboard.notify(teamId);
    if (messages === undefined || pendingWord.has(teamId)) return;
    const timer = setTimeout(() => {
      pendingWord.delete(teamId);
      void messages.send(CHANGES_CHANNEL, teamId).catch(() => undefined);
    }, 100);
    timer.unref();
    pendingWord.set(teamId, timer);
  };
  // The dashboard (every path but /v1/): pages for people, signed in with a team token; its sign-ins in the database,
  // so that every replica knows them.
  const dashboard = createDashboard({
    signIns: createStoredSignIns(db, now),
    ...(messages === undefined ? {} : { onSignOut: (hash: string) => void messages.send(SIGN_OUTS_CHANNEL, hash).catch(() => undefined), onChange: changed }),
    read: (fn) => db.read(fn),
    teamForToken: async (token) => {
      const t = await db.read((sql) => teamForToken(sql, token));
      return t === undefined ? undefined : { id: t.id, name: t.name, readOnly: t.readOnly, key: hashToken(token) };
    },
    validKey: (key) => db.read((sql) => tokenHashExists(sql, key)),
    setPolicy: (teamId, policy) => setTeamPolicyById(db, teamId, policy),
    leaseMs,
    now,
    ...(options.secureCookies === undefined ? {} : { secureCookies: options.secureCookies }),
    ...(options.streamLimits === undefined ? {} : { streamLimits: options.streamLimits }),
  });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const arrived = process.hrtime.bigint();
    const send = (status: number, body: unknown, close = false) => sendJson(res, status, body, arrived, close);
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      req.resume();
      return send(400, { error: "bad_request_target", message: "the request target is not a path" }, true);
    }
    if (!url.pathname.startsWith("/v1/") && (await dashboard.handle(req, res, url))) return;
    const route = `${req.method ?? "GET"} ${url.pathname.replace(/\/+$/, "")}`;
    if (route === "GET /v1/health") {
      // A replica stopping says so, for a balancer to send nothing more its way while it drains.
      if (draining) return send(503, { status: "draining", storage: db.dialect, version: CLI_VERSION, ...(replica === null ? {} : { replica: replica.id }) });
      // (its row written as it started listening: waited for, a second at most, so the first check lists it)
      if (starting !== null && replica === null) await Promise.race([starting, new Promise((r) => setTimeout(r, 1000).unref())]);
      if (replica === null) return send(200, { status: "ok", storage: db.dialect, version: CLI_VERSION });
      const peers = await replica.peers().catch(() => null);
      return send(200, { status: "ok", storage: db.dialect, version: CLI_VERSION, replica: replica.id, peers });
    }
    if (!ROUTES.includes(route)) {
      const known = ROUTES.map((r) => r.slice(r.indexOf(" ") + 1)).includes(url.pathname.replace(/\/+$/, ""));
      req.resume();
      return send(known ? 405 : 404, { error: known ? "method_not_allowed" : "not_found", message: `${route} is not part of the API` });
    }
    const team = await authenticate(req);
    if (team !== undefined && "retryAfter" in team) {
      req.resume();
      res.setHeader("retry-after", String(team.retryAfter));
      return send(429, { error: "too_many_failed_authentications", message: `too many requests with unknown tokens from this address: retry in ${team.retryAfter} s` }, true);
    }
    if (team === undefined) {
      req.resume();
      return send(401, { error: "unauthorized", message: "send 'Authorization: Bearer <token>' with a token from 'comity serve token create'" });
    }
    if (route === "GET /v1/who") {
      const repos = url.searchParams.getAll("repo");
      const file = url.searchParams.get("path") ?? "";
      if (file === "" || repos.length === 0) return send(400, { error: "invalid_request", message: "GET /v1/who needs repo=FINGERPRINT and path=PATH" });
      return send(200, await db.read((sql) => whoHolds(sql, { teamId: team.id, now: now(), leaseMs }, repos, file)));
    }
    if (route === "GET /v1/sessions") {
      const repos = url.searchParams.getAll("repo");
      const filter = { now: now(), leaseMs, fingerprints: repos.length === 0 ? undefined : repos };
      const answer = await db.read(async (sql) => ({ sessions: await listSessions(sql, team, filter), conflicts: await listConflicts(sql, team, filter) }));
      return send(200, answer);
    }
    if (team.readOnly) {
      req.resume();
      return send(403, { error: "read_only_token", message: "this token is read-only (the dashboard's): hooks need a token from 'comity serve token create' without --read-only" }, true);
    }
    // The writing routes take one JSON body, bounded, each checked against its own schema.
    const body = await readBody(req, maxBody);
    if (body === "too_large") return send(413, { error: "payload_too_large", message: `bodies are limited to ${maxBody} bytes` }, true);
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      return send(400, { error: "invalid_json", message: "the body is not JSON" });
    }
    const invalid = (problem: { field: string; message: string }) => send(400, { error: "invalid_request", field: problem.field, message: `${problem.field} ${problem.message}` });
    if (route === "POST /v1/reservations" || route === "POST /v1/reservations/release") {
      const reserving = route === "POST /v1/reservations";
      const checked = reserving ? validateReserve(json) : validateRelease(json);
      if (!checked.ok) return invalid(checked.problem);
      try {
        const scope = { teamId: team.id, now: now(), leaseMs };
        const answer = await db.transaction<object>(`reserve:${team.id}`, (sql) =>
          reserving ? reserve(sql, scope, checked.request as ReserveRequest) : release(sql, scope, checked.request as ReleaseRequest),
        );
        changed(team.id);
        return send(200, answer);
      } catch (error) {
        // (no such session, a pattern outside the repo, a reservation already held: the caller is told why)
        if (error instanceof ComityError && error.code === "INVALID_ARGUMENT") return send(409, { error: "refused", message: error.message });
        throw error;
      }
    }
    if (route === "POST /v1/inbox") {
      const checked = validateInbox(json);
      if (!checked.ok) return invalid(checked.problem);
      try {
        const answer = await db.transaction(`inbox:${team.id}`, (sql) => readInbox(sql, { teamId: team.id, now: now(), leaseMs }, checked.request));
        changed(team.id);
        return send(200, answer);
      } catch (error) {
        if (error instanceof ComityError && error.code === "INVALID_ARGUMENT") return send(409, { error: "refused", message: error.message });
        throw error;
      }
    }
    if (route === "POST /v1/messages") {
      const checked = validateMessage(json);
      if (!checked.ok) return invalid(checked.problem);
      try {
        const answer = await db.transaction(`message:${team.id}`, (sql) => sendMessage(sql, { teamId: team.id, now: now(), leaseMs }, checked.request));
        changed(team.id);
        return send(200, answer);
      } catch (error) {
        if (error instanceof ComityError && error.code === "INVALID_ARGUMENT") return send(404, { error: "no_such_session", message: error.message });
        throw error;
      }
    }
    const checked = validate(json);
    if (!checked.ok) return invalid(checked.problem);
    const over = overLimits(checked.request);
    if (over !== null) return send(413, { error: "too_much_work", message: `${over}: split the request` });
    if (checked.request.dry_run === true && checked.request.event !== "pre_edit" && checked.request.event !== "pre_shell")
      return send(400, { error: "invalid_request", message: `dry_run is for pre_edit and pre_shell, not ${checked.request.event}` });
    const answer = await oneAtATime(team.id, () => evaluateInTransaction(db, team, checked.request, { now: now(), leaseMs }));
    // (a dry run changed nothing a dashboard shows)
    if (checked.request.dry_run !== true) changed(team.id);
    return send(200, answer);
  };

  // Fairness between teams on SQLite, whose one writer takes transactions in arrival order: a team's events are
  // evaluated one at a time, so a team sending heavy requests back to back never has more than one in the queue,
  // and another team's event waits behind one of them at most. (PostgreSQL runs other repos side by side already.)
  const lanes = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(teamId: string, fn: () => Promise<T>): Promise<T> => {
    if (db.dialect !== "sqlite") return fn();
    const run = (lanes.get(teamId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    lanes.set(teamId, tail);
    void tail.then(() => {
      if (lanes.get(teamId) === tail) lanes.delete(teamId);
    });
    return run;
  };

  // Every request looks its token up (a revoked token fails at the next request, a policy change applies at once);
  // an address that keeps failing is slowed down instead.
  const failures = new Map<string, number[]>();
  const worked = new Map<string, number>();
  const limitedFor = (address: string, t: number): number => {
    const recent = (failures.get(address) ?? []).filter((x) => x > t - FAILED_AUTH_WINDOW_MS);
    if (recent.length === 0) failures.delete(address);
    else failures.set(address, recent);
    return recent.length >= FAILED_AUTH_LIMIT ? Math.ceil(((recent[0] as number) + FAILED_AUTH_WINDOW_MS - t) / 1000) : 0;
  };
  const authenticate = async (req: http.IncomingMessage): Promise<(Team & { readonly readOnly: boolean; readonly tokenLastUsed: number | null }) | { retryAfter: number } | undefined> => {
    const t = Date.now();
    const address = req.socket.remoteAddress ?? "?";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    const token = m === null ? null : (m[1] as string);
    const wait = limitedFor(address, t);
    if (wait > 0 && (token === null || (worked.get(token) ?? 0) < t - 60_000)) return { retryAfter: wait };
    const team = token === null ? undefined : await db.read((sql) => teamForToken(sql, token));
    if (team === undefined || token === null) {
      if (failures.size >= 100_000) failures.clear();
      failures.set(address, [...(failures.get(address) ?? []), t]);
      return undefined;
    }
    if (worked.size >= 10_000) worked.clear();
    worked.set(token, t);
    // When it was last used, for `comity serve token list`: written at most once a minute, off the request's path.
    if (team.tokenLastUsed === null || team.tokenLastUsed < t - 60_000) void touchToken(db, token, t).catch(() => undefined);
    return team;
  };

  const limits = { ...SERVER_LIMITS, ...(options.limits ?? {}) };
  const server = http.createServer({ connectionsCheckingInterval: limits.checkEveryMs, headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log?.(`comity serve: ${req.method} ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { error: "internal", message: "the server could not evaluate this request" }, process.hrtime.bigint());
      else res.destroy();
    });
  });
  // A hook gives up after 400 ms to 1.5 s: a client that takes seconds to send a request is not one, and must not
  // hold a socket (Node's defaults are 60 s for headers and 5 minutes for a request, checked every 30 s). The
  // header and request timeouts are given to createServer above, with how often they are checked.
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  let replica: Replica | null = null;
  let starting: Promise<void> | null = null;
  server.once("listening", () => {
    const at = server.address();
    const port = typeof at === "object" && at !== null ? at.port : 0;
    const me = options.replica ?? { id: `${os.hostname()}:${port}`, address: typeof at === "object" && at !== null ? `${at.address}:${port}` : String(at) };
    starting = startReplica(db, me, CLI_VERSION, now, (error) => options.log?.(`comity serve: replica ${me.id}: ${error instanceof Error ? error.message : String(error)}`)).then((r) => {
      replica = r;
    });
  });
  if (messages !== undefined) {
    // What another replica did, for this one's pages; after the listening connection was lost and came back, every
    // open page refreshes (what was said meanwhile was not heard).
    const listening = [
      messages.listen(
        CHANGES_CHANNEL,
        (teamId) => dashboard.notify(teamId),
        () => dashboard.notifyAll(),
      ),
      messages.listen(SIGN_OUTS_CHANNEL, (hash) => dashboard.endSignIn(hash)),
      messages.listen(REVOKED_CHANNEL, (key) => dashboard.endKey(key)),
    ];
    await Promise.all(listening);
  }
  // A graceful stop: the health check says draining at once, open event streams end (close() would wait on them),
  // requests under way finish, the replica's row goes; then close()'s callback.
  let draining = false;
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    draining = true;
    dashboard.close();
    for (const t of pendingWord.values()) clearTimeout(t);
    const stopped = (starting ?? Promise.resolve()).then(() => (replica as Replica | null)?.stop());
    return close((error) => {
      void stopped.then(() => callback?.(error));
    });
  }) as typeof server.close;
  return server;
}

/** A JSON answer; `Server-Timing` says how long the server held the request, for whoever measures from outside. */
function sendJson(res: http.ServerResponse, status: number, body: unknown, arrived: bigint, close = false): void {
  const text = JSON.stringify(body);
  const ms = Number(process.hrtime.bigint() - arrived) / 1e6;
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "server-timing": `app;dur=${ms.toFixed(2)}`,
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
}

/**
 * The body, or "too_large" past the limit (announced or streamed). An oversize body is read to its end without
 * being kept, whatever its size, so the client finishes sending and then reads the 413 (answering while it still
 * sends would reset the connection under it); the request timeout bounds how long that may take.
 */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | "too_large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const announced = Number(req.headers["content-length"]);
    let over = Number.isFinite(announced) && announced > max;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (!over && size > max) {
        over = true;
        chunks.length = 0;
      }
      if (!over) chunks.push(c);
    });
    req.on("end", () => resolve(over ? "too_large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
