import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import daemonClient from "../../daemon/daemon-client.cjs";
import type { CliCall, DaemonAnswer, DaemonStatus, HookCall } from "../../daemon/daemon-wire.js";
import type { HookAnswer } from "../../daemon/start-daemon-server.js";
import type { HookRuntime } from "../../hook/hook-input.js";
import type { SnapshotMemo } from "../../snapshot/command-snapshots.js";
import type { CliIo } from "../io.js";

const { callDaemon, daemonSocketFor, installedBuild, pidFile, startingMark } = daemonClient;

export const DAEMON_USAGE = `usage: comity daemon [status [--json]|start|stop|run]

A per-user process that keeps Comity loaded, so that a hook event costs a
connection to it instead of starting Comity again. The hooks start it at
their first event and fall back to running the event themselves when it is
not there; it ends itself after 30 minutes without an event (8 hours
where Claude Code's HTTP hooks use it, comity init --http;
COMITY_DAEMON_IDLE_MS), and when a newer Comity is installed.
  status   whether it runs: pid, version, uptime, memory, and per event
           the events answered and the time to answer them (p50, p99);
           --json for all of it as JSON (the default action)
  start    starts it in the background (if it is not running)
  stop     ends it
  run      runs it in the foreground
It listens on daemon.sock in the config folder (0600, in a folder only you
can enter) and serves hook events and its status, nothing else.
COMITY_DAEMON=off: hooks never use it.
`;

const DEFAULT_IDLE_MS = 30 * 60 * 1000;
/**
 * With Claude Code's HTTP hooks (`init --http`), a daemon that ended leaves them unanswered until the next session
 * start or prompt starts one: it waits through a working day's pauses instead.
 */
const HTTP_IDLE_MS = 8 * 60 * 60 * 1000;

/** `comity daemon`: 0, 1 when asked for a status and none runs, 2 on bad arguments. */
export async function daemonCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h", default: false }, json: { type: "boolean", default: false } },
  });
  if (values.help) {
    io.stdout.write(DAEMON_USAGE);
    return 0;
  }
  const [action = "status", ...extra] = positionals;
  if (extra.length > 0 || !["status", "start", "stop", "run"].includes(action)) {
    io.stderr.write(`comity daemon: the action is one of status, start, stop, run\n${DAEMON_USAGE}`);
    return 2;
  }
  const socket = daemonSocketFor(io.env);
  if (socket === null) {
    io.stderr.write(
      io.env["COMITY_DAEMON"] === "off"
        ? "comity daemon: COMITY_DAEMON=off: hooks run each event themselves\n"
        : `comity daemon: the config folder's path is too long for a socket: hooks run each event themselves\n`,
    );
    return 2;
  }
  const build = installedBuild();
  const ask = (kind: "status" | "stop"): Promise<DaemonAnswer | { miss: string }> => callDaemon(socket, { kind, build }, { connectMs: 500, answerMs: 2000 });
  const said = (a: DaemonAnswer | { miss: string }): string =>
    "miss" in a
      ? "not running"
      : a.kind === "status"
        ? `running (pid ${a.pid}, since ${a.startedAt}, ${a.served} hook events answered; ends after ${a.idleMs >= 7_200_000 ? `${Math.round(a.idleMs / 3_600_000)} h` : `${Math.round(a.idleMs / 60000)} min`} idle${typeof a.httpPort === "number" ? `; HTTP hooks on 127.0.0.1:${a.httpPort}` : a.httpStarting === true ? "; its HTTP hooks' front is starting" : ""})`
        : a.kind;

  if (action === "status") {
    const a = await ask("status");
    if (values.json) {
      io.stdout.write(`${JSON.stringify("miss" in a ? { running: false, socket } : { running: a.kind === "status", socket, ...a }, null, 2)}\n`);
      return "miss" in a ? 1 : 0;
    }
    io.stdout.write(`comity daemon: ${said(a)} on ${socket}\n`);
    if (!("miss" in a) && a.kind === "status") io.stdout.write(statusDetail(a, Date.now()));
    return "miss" in a ? 1 : 0;
  }
  if (action === "stop") {
    const a = await ask("stop");
    io.stdout.write(`comity daemon: ${"miss" in a ? "not running" : "stopped"}\n`);
    return 0;
  }
  if (action === "start") {
    const before = await ask("status");
    if (!("miss" in before) && before.kind === "status") {
      io.stdout.write(`comity daemon: ${said(before)}\n`);
      return 0;
    }
    const { startDaemonAndWait } = await import("../../daemon/daemon-control.js");
    const started = await startDaemonAndWait(socket, io.env);
    if (started !== null) {
      io.stdout.write(`comity daemon: ${said({ kind: "status", ...started })} on ${socket}\n`);
      return 0;
    }
    io.stderr.write("comity daemon: it did not start within 5 s (comity daemon run shows why)\n");
    return 1;
  }
  return runDaemon(socket, build, io);
}

