import fs = require("node:fs");
import os = require("node:os");
import path = require("node:path");
import configDirModule = require("../config/config-dir-cjs.cjs");
import callDaemonModule = require("./call-daemon.cjs");
import daemonCommandsModule = require("./daemon-commands.cjs");
import hostTerminalModule = require("../hook/host-terminal.cjs");

// The hook's thin path: `bin/comity.cjs` loads this before anything else of Comity, so it is CommonJS and loads
// nothing but Node's own modules and two small modules beside it (loading an ES module graph of the same code was
// most of what a hook through the daemon cost). `node:child_process` and `node:crypto` are loaded only where needed.
const { configDir } = configDirModule;
const { callDaemon } = callDaemonModule;
const { DAEMON_COMMANDS, DAEMON_SYMBOLS_MAX_BYTES, DAEMON_SYMBOLS_MAX_FILES } = daemonCommandsModule;
const { procStat } = hostTerminalModule;

/** A request larger than this is refused (a hook's stdin is bounded at 4 MiB; its environment rides along). */
const MAX_DAEMON_REQUEST_BYTES = 6 * 1024 * 1024;

/** The daemon's socket in the config folder (`CONFIG_LAYOUT.daemon` names it, and a test holds the two equal). */
const DAEMON_SOCKET_FILE = "daemon.sock";

/**
 * Where the daemon of a config folder listens: `daemon.sock` in it, whose folder is the user's alone (0700). Null
 * where a Unix socket's path would be too long for the platform (about 100 bytes): the hook then runs in process.
 */
function daemonSocket(dir: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === "win32") {
    const { createHash } = require("node:crypto") as typeof import("node:crypto");
    return `\\\\.\\pipe\\comity-${createHash("sha256").update(dir.toLowerCase()).digest("hex").slice(0, 32)}`;
  }
  const socket = path.join(dir, DAEMON_SOCKET_FILE);
  return Buffer.byteLength(socket) <= 100 ? socket : null;
}

/** A build, as the daemon and its callers compare them: the version and when the installed CLI was written. */
function buildId(version: string, mainMtimeMs: number): string {
  return `${version}+${Math.trunc(mainMtimeMs)}`;
}

/** What the hook's thin path got: the daemon's answer, or why it must run the event itself. */
type ThroughDaemon = { readonly stdout: string } | { readonly runHere: string; readonly startDaemon: boolean } | { readonly failOpen: string };

/**
 * How long the daemon may take to answer an event before the hook gives up on it: inside the hosts' 5 s, leaving
 * the watchdog's margin. Past it the hook fails open rather than run the event again with no time left.
 */
const DAEMON_ANSWER_MS = 3500;

/**
 * How long a hook waits for an answer before it asks whether the daemon's process is stopped. An event answers in
 * milliseconds; a stopped daemon would otherwise cost the whole answer time. The native client uses the same figure.
 */
const DAEMON_STOPPED_CHECK_MS = 300;

/** The last package.json read per package folder, by its size and time: a daemon asks at every http hook. */
const versions = new Map<string, { readonly stamp: string; readonly version: string }>();

/** The version in a package's package.json (`CLI_VERSION`, which a test keeps equal to it, is an ES module). */
function packageVersion(root: string): string {
  const file = path.join(root, "package.json");
  try {
    const st = fs.statSync(file);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = versions.get(root);
    if (known?.stamp === stamp) return known.version;
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8")).version;
    const version = typeof parsed === "string" ? parsed : "?";
    if (versions.has(root) || versions.size < 64) versions.set(root, { stamp, version });
    return version;
  } catch {
    return "?";
  }
}

/**
 * The build of the CLI installed in the package at `root`, as the daemon compares it. The native client
 * (`native/hook-client/`) sends its package's folder instead of its build, and the daemon reads the build there.
 */
function installedBuildAt(root: string): string {
  let mtime = 0;
  try {
    mtime = fs.statSync(path.join(root, "dist", "cli", "main.js")).mtimeMs;
  } catch {
    // a build without its main module cannot run anyway
  }
  return buildId(packageVersion(root), mtime);
}

/** The build of the CLI installed beside this module. */
function installedBuild(): string {
  return installedBuildAt(path.join(__dirname, "..", ".."));
}

/** Whether hooks go through the daemon: unless `COMITY_DAEMON=off`, and where a socket can be made. */
function daemonSocketFor(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env["COMITY_DAEMON"] === "off") return null;
  return daemonSocket(configDir(env, env["HOME"] ?? os.homedir()));
}

/**
 * One hook event through the per-user daemon (`bin/comity.cjs` calls this before it loads the rest of Comity). Only
 * node:net and a few small modules are loaded here: the point is to start nothing the daemon already has.
 */
