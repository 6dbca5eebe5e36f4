import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { ComityError } from "../errors/comity-error.js";
import daemonClient from "./daemon-client.cjs";
import type { McpHttpRequest } from "../mcp/mcp-http.js";
import type { McpContext } from "../mcp/mcp-server.js";
import { httpHookCall, isMcpHttpRequest, mcpHttpContext, type DaemonHttpConfig } from "./daemon-http.js";
import type { DaemonMessage, FrontMessage, HttpFrontData } from "./http-front-worker.js";
import type { AnalyzeCache } from "./analyze-cache.js";
import type { CliCall, CommandLine, DaemonAnswer, DaemonCall, DaemonStatus, HookCall } from "./daemon-wire.js";
import { workerScriptUrl } from "../async/worker-script-url.js";

const { DAEMON_COMMANDS, MAX_DAEMON_REQUEST_BYTES, callDaemon, installedBuildAt } = daemonClient;

/** A hook event's answer, and what it left to run once the answer has gone (before the next event). */
export interface HookAnswer {
  readonly stdout: string;
  readonly after: () => void;
}

export interface DaemonServerOptions {
  readonly socket: string;
  /** This daemon's build: a call from another build is answered `stale`, and the daemon ends. */
  readonly build: string;
  /** It ends after this long without a call. */
  readonly idleMs: number;
  /**
   * Answers one hook event: the stdout of `comity hook` run on the call's arguments, folder, environment and stdin,
   * and what the event left for after its answer has gone.
   */
  readonly runHook: (call: HookCall) => Promise<string | HookAnswer>;
  /** Most events waiting at once; past it a caller is told `busy` and runs its event itself. Default 8. */
  readonly maxWaiting?: number;
  /**
   * A caller that would wait behind an event running for longer than this (a session start briefing many repos) is
   * told `busy` and runs its event itself, as it would without a daemon: one agent's slow event never delays another's
   * edit. Default 250 ms.
   */
  readonly busyAfterMs?: number;
  /** Past this resident memory after an event, the daemon ends (the next hook starts a fresh one). Default 1 GiB. */
  readonly maxRssBytes?: number;
  /**
   * Also answer Claude Code's HTTP hooks on 127.0.0.1 at this port, to callers with the secret (`daemon-http.ts`).
   * Their events run with `baseEnv` and the variables they forward, for the hosts listed.
   */
  readonly http?: {
    readonly config: DaemonHttpConfig;
    readonly baseEnv: Readonly<Record<string, string>>;
    readonly hosts: readonly string[];
    /**
     * The build installed now. An HTTP hook carries no build (a command hook does): where another build was installed
     * under the daemon, its HTTP front answers 503 and the daemon ends, rather than run an event on a mix of two
     * builds' modules; the next command hook starts the new one.
     */
    readonly installedBuild?: () => string;
    /**
     * How long the HTTP front (a thread of its own) waits for the daemon's thread to take a request before it
     * answers 503 at once: that thread is held (git, SQLite's lock). Default 250 ms: a hiccup shorter than that (a
     * collection, a module loading) is still answered inside the 0.5 s Claude Code gives a PreToolUse hook, and a long
     * hold costs a tool call 0.5 s instead of the hooks' whole 1.2 s.
     */
    readonly ackMs?: number;
    /** Told of each HTTP front thread started (the first, and each restart after one ended on its own). */
    readonly onFrontStarted?: (worker: Worker) => void;
    /**
     * How long the front may take to say it listens (default 5 s): past it, the daemon goes on without HTTP hooks
     * (its `httpProblem` says so) rather than wait for ever without writing the pid file a stuck daemon is ended by.
     */
    readonly frontStartMs?: number;
    /** The front's script (default `http-front-worker.js` beside this module): a test stands in one of its own. */
    readonly frontScript?: URL;
  };
  readonly now?: () => number;
  /** The clock an event's time to answer is measured on, in ms (default `performance.now`: monotonic, sub-ms). */
  readonly elapsedClock?: () => number;
  /** `comity analyze` answered from memory (`analyze-cache.ts`); without it, every analyze question is a miss. */
  readonly analyze?: AnalyzeCache;
  /**
   * Runs a read-only command (`comity status`, `who`, `symbols`) as its process would, or says null where the caller
   * must run it itself (too large a `symbols`); without it, they are refused.
   */
  readonly runCommand?: (call: CliCall) => Promise<{ readonly stdout: string; readonly stderr: string; readonly code: number } | null>;
  /** The snapshots its hook events took and reused (`snapshot-memo.ts`), for its status. */
  readonly snapshotStats?: () => { readonly taken: number; readonly reused: number };
}