/** What `comity daemon status` adds under its first line: version, uptime, memory, folders, and the time per event. */
export function statusDetail(a: DaemonStatus, nowMs: number): string {
  const uptime = Math.max(0, nowMs - Date.parse(a.startedAt));
  const up = uptime < 60_000 ? `${Math.round(uptime / 1000)} s` : uptime < 3_600_000 ? `${Math.round(uptime / 60_000)} min` : `${(uptime / 3_600_000).toFixed(1)} h`;
  // Older builds answer without these.
  const rss = typeof a.rssBytes === "number" ? `, ${Math.round(a.rssBytes / 2 ** 20)} MiB resident` : "";
  const lines = [`  version ${a.build.split("+")[0] ?? a.build}, up ${up}${rss}, events from ${a.folders ?? 0} working folders`];
  if (typeof a.mcpRequests === "number" && a.mcpRequests > 0) lines.push(`  MCP server over HTTP: ${a.mcpRequests} requests answered`);
  const events = Object.entries(a.events ?? {});
  if (events.length > 0) {
    const width = Math.max(...events.map(([k]) => k.length), 5);
    lines.push(`  ${"event".padEnd(width)}   count   p50 ms   p99 ms`);
    for (const [k, t] of events) lines.push(`  ${k.padEnd(width)} ${String(t.count).padStart(7)} ${t.p50Ms.toFixed(1).padStart(8)} ${t.p99Ms.toFixed(1).padStart(8)}`);
  }
  const an = a.analyze;
  if (an !== undefined) {
    const why = an.problem === null ? "" : ` (${an.problem})`;
    lines.push(`  comity analyze: ${an.hits} answered from memory, ${an.misses} run cold; ${an.entries} answers kept, ${an.roots} folders watched${why}`);
  }
  if (a.snapshots !== undefined) lines.push(`  shell commands' snapshots: ${a.snapshots.taken} taken, ${a.snapshots.reused} reused (nothing had changed)`);
  return `${lines.join("\n")}\n`;
}

/** `comity daemon run`: serves until idle, stopped, replaced by another build, or its socket is gone. */
async function runDaemon(socket: string, build: string, io: CliIo): Promise<number> {
  const { startDaemonServer } = await import("../../daemon/start-daemon-server.js");
  const { createAnalyzeCache } = await import("../../daemon/analyze-cache.js");
  const { nativeChangeWatch } = await import("../../daemon/native-change-watch.js");
  const { createWatchedRoots } = await import("../../daemon/watched-roots.js");
  const { createSnapshotMemo } = await import("../../daemon/snapshot-memo.js");
  // One change watch for what the daemon keeps: analyze answers, and the snapshots of a shell command's pair.
  const watched = createWatchedRoots(nativeChangeWatch);
  const memo = createSnapshotMemo({ roots: watched });
  const runtime = await daemonRuntime(memo);
  const idle = Number(io.env["COMITY_DAEMON_IDLE_MS"]);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const config = configDir(io.env, io.env["HOME"] ?? os.homedir());
  const { readDaemonHttpConfig } = await import("../../daemon/daemon-http.js");
  const httpConfig = readDaemonHttpConfig(config);
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(io.env)) if (v !== undefined) baseEnv[k] = v;
  const server = await startDaemonServer({
    socket,
    build,
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : httpConfig === null ? DEFAULT_IDLE_MS : HTTP_IDLE_MS,
    runHook: (call) => answerHookCall(call, runtime),
    runCommand: answerCommandCall,
    ...(httpConfig === null ? {} : { http: { config: httpConfig, baseEnv, hosts: ["claude_code"], installedBuild } }),
    analyze: createAnalyzeCache({ roots: watched }),
    snapshotStats: memo.stats,
  });
  if (server.httpProblem !== null) {
    const { logFailOpen } = await import("../../hook/hook-log.js");
    logFailOpen(config, { time: new Date(), tool: "claude_code", event: "http", reason: `the daemon cannot answer HTTP hooks: ${server.httpProblem}` });
  }
  // Listening: a hook that finds it gone later (killed, crashed) starts the next one at once; one that finds it stuck
  // ends it by its pid.
  fs.rmSync(startingMark(socket), { force: true });
  fs.writeFileSync(pidFile(socket), `${process.pid}\n`, { mode: 0o600 });
  const httpSaid = httpConfig === null ? "" : server.httpProblem === null ? ` and on 127.0.0.1:${httpConfig.port} for HTTP hooks` : ` (HTTP hooks not answered: ${server.httpProblem})`;
  io.stdout.write(`comity daemon: listening on ${socket}${httpSaid} (pid ${process.pid}, config ${config})\n`);
  const stop = (): void => void server.close("signal");
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const why = await server.ended;
  await runtime.stores?.close();
  runtime.connections?.close();
  fs.rmSync(pidFile(socket), { force: true });
  io.stdout.write(`comity daemon: ended (${why})\n`);
  return 0;
}

