import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import { configDir } from "../config/config-dir.js";
import { CLI_VERSION } from "../version.js";
import { callDaemon } from "./call-daemon.js";
import { buildId, daemonSocket } from "./daemon-wire.js";

/** What the hook's thin path got: the daemon's answer, or why it must run the event itself. */
export type ThroughDaemon = { readonly stdout: string } | { readonly runHere: string; readonly startDaemon: boolean } | { readonly failOpen: string };

/**
 * How long the daemon may take to answer an event before the hook gives up on it: inside the hosts' 5 s, leaving
 * the watchdog's margin. Past it the hook fails open rather than run the event again with no time left.
 */
export const DAEMON_ANSWER_MS = 3500;

/** The build of the CLI installed beside this module, as the daemon compares it. */
export function installedBuild(): string {
  let mtime = 0;
  try {
    mtime = statSync(fileURLToPath(new URL("../cli/main.js", import.meta.url))).mtimeMs;
  } catch {
    // a build without its main module cannot run anyway
  }
  return buildId(CLI_VERSION, mtime);
}

/** Whether hooks go through the daemon: unless `COMITY_DAEMON=off`, and where a socket can be made. */
export function daemonSocketFor(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env["COMITY_DAEMON"] === "off") return null;
  return daemonSocket(configDir(env, env["HOME"] ?? os.homedir()));
}

/**
 * One hook event through the per-user daemon (`bin/comity.js` calls this before it loads the rest of Comity). Only
 * node:net and a few small modules are loaded here: the point is to start nothing the daemon already has.
 */
export async function hookThroughDaemon(args: readonly string[], stdin: string, env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<ThroughDaemon> {
  const socket = daemonSocketFor(env);
  if (socket === null) return { runHere: "daemon off", startDaemon: false };
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v;
  const answer = await callDaemon(socket, { kind: "hook", build: installedBuild(), args, cwd, env: defined, stdin }, { connectMs: 200, answerMs: DAEMON_ANSWER_MS });
  if ("miss" in answer) {
    if (answer.miss === "absent") return { runHere: answer.reason, startDaemon: true };
    // It took the event and gave nothing back in time: stuck. It is ended, so that the next event starts a new one
    // instead of waiting on it too; this one has no time left to run, and fails open.
    return { failOpen: `the daemon did not answer (${answer.reason}): ${endStuckDaemon(socket)}` };
  }
  if (answer.kind === "hook") return { stdout: answer.stdout };
  if (answer.kind === "stale") return { runHere: "the daemon was of another build", startDaemon: true };
  if (answer.kind === "busy") return { runHere: "the daemon was busy", startDaemon: false };
  return { runHere: `the daemon answered ${answer.kind}`, startDaemon: false };
}

/** How long after one hook started the daemon no other hook starts it again (it is starting, or cannot start). */
const START_AGAIN_AFTER_MS = 10_000;

/**
 * Starts `comity daemon run` in the background for the next events; the hook does not wait for it. At most once every
 * few seconds (a mark beside the socket): hooks that run at once start one daemon, and one that cannot start is not
 * tried again at every event.
 */
export function startDaemonInBackground(bin: string, env: Readonly<Record<string, string | undefined>>, options: { force?: boolean } = {}): void {
  const socket = daemonSocketFor(env);
  if (socket === null) return;
  const mark = startingMark(socket);
  try {
    if (options.force !== true && Date.now() - statSync(mark).mtimeMs < START_AGAIN_AFTER_MS) return;
  } catch {
    // no mark: start it
  }
  try {
    mkdirSync(path.dirname(mark), { recursive: true, mode: 0o700 });
    writeFileSync(mark, "", { mode: 0o600 });
  } catch {
    return; // a config folder that cannot be written to has no socket either
  }
  try {
    const child = spawn(process.execPath, [bin, "daemon", "run"], { detached: true, stdio: "ignore", env: { ...env } as NodeJS.ProcessEnv, cwd: os.homedir() });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // the next event tries again
  }
}

/** The mark a hook leaves when it starts the daemon; the daemon removes it once it listens. */
export function startingMark(socket: string): string {
  return `${socket}.starting`;
}

/** Where a running daemon writes its pid (removed when it ends). */
export function pidFile(socket: string): string {
  return `${socket}.pid`;
}

/**
 * Ends the daemon whose pid is beside `socket`, if that process is a `comity daemon run` (its command line says so;
 * where the platform cannot tell, it is left alone), and removes its socket. Says what it did.
 */
export function endStuckDaemon(socket: string): string {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile(socket), "utf8"), 10);
  } catch {
    return "no pid beside its socket, left as it is";
  }
  if (!Number.isInteger(pid) || pid <= 1) return "no pid beside its socket, left as it is";
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return `pid ${pid} left as it is (its command line cannot be read here)`;
  }
  const isDaemon = args.some((a) => /(^|[/\\])comity(\.js)?$/.test(a)) && args.includes("daemon") && args.includes("run");
  if (!isDaemon) return `pid ${pid} is not a comity daemon: left as it is`;
  try {
    process.kill(pid, "SIGKILL");
    rmSync(socket, { force: true });
    rmSync(pidFile(socket), { force: true });
    return `ended it (pid ${pid}); the next event starts a new one`;
  } catch (error) {
    return `could not end pid ${pid}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