export interface DaemonServer {
  status(): DaemonStatus;
  /** Why HTTP hooks are not answered though asked for (the port taken), or null. */
  readonly httpProblem: string | null;
  /** Resolves with why it ended: idle, stopped, another build, its socket gone. */
  readonly ended: Promise<string>;
  close(reason: string): Promise<void>;
}

/** What `inLine` says instead of a result where the caller must run its work itself. */
const BUSY = Symbol("busy");

/** How many of the last answer times of each kind of event the status's percentiles are taken over. */
const RECENT_TIMES = 1000;

/** The median and 99th percentile of some times (nearest rank), rounded to 0.1 ms. */
function percentiles(xs: readonly number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => Math.round((sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0) * 10) / 10;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** How many events apart the daemon looks at its memory (the first event's included). */
const RSS_EVERY = 16;
/** How long a caller has to send its request once connected (a connection that trickles is dropped). */
const REQUEST_MS = 5000;
/** How often the daemon checks that its socket is still in place (a config folder removed, another daemon). */
const CHECK_SOCKET_MS = 30_000;
/** How long the HTTP front may take to start listening, unless the caller says otherwise. */
const FRONT_START_MS = 5000;

/**
 * Listens on `socket` (created 0600 in the config folder, which is the user's alone) and answers the calls of the
 * daemon's wire, one hook event at a time: events of one session must not interleave, and each takes milliseconds.
 * A socket left by a daemon that died is replaced; one whose daemon answers is left alone (ComityError
 * DAEMON_RUNNING). Only hook events and its own status are served.
 */
export async function startDaemonServer(options: DaemonServerOptions): Promise<DaemonServer> {
  const now = options.now ?? Date.now;
  const elapsed = options.elapsedClock ?? (() => performance.now());
  const maxWaiting = options.maxWaiting ?? 8;
  const busyAfterMs = options.busyAfterMs ?? 250;
  const maxRssBytes = options.maxRssBytes ?? 1024 * 1024 * 1024;
  /** When the event now running started (null: none runs). */
  let runningSince: number | null = null;
  if (fs.existsSync(options.socket)) {
    const other = await callDaemon(options.socket, { kind: "status", build: options.build }, { connectMs: 500, answerMs: 1000 });
    if (!("miss" in other) || other.miss === "failed") throw new ComityError("DAEMON_RUNNING", `a daemon already listens on ${options.socket}`);
    fs.rmSync(options.socket, { force: true });
  }
  const startedAt = new Date(now()).toISOString();
  let served = 0;
  let mcpRequests = 0;
  let commands = 0;
  /** Recent answer times per kind of event, and the working folders seen: what `comity daemon status` reports. */
  const times = new Map<string, { count: number; recent: number[] }>();
  const folders = new Set<string>();
  let waiting = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let endedWith: (reason: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => {
    endedWith = resolve;
  });
  let httpPort: number | null = null;
  // (set once the front is up; the socket answers status before that)
  let httpFront: Awaited<ReturnType<typeof superviseHttpFront>> | null = null;
  let httpStarting = options.http !== undefined;
  const status = (): DaemonStatus => ({
    pid: process.pid,
    build: options.build,
    startedAt,
    served,
    commands,
    mcpRequests,
    waiting,
    idleMs: options.idleMs,
    httpPort: httpFront !== null && httpFront.problem() !== null ? null : httpPort,
    ...(httpFront === null ? {} : { http: { restarts: httpFront.restarts(), problem: httpFront.problem() } }),
    ...(httpStarting ? { httpStarting } : {}),
    rssBytes: process.memoryUsage.rss(),
    folders: folders.size,
    analyze: options.analyze?.stats() ?? { hits: 0, misses: 0, entries: 0, roots: 0, problem: "not served by this daemon" },
    snapshots: options.snapshotStats?.() ?? { taken: 0, reused: 0 },
    events: Object.fromEntries([...times].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, t]) => [k, { count: t.count, ...percentiles(t.recent) }])),
  });

  let idle: NodeJS.Timeout | null = null;
  const touch = (): void => {
    if (idle !== null) clearTimeout(idle);
    idle = setTimeout(() => void close("idle"), options.idleMs);
    idle.unref();
  };

  /**
   * One request to Comity's MCP server, from either door (`comity mcp` over the socket, the HTTP front): after the
   * hook events taken before it (an edit's PostToolUse posted a moment ago is in the store when check_edit or impact
   * reads it), but beside those after it: a slow tool (analyze) holds up no hook.
   */
  const answerMcp = async (request: McpHttpRequest, ctx: McpContext): Promise<{ readonly status: number; readonly body: string }> => {
    const { answerMcpHttp } = await import("../mcp/mcp-http.js");
    await chain;
    mcpRequests++;
    return answerMcpHttp(request, ctx);
  };

  const answerOf = async (call: DaemonCall, canRunItself = true): Promise<DaemonAnswer> => {
    if (call.build !== options.build) {
      setImmediate(() => void close(`another build called (${call.build})`));
      return { kind: "stale", build: options.build };
    }
    // Answered at once, beside the hook events' queue: a question to the watch and a look-up.
    if (call.kind === "analyze") return options.analyze?.query(call) ?? { kind: "analyze-miss", token: null };
    if (call.kind === "analyze-store") return options.analyze?.store(call) ?? { kind: "stored", stored: false };
    if (call.kind === "mcp") {
      const { HOOK_TOOLS } = await import("../hook/hosts.js");
      // (`comity mcp` run here then says what is wrong with its host)
      if (call.host !== null && !(HOOK_TOOLS as readonly string[]).includes(call.host)) return { kind: "refused", reason: `unknown host '${call.host}'` };
      const message = { method: "POST", url: "/v1/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: call.message };
      return { kind: "mcp", ...(await answerMcp(message, { cwd: call.cwd, env: call.env, host: call.host })) };
    }
    if (call.kind === "cli") {
      const run = options.runCommand;
      if (run === undefined || !DAEMON_COMMANDS.includes(call.args[0] ?? "")) return { kind: "refused", reason: "not a command the daemon runs" };
      // In line with the hook events (one store, one at a time), and as busy as they are.
      const r = await inLine(() => run(call), true);
      if (r === BUSY || r === null) return { kind: "busy" };
      commands++;
      return { kind: "cli", ...r };
    }
    if (call.kind !== "hook") {
      if (call.kind === "status") return { kind: "status", ...status() };
      setImmediate(() => void close("stopped"));
      return { kind: "stopping" };
    }
    // The answer goes as soon as the event has it; the line stays held until what the event left for after (its
    // session's state written) has run, so the next event reads what this one wrote.
    let answered: (stdout: string) => void = () => undefined;
    const answer = new Promise<string>((resolve) => {
      answered = resolve;
    });
    const ran = inLine(async () => {
      const started = elapsed();
      let after: (() => void) | null = null;
      try {
        const a = await options.runHook(call);
        if (typeof a === "string") answered(a);
        else {
          answered(a.stdout);
          after = a.after;
        }
      } finally {
        record(call, elapsed() - started);
      }
      if (after !== null) {
        // One turn of the loop first: the caller's answer is written before the work that no longer delays it.
        await new Promise<void>((resolve) => setImmediate(resolve));
        after();
      }
    }, canRunItself);
    const stdout = await Promise.race([answer, ran.then(async (r) => (r === BUSY ? BUSY : await answer))]);
    if (stdout === BUSY) return { kind: "busy" };
    served++;
    // A daemon lives for hours: whatever it came to hold, it never holds more than this. Looked at after the answer
    // and every few events (reading it cost an event a third of a millisecond on a busy machine): a leak grows over
    // many events, and the limit is far from what one event can take.
    if (served % RSS_EVERY === 1)
      setImmediate(() => {
        const rss = process.memoryUsage.rss();
        if (rss > maxRssBytes) void close(`memory (${Math.round(rss / 2 ** 20)} MiB)`);
      });
    return { kind: "hook", stdout };
  };

  /**
   * Runs `work` after the events and commands before it, one at a time; or BUSY, where too many wait or (where the
   * caller can run it itself) the one running has taken more than `busyAfterMs`.
   */
  const inLine = async <T>(work: () => Promise<T>, canRunItself: boolean): Promise<T | typeof BUSY> => {
    if (waiting >= maxWaiting || (canRunItself && runningSince !== null && now() - runningSince > busyAfterMs)) return BUSY;
    waiting++;
    const next = chain.then(async () => {
      runningSince = now();
      try {
        return await work();
      } finally {
        runningSince = null;
      }
    });
    chain = next.catch(() => undefined);
    try {
      return await next;
    } finally {
      waiting--;
    }
  };

  const record = (call: HookCall, ms: number): void => {
    const arg = (name: string): string => call.args[call.args.indexOf(name) + 1] ?? "?";
    const key = `${arg("--tool")} ${arg("--event")}`;
    // Bounded: a host that sends made-up event names cannot grow the table without end.
    if (!times.has(key) && times.size >= 64) return;
    const t = times.get(key) ?? { count: 0, recent: [] };
    t.count++;
    t.recent.push(ms);
    if (t.recent.length > RECENT_TIMES) t.recent.splice(0, t.recent.length - RECENT_TIMES);
    times.set(key, t);
    if (folders.size < 10_000) folders.add(call.cwd);
  };

  // Half-open allowed: a caller that ends its side after its request still gets the answer.
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    touch();
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const reply = (answer: DaemonAnswer): void => {
      if (answered) return;
      answered = true;
      conn.end(`${JSON.stringify(answer)}\n`);
    };
    conn.setTimeout(REQUEST_MS, () => conn.destroy());
    conn.on("error", () => undefined);
    conn.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DAEMON_REQUEST_BYTES) {
        reply({ kind: "refused", reason: `request over ${MAX_DAEMON_REQUEST_BYTES} bytes` });
        conn.destroy();
        return;
      }
      chunks.push(chunk);
      if (!chunk.includes(10)) return;
      conn.setTimeout(0);
      const call = parseCall(Buffer.concat(chunks).toString("utf8"));
      if (call === null) {
        reply({ kind: "refused", reason: "not a call of the daemon's wire" });
        return;
      }
      answerOf(call).then(reply, (error: unknown) => reply({ kind: "refused", reason: error instanceof Error ? error.message : String(error) }));
    });
  });

  // The socket is created 0600 (no moment where another user could connect), in a folder that is the user's alone.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.socket, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  const mine = statOf(options.socket);
  touch();
  let closing: Promise<void> | null = null;
  const close = (reason: string): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(check);
      if (idle !== null) clearTimeout(idle);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await httpFront?.close();
      await chain;
      const st = statOf(options.socket);
      if (st !== null && st.ino === mine?.ino) fs.rmSync(options.socket, { force: true });
      endedWith(reason);
    })());
  // (from now on, whatever the start still waits for: a daemon whose socket is gone ends)
  const check = setInterval(() => {
    const st = statOf(options.socket);
    if (st === null || st.ino !== mine?.ino) void close("its socket is gone");
  }, CHECK_SOCKET_MS);
  check.unref();
  /** Whether the build installed is still this daemon's; where not, it ends (the next command hook starts the new one). */
  const sameBuild = (): boolean => {
    const installed = options.http?.installedBuild?.() ?? options.build;
    if (installed === options.build) return true;
    setImmediate(() => void close(`another build was installed (${installed})`));
    return false;
  };
  httpFront =
    options.http === undefined
      ? null
      : await superviseHttpFront(options.http, options.build, touch, {
          hook: (call) => {
            if (sameBuild()) return answerOf(call, false);
            return Promise.resolve({ kind: "stale", build: options.build });
          },
          mcp: async (request) => {
            if (!sameBuild()) return { status: 503, body: "the daemon is stale\n" };
            const http_ = options.http as NonNullable<DaemonServerOptions["http"]>;
            const ctx = mcpHttpContext(request, http_.baseEnv, http_.hosts);
            if ("status" in ctx) return { status: ctx.status, body: `${ctx.reason}\n` };
            return answerMcp(request, ctx);
          },
        });
  const httpProblem = httpFront?.problem() ?? null;
  if (httpFront !== null && httpProblem === null && options.http !== undefined) httpPort = options.http.config.port;
  httpStarting = false;

  return { status, httpProblem, ended, close };
}