async function hookThroughDaemon(args: readonly string[], stdin: string, env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<ThroughDaemon> {
  const socket = daemonSocketFor(env);
  if (socket === null) return { runHere: "daemon off", startDaemon: false };
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v;
  const answer = await callDaemon(
    socket,
    { kind: "hook", build: installedBuild(), args, cwd, env: defined, stdin },
    { connectMs: 200, answerMs: DAEMON_ANSWER_MS, stopped: { afterMs: DAEMON_STOPPED_CHECK_MS, check: () => daemonStopped(socket) } },
  );
  if ("miss" in answer) {
    if (answer.miss === "absent") return { runHere: answer.reason, startDaemon: true };
    // Stopped (SIGSTOP, a debugger): it would never answer. It is ended, and there is time left to run the event here.
    if (answer.miss === "stopped") return { runHere: `${answer.reason}: ${endStuckDaemon(socket)}`, startDaemon: true };
    // It took the event and gave nothing back in time: stuck. It is ended, so that the next event starts a new one
    // instead of waiting on it too; this one has no time left to run, and fails open.
    return { failOpen: `the daemon did not answer (${answer.reason}): ${endStuckDaemon(socket)}` };
  }
  if (answer.kind === "hook") return { stdout: answer.stdout };
  if (answer.kind === "stale") return { runHere: "the daemon was of another build", startDaemon: true };
  if (answer.kind === "busy") return { runHere: "the daemon was busy", startDaemon: false };
  return { runHere: `the daemon answered ${answer.kind}`, startDaemon: false };
}

/** How long an MCP tool call waits for the daemon (`analyze` of a large folder takes seconds). */
const MCP_ANSWER_MS = 120_000;

/**
 * `comity mcp` through the daemon: each JSON-RPC line its host writes on stdin goes to the daemon, which runs Comity's
 * MCP server, and the answer is written on stdout, one line each, in order; nothing of the server (the SDK, zod) is
 * loaded here, which at every session start cost about 300 ms of CPU. Resolves once stdin ends; or, where the daemon
 * does not take the first message (not running, another build), with the text read and not answered, for the server
 * to run in this process instead (whether stdin has ended, and whether to start a daemon for the sessions after). A
 * message the daemon fails later (it was stopped or replaced mid-session) is answered with a JSON-RPC error, and the
 * next one tries it again.
 */
function serveMcpThroughDaemon(o: {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly host: string | null;
}): Promise<{ readonly ended: true } | { readonly fallback: string; readonly ended: boolean; readonly startDaemon: boolean }> {
  const socket = daemonSocketFor(o.env);
  if (socket === null) return Promise.resolve({ fallback: "", ended: false, startDaemon: false });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined) env[k] = v;
  const build = installedBuild();
  return new Promise((resolve) => {
    let text = "";
    let answered = false;
    let ended = false;
    let working = false;
    let settled = false;
    const settle = (r: { readonly ended: true } | { readonly fallback: string; readonly ended: boolean; readonly startDaemon: boolean }): void => {
      if (settled) return;
      settled = true;
      o.stdin.removeListener("data", onData);
      o.stdin.removeListener("end", onEnd);
      resolve(r);
    };
    const next = async (): Promise<void> => {
      if (working || settled) return;
      working = true;
      try {
        for (let nl = text.indexOf("\n"); nl !== -1 && !settled; nl = text.indexOf("\n")) {
          const line = text.slice(0, nl).trim();
          if (line === "") {
            text = text.slice(nl + 1);
            continue;
          }
          // (a daemon stopped by SIGSTOP or a debugger is told at once, as for a hook: no wait would end)
          const answer = await callDaemon(
            socket,
            { kind: "mcp", build, cwd: o.cwd, env, host: o.host, message: line },
            { connectMs: 200, answerMs: MCP_ANSWER_MS, stopped: { afterMs: DAEMON_STOPPED_CHECK_MS, check: () => daemonStopped(socket) } },
          );
          if (!("miss" in answer) && answer.kind === "mcp") {
            text = text.slice(nl + 1);
            answered = true;
            if (answer.body.trim() !== "") o.stdout.write(`${answer.body.trim()}\n`);
            continue;
          }
          if (!answered) {
            // Nothing answered yet: the server runs here, from this message on.
            o.stdin.pause();
            settle({ fallback: text, ended, startDaemon: ("miss" in answer && answer.miss === "absent") || (!("miss" in answer) && answer.kind === "stale") });
            return;
          }
          text = text.slice(nl + 1);
          const why = "miss" in answer ? answer.reason : `it answered ${answer.kind}`;
          const id = requestId(line);
          if (id !== undefined) o.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: `Comity's daemon did not answer (${why}): ask again in a moment` } })}\n`);
        }
        if (ended) settle({ ended: true });
      } finally {
        working = false;
      }
      // Lines that came while this one was out.
      if (!settled && text.includes("\n")) void next();
    };
    const onData = (chunk: Buffer | string): void => {
      text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
      void next();
    };
    const onEnd = (): void => {
      ended = true;
      if (!working) {
        if (text.trim() !== "") text += "\n";
        void next().then(() => settle({ ended: true }));
      }
    };
    o.stdin.on("data", onData);
    o.stdin.on("end", onEnd);
  });
}

/** A JSON-RPC request's id (undefined for a notification or a line that is not JSON-RPC). */
function requestId(line: string): string | number | undefined {
  try {
    const m = JSON.parse(line) as { id?: unknown };
    return typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The native client (`comity-hook`) hands an event to the Node entry with `COMITY_DAEMON_FAILED` set where the daemon
 * took it and did not answer: the entry then does what this client does in that case (fail open, end that daemon),
 * so that the rule is written once. Null where the variable is not set.
 */
function daemonFailedFor(env: Readonly<Record<string, string | undefined>>): string | null {
  const reason = env["COMITY_DAEMON_FAILED"];
  if (reason === undefined || reason === "") return null;
  const socket = daemonSocketFor(env);
  return `the daemon did not answer (${reason}): ${socket === null ? "no socket here" : endStuckDaemon(socket)}`;
}

/**
 * The native client (`comity-hook`) hands an event to the Node entry with `COMITY_DAEMON_STOPPED` set where the
 * daemon's process is stopped: the entry ends it here (the rule of which process may be ended is written once, in
 * {@link endStuckDaemon}) and runs the event itself. What it did, or null where the variable is not set.
 */
function daemonStoppedFor(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env["COMITY_DAEMON_STOPPED"] === undefined || env["COMITY_DAEMON_STOPPED"] === "") return null;
  const socket = daemonSocketFor(env);
  return `the daemon's process is stopped: ${socket === null ? "no socket here" : endStuckDaemon(socket)}`;
}

/**
 * Why the daemon beside `socket` will never answer, where its process is stopped (state T or t in `/proc/PID/stat`:
 * SIGSTOP, a debugger); else null, also where the platform cannot tell.
 */
function daemonStopped(socket: string): string | null {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(pidFile(socket), "utf8"), 10);
  } catch {
    return null;
  }
  const state = procStat(pid)?.state;
  return state === "T" || state === "t" ? `the daemon's process is stopped (pid ${pid}, state ${state})` : null;
}