/**
 * A read-only command (`comity status`, `who`, `symbols`) run as its process would, for the daemon's `cli` calls; null
 * for a `symbols` over more bytes than the daemon parses (the caller runs it, with its own worker threads).
 */
export async function answerCommandCall(call: CliCall): Promise<{ stdout: string; stderr: string; code: number } | null> {
  if (call.args[0] === "symbols") {
    let bytes = 0;
    for (const a of call.args.slice(1)) if (!a.startsWith("-")) bytes += fs.statSync(path.resolve(call.cwd, a), { throwIfNoEntry: false })?.size ?? 0;
    if (bytes > daemonClient.DAEMON_SYMBOLS_MAX_BYTES) return null;
  }
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: {
      write: (chunk: string | Uint8Array, done?: (error?: Error | null) => void) => {
        stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
        done?.();
        return true;
      },
      isTTY: call.tty,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    cwd: call.cwd,
    env: call.env,
    stdinIsTTY: false,
  };
  const [name, ...rest] = call.args;
  const command =
    name === "status"
      ? (await import("./status.js")).statusCommand
      : name === "who"
        ? (await import("./who.js")).whoCommand
        : name === "symbols"
          ? (await import("./symbols.js")).symbolsCommand
          : null;
  const code = command === null ? 2 : await command(rest, io);
  return { stdout, stderr, code };
}

/**
 * What the daemon keeps for the events it runs (given to each event, not set on modules): git status started
 * without copying the daemon's page tables at each fork (`native/spawn_capture.c`); a shell command's snapshots on
 * the change watch; a team server's connection, kept, instead of a handshake at every event; the embedded store
 * open between events.
 */
export async function daemonRuntime(memo: SnapshotMemo): Promise<HookRuntime> {
  const spawnGit = (await import("../../parse/native-parser.js")).openFlatParser().addon?.spawnCapture;
  const [{ keptConnections }, { createKeptStores }] = await Promise.all([import("../../api/http-request.js"), import("../../hook/kept-stores.js")]);
  return { ...(spawnGit === undefined ? {} : { spawnGit }), snapshotMemo: memo, connections: await keptConnections(), stores: createKeptStores() };
}

/**
 * One hook event in the daemon: `comity hook` run as in the caller's process, on its arguments, folder, environment
 * and stdin; what the event defers (its session's state written) is left to `after`, run once the answer has gone.
 */
export async function answerHookCall(call: HookCall, runtime?: HookRuntime): Promise<HookAnswer> {
  const { hookCommand } = await import("./hook.js");
  let stdout = "";
  const later: (() => void)[] = [];
  await hookCommand(
    call.args,
    {
      stdout: {
        write: (chunk: string | Uint8Array, done?: (error?: Error | null) => void) => {
          stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
          done?.();
          return true;
        },
      },
      stderr: { write: () => true },
      cwd: call.cwd,
      env: call.env,
      stdinIsTTY: false,
      readStdin: async () => call.stdin,
    },
    { ...runtime, defer: (work) => later.push(work), ...(call.envFromSession === true ? { sessionEnvFromState: true } : {}) },
  );
  return {
    stdout,
    after: () => {
      for (const work of later) work();
    },
  };
}