/** The HTTP front's thread, listening or not (`problem`). */
interface HttpFront {
  readonly problem: string | null;
  close(): Promise<void>;
  /** Resolves when the thread ends without being asked to (it failed): the daemon starts another. */
  readonly died: Promise<string>;
}

/** How many times, in RESTART_WINDOW_MS, a front that ended on its own is started again before the daemon gives up. */
const MAX_FRONT_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;

/**
 * The HTTP front, kept up: a thread that ends on its own (an uncaught error in it) is started again after a short
 * pause, so Claude Code's HTTP hooks are answered again (between the two, they are refused, and Claude Code goes on
 * without them); past MAX_FRONT_RESTARTS in RESTART_WINDOW_MS it stays down, and `problem` says why.
 */
async function superviseHttpFront(
  http_: NonNullable<DaemonServerOptions["http"]>,
  build: string,
  touch: () => void,
  answer: FrontAnswers,
): Promise<{ readonly problem: () => string | null; readonly restarts: () => number; close(): Promise<void> }> {
  let front = await startHttpFront(http_, build, touch, answer);
  let problem = front.problem;
  let closing = false;
  const restartedAt: number[] = [];
  const watch = (f: HttpFront): void => {
    void f.died.then(async (why) => {
      if (closing) return;
      const now = Date.now();
      while (restartedAt.length > 0 && (restartedAt[0] ?? 0) < now - RESTART_WINDOW_MS) restartedAt.shift();
      if (restartedAt.length >= MAX_FRONT_RESTARTS) {
        problem = `the HTTP front ended ${MAX_FRONT_RESTARTS + 1} times in ${RESTART_WINDOW_MS / 60_000} minutes (last: ${why}): it stays down`;
        return;
      }
      restartedAt.push(now);
      await new Promise((r) => setTimeout(r, 100 * restartedAt.length));
      if (closing) return;
      front = await startHttpFront(http_, build, touch, answer);
      problem = front.problem;
      if (front.problem === null) watch(front);
    });
  };
  if (front.problem === null) watch(front);
  return {
    problem: () => problem,
    restarts: () => restartedAt.length,
    close: async () => {
      closing = true;
      await front.close();
    },
  };
}