/** The variables that shape what `comity analyze` prints (its config, git's, colour), part of its question's key. */
function analyzeEnvOf(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(env).sort()) {
    const v = env[k];
    if (v !== undefined && (/^(GIT_|COMITY_)/.test(k) || ["HOME", "XDG_CONFIG_HOME", "NO_COLOR", "PATH"].includes(k))) out[k] = v;
  }
  return out;
}

/** What `comity analyze` got from the daemon: its answer, or how to store the one it makes (and whether to start it). */
type AnalyzeThroughDaemon =
  | { readonly stdout: string; readonly code: number }
  | { readonly store: ((stdout: string, code: number, roots: readonly string[]) => Promise<void>) | null; readonly startDaemon: boolean };

/**
 * `comity analyze` through the daemon: its answer when the daemon kept one and nothing it read changed since;
 * else a function that hands it the answer made here. Asked only where the answer is all on stdout (not with
 * `--timings`) and reads only the folder and its git folders (not with `--follow-symlinks`).
 */
async function analyzeThroughDaemon(args: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string, stdoutIsTTY: boolean): Promise<AnalyzeThroughDaemon> {
  const socket = daemonSocketFor(env);
  if (socket === null || args.some((a) => ["--help", "-h", "--timings", "--follow-symlinks"].includes(a))) return { store: null, startDaemon: false };
  const key = JSON.stringify({ args, cwd, tty: stdoutIsTTY, env: analyzeEnvOf(env) });
  const build = installedBuild();
  const answer = await callDaemon(socket, { kind: "analyze", build, key }, { connectMs: 200, answerMs: 1000 });
  if ("miss" in answer) return { store: null, startDaemon: answer.miss === "absent" };
  if (answer.kind === "analyze") return { stdout: answer.stdout, code: answer.code };
  if (answer.kind !== "analyze-miss" || answer.token === null) return { store: null, startDaemon: answer.kind === "stale" };
  const token = answer.token;
  return {
    store: async (stdout, code, roots) => {
      await callDaemon(socket, { kind: "analyze-store", build, key, token, stdout, code, roots }, { connectMs: 200, answerMs: 1000 });
    },
    startDaemon: false,
  };
}

/**
 * `comity status`, `who` or a small `symbols` run in the daemon (`args`: the command first): what it printed and its
 * exit code; or, where it must run here (no daemon, another build, busy, `--web`, `--help`, a large `symbols`), whether
 * to start one.
 */