/** What the daemon's thread answers the front's requests with: a hook event, or a request to the MCP server. */
interface FrontAnswers {
  readonly hook: (call: HookCall) => Promise<DaemonAnswer>;
  readonly mcp: (request: McpHttpRequest) => Promise<{ readonly status: number; readonly body: string }>;
}

/**
 * Starts the HTTP front (`http-front-worker.ts`) on a thread of its own: a request it lets through (a hook event from
 * a holder of the secret) is taken here at once (acknowledged), run as its hook event (`httpHookCall`) in line with the
 * others, and answered with the hook's stdout as the body, as Claude Code reads a command hook's stdout. Busy (too
 * many waiting, or this thread held) is a 503: Claude Code goes on without the hook's answer.
 */
async function startHttpFront(http_: NonNullable<DaemonServerOptions["http"]>, build: string, touch: () => void, answer: FrontAnswers): Promise<HttpFront> {
  const url = http_.frontScript ?? workerScriptUrl(import.meta.url, "http-front-worker.js");
  const data: HttpFrontData = { config: http_.config, hosts: http_.hosts, maxBytes: MAX_DAEMON_REQUEST_BYTES, requestMs: REQUEST_MS, ackMs: http_.ackMs ?? 250 };
  const worker = new Worker(url, { workerData: data });
  const send = (m: DaemonMessage): void => worker.postMessage(m);
  let settle: (problem: string | null) => void = () => undefined;
  const started = new Promise<string | null>((resolve) => {
    settle = resolve;
  });
  let closed: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    closed = resolve;
  });
  let asked = false;
  let died: (why: string) => void = () => undefined;
  const diedPromise = new Promise<string>((resolve) => {
    died = resolve;
  });
  http_.onFrontStarted?.(worker);
  worker.on("message", (m: FrontMessage) => {
    if (m.type === "listening") settle(null);
    else if (m.type === "problem") settle(m.problem);
    else if (m.type === "closed") closed();
    else {
      // Taken: the front now waits for the answer, however long the event waits its turn.
      send({ type: "ack", id: m.id });
      touch();
      const failed = () => send({ type: "answer", id: m.id, status: 500, body: "the daemon could not answer\n" });
      // An MCP tool call runs beside the hook events (it awaits the store and the API as they do), not in their line.
      if (isMcpHttpRequest(m.request.url)) answer.mcp(m.request).then((a) => send({ type: "answer", id: m.id, status: a.status, body: a.body }), failed);
      else
        answer
          .hook(httpHookCall(m.request, build, http_.baseEnv))
          .then((a) => send(a.kind === "hook" ? { type: "answer", id: m.id, status: 200, body: a.stdout } : { type: "answer", id: m.id, status: 503, body: `the daemon is ${a.kind}\n` }), failed);
    }
  });
  let failure = "it exited";
  worker.on("error", (error) => {
    failure = error.message;
    settle(`the HTTP front failed: ${error.message}`);
  });
  worker.on("exit", (code) => {
    settle("the HTTP front ended");
    closed();
    if (!asked) died(`${failure} (exit code ${code})`);
  });
  const startMs = http_.frontStartMs ?? FRONT_START_MS;
  const late = setTimeout(() => settle(`the HTTP front did not start within ${startMs / 1000} s`), startMs);
  const problem = await started;
  clearTimeout(late);
  if (problem !== null) {
    asked = true;
    await worker.terminate();
  }
  return {
    problem,
    died: diedPromise,
    close: async () => {
      asked = true;
      if (problem !== null) return;
      send({ type: "close" });
      // Bounded: a front that does not close in time is ended.
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await ended;
      clearTimeout(timer);
    },
  };
}

function statOf(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

/** A call of the wire, or null: anything else (a browser, a stray client) is refused. */
export function parseCall(text: string): DaemonCall | null {
  let value: unknown;
  try {
    value = JSON.parse(text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n")));
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  // The native client names its package's folder, whose build is read here (it cannot read it cheaply itself).
  const build = typeof v["build"] === "string" ? v["build"] : v["kind"] === "hook" && typeof v["root"] === "string" && path.isAbsolute(v["root"]) ? installedBuildAt(v["root"]) : null;
  if (build === null) return null;
  if (v["kind"] === "status" || v["kind"] === "stop") return { kind: v["kind"], build };
  if (v["kind"] === "analyze") return typeof v["key"] === "string" ? { kind: "analyze", build, key: v["key"] } : null;
  if (v["kind"] === "cli") {
    const command = commandOf(v);
    return command === null || typeof v["tty"] !== "boolean" ? null : { kind: "cli", build, ...command, tty: v["tty"] };
  }
  if (v["kind"] === "analyze-store") {
    const token = v["token"];
    const roots = v["roots"];
    const tokenOk = token === null || (typeof token === "object" && !Array.isArray(token) && Object.values(token as object).every((g) => typeof g === "number"));
    if (typeof v["key"] !== "string" || typeof v["stdout"] !== "string" || typeof v["code"] !== "number" || !tokenOk) return null;
    if (!Array.isArray(roots) || !roots.every((r) => typeof r === "string" && path.isAbsolute(r))) return null;
    return { kind: "analyze-store", build, key: v["key"], token: token as Record<string, number> | null, stdout: v["stdout"], code: v["code"], roots: roots as string[] };
  }
  if (v["kind"] === "mcp") {
    const command = commandOf({ ...v, args: [] });
    const host = v["host"];
    if (command === null || !path.isAbsolute(command.cwd) || typeof v["message"] !== "string" || (host !== null && typeof host !== "string")) return null;
    return { kind: "mcp", build, cwd: command.cwd, env: command.env, host, message: v["message"] };
  }
  if (v["kind"] !== "hook") return null;
  const command = commandOf(v);
  return command === null || typeof v["stdin"] !== "string" ? null : { kind: "hook", build, ...command, stdin: v["stdin"] };
}

/** What a hook event and a command call both carry, as a command line got it: its arguments, folder and environment. */
function commandOf(v: Record<string, unknown>): CommandLine | null {
  const args = v["args"];
  const env = v["env"];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string") || typeof v["cwd"] !== "string") return null;
  if (env === null || typeof env !== "object" || !Object.values(env).every((x) => typeof x === "string")) return null;
  return { args: args as string[], cwd: v["cwd"], env: env as Record<string, string> };
}