async function commandThroughDaemon(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  tty: boolean,
): Promise<{ readonly stdout: string; readonly stderr: string; readonly code: number } | { readonly startDaemon: boolean }> {
  const socket = daemonSocketFor(env);
  if (socket === null || !DAEMON_COMMANDS.includes(args[0] ?? "") || args.some((a) => ["--web", "--help", "-h"].includes(a))) return { startDaemon: false };
  // The parser the daemon uses is its own (COMITY_FLAT_PARSER is read once per process).
  if (
    args[0] === "symbols" &&
    (args.some((a) => a === "--jobs" || a.startsWith("--jobs=")) || args.filter((a) => !a.startsWith("-")).length - 1 > DAEMON_SYMBOLS_MAX_FILES || env["COMITY_FLAT_PARSER"] !== undefined)
  )
    return { startDaemon: false };
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v;
  const answer = await callDaemon(socket, { kind: "cli", build: installedBuild(), args, cwd, env: defined, tty }, { connectMs: 200, answerMs: DAEMON_ANSWER_MS });
  if ("miss" in answer) return { startDaemon: answer.miss === "absent" };
  if (answer.kind === "cli") return { stdout: answer.stdout, stderr: answer.stderr, code: answer.code };
  return { startDaemon: answer.kind === "stale" };
}

/** How long after one hook started the daemon no other hook starts it again (it is starting, or cannot start). */
const START_AGAIN_AFTER_MS = 10_000;

/**
 * Starts `comity daemon run` in the background for the next events; the hook does not wait for it. At most once every
 * few seconds (a mark beside the socket): hooks that run at once start one daemon, and one that cannot start is not
 * tried again at every event.
 */
function startDaemonInBackground(bin: string, env: Readonly<Record<string, string | undefined>>, options: { force?: boolean } = {}): void {
  const socket = daemonSocketFor(env);
  if (socket === null) return;
  const mark = startingMark(socket);
  try {
    if (options.force !== true && Date.now() - fs.statSync(mark).mtimeMs < START_AGAIN_AFTER_MS) return;
  } catch {
    // no mark: start it
  }
  try {
    fs.mkdirSync(path.dirname(mark), { recursive: true, mode: 0o700 });
    fs.writeFileSync(mark, "", { mode: 0o600 });
  } catch {
    return; // a config folder that cannot be written to has no socket either
  }
  try {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    // The terminal of the hook that starts it is that hook's host's, not the daemon's (its http events have none).
    const { COMITY_HOST_TTY: _tty, ...daemonEnv } = env;
    const child = spawn(process.execPath, [bin, "daemon", "run"], { detached: true, stdio: "ignore", env: { ...daemonEnv } as NodeJS.ProcessEnv, cwd: os.homedir() });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // the next event tries again
  }
}

/** The mark a hook leaves when it starts the daemon; the daemon removes it once it listens. */
function startingMark(socket: string): string {
  return `${socket}.starting`;
}

/** Where a running daemon writes its pid (removed when it ends). */
function pidFile(socket: string): string {
  return `${socket}.pid`;
}

/**
 * Ends the daemon whose pid is beside `socket`, if that process is a `comity daemon run` (its command line says so;
 * where the platform cannot tell, it is left alone), and removes its socket. Says what it did.
 */
function endStuckDaemon(socket: string): string {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(pidFile(socket), "utf8"), 10);
  } catch {
    return "no pid beside its socket, left as it is";
  }
  if (!Number.isInteger(pid) || pid <= 1) return "no pid beside its socket, left as it is";
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return `pid ${pid} left as it is (its command line cannot be read here)`;
  }
  const isDaemon = args.some((a) => /(^|[/\\])comity(\.c?js)?$/.test(a)) && args.includes("daemon") && args.includes("run");
  if (!isDaemon) return `pid ${pid} is not a comity daemon: left as it is`;
  try {
    process.kill(pid, "SIGKILL");
    fs.rmSync(socket, { force: true });
    fs.rmSync(pidFile(socket), { force: true });
    return `ended it (pid ${pid}); the next event starts a new one`;
  } catch (error) {
    return `could not end pid ${pid}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export = {
  DAEMON_ANSWER_MS,
  DAEMON_STOPPED_CHECK_MS,
  DAEMON_COMMANDS,
  DAEMON_SYMBOLS_MAX_BYTES,
  commandThroughDaemon,
  analyzeThroughDaemon,
  DAEMON_SOCKET_FILE,
  MAX_DAEMON_REQUEST_BYTES,
  buildId,
  callDaemon,
  daemonSocket,
  daemonFailedFor,
  daemonSocketFor,
  daemonStopped,
  daemonStoppedFor,
  endStuckDaemon,
  hookThroughDaemon,
  installedBuild,
  installedBuildAt,
  pidFile,
  serveMcpThroughDaemon,
  startDaemonInBackground,
  startingMark,
};
