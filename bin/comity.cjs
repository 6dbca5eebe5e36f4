#!/usr/bin/env node
"use strict";
// CommonJS: a hook through the daemon loads this file and one small CommonJS client, nothing else of Comity, and
// an ES module entry alone would cost more than the rest of such a hook (the full CLI is imported below).
const { appendFileSync, mkdirSync } = require("node:fs");
const { homedir } = require("node:os");
const { join, resolve } = require("node:path");

// `comity hook` must exit 0 whatever happens: a host reads exit 2 as "block" (Claude Code blocks the tool, or the
// user's prompt). So its guard is set up here, before anything else loads, with nothing but Node's own modules: a
// `dist/` module missing (an upgrade half done), no file descriptors left, an exception or a rejection nobody caught,
// a hang past the host's timeout. Each prints nothing, adds one line to hook.log and exits 0.
const hook = process.argv[2] === "hook";
/** Stdin, read once: the daemon's path and the in-process path may both need it. */
let stdinRead = null;
/**
 * A hook's whole run ends by then, inside the timeout its host gives it: 5 s before a tool, at a prompt and at a
 * session's start; 10 s after a tool and at a turn's or session's end (the timeouts `comity init` writes). An event
 * after a tool that waits its turn for the store under load (many hooks at once on few cores) is then answered, not
 * dropped at 4.8 s.
 */
const AFTER_EVENTS = new Set(["PostToolUse", "Stop", "postToolUse", "agentStop", "afterFileEdit", "afterShellExecution", "stop", "tool.post_call", "session.pre_stop", "session.post_stop"]);
const eventArg = process.argv.indexOf("--event") > 0 ? process.argv[process.argv.indexOf("--event") + 1] : undefined;
const HOOK_WATCHDOG_MS = AFTER_EVENTS.has(eventArg) ? 9500 : 4800;
/** When the watchdog ends this hook (epoch ms): the hook waits its turn for the store until a little before. */
let hookEndsAt;

function failOpen(reason) {
  try {
    const env = process.env;
    const dir = env.COMITY_CONFIG_DIR ? resolve(env.COMITY_CONFIG_DIR) : join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "comity");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const at = (name) => (process.argv.indexOf(name) > 0 ? String(process.argv[process.argv.indexOf(name) + 1] ?? "?") : "?");
    const clean = (s) =>
      String(s)
        .replace(/[\t\r\n]+/g, " ")
        .slice(0, 300);
    appendFileSync(join(dir, "hook.log"), `${new Date().toISOString()}\tfail-open\t${clean(at("--tool"))}\t${clean(at("--event"))}\t${clean(reason)}\n`, { mode: 0o600 });
  } catch {
    // nothing more can be done quietly
  }
  process.exit(0);
}

if (hook) {
  // The host's terminal, for the label other agents see (src/hook/host-terminal.cts); the native client sets it too.
  if (process.env.COMITY_HOST_TTY === undefined) {
    try {
      const tty = require("../dist/hook/host-terminal.cjs").hostTerminal(process.ppid);
      if (tty !== null) process.env.COMITY_HOST_TTY = tty;
    } catch {
      // an install without it: the label is the host name alone
    }
  }
  const why = (error) => `internal error: ${error instanceof Error ? error.message : String(error)}`;
  process.on("uncaughtException", (error) => failOpen(why(error)));
  process.on("unhandledRejection", (error) => failOpen(why(error)));
  setTimeout(() => failOpen(`the hook ran past ${HOOK_WATCHDOG_MS} ms and was ended`), HOOK_WATCHDOG_MS).unref();
  hookEndsAt = Date.now() + HOOK_WATCHDOG_MS;
}

function readStdinOnce() {
  stdinRead ??= readStdin();
  return stdinRead;
}

/** All of stdin, up to a bound (a hook payload over it fails open without being held whole). */
async function readStdin(limit = 5 * 1024 * 1024) {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > limit) {
      chunks.push(chunk.subarray(0, 1));
      process.stdin.destroy();
      return "x".repeat(limit + 1);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function main() {
  // The hook's thin path: the per-user daemon (`comity daemon`) has Comity loaded, so ask it first; its client loads
  // node:net and a few small modules. Where it is not running (or is of another build), the event runs here as
  // before and the daemon is started for the next one; where it took the event and does not answer, the hook fails
  // open rather than run the event again with no time left.
  let daemonClient = null;
  let startDaemon = false;
  const asksForHelp = process.argv.includes("--help") || process.argv.includes("-h") || (process.argv.length === 3 && process.stdin.isTTY === true);
  if (hook && !asksForHelp && process.env.COMITY_DAEMON !== "off") {
    try {
      daemonClient = require("../dist/daemon/daemon-client.cjs");
    } catch {
      daemonClient = null; // the full load below reports what is missing
    }
    if (daemonClient !== null) {
      const failed = daemonClient.daemonFailedFor(process.env);
      if (failed !== null) failOpen(failed);
      // The native client found the daemon's process stopped: it is ended here, and the event runs below (no daemon
      // answers now) and starts a new one. The variable is the client's word to this process, not the daemon's.
      if (daemonClient.daemonStoppedFor(process.env) !== null) delete process.env.COMITY_DAEMON_STOPPED;
      const through = await daemonClient.hookThroughDaemon(process.argv.slice(3), await readStdinOnce(), process.env, process.cwd());
      if ("stdout" in through) {
        process.stdout.on("error", () => process.exit(0));
        process.stdout.write(through.stdout, () => process.exit(0));
        await new Promise(() => undefined);
      }
      if ("failOpen" in through) failOpen(through.failOpen);
      startDaemon = through.startDaemon;
    }
  }

  // `comity mcp` (a host starts it at every session start): where the daemon runs, each message goes to the server
  // there, and nothing of the server is loaded here; where the daemon does not take the first one, the server runs
  // here from that message on.
  let mcpStdin = process.stdin;
  const mcpArgs = process.argv.slice(3);
  if (process.argv[2] === "mcp" && !asksForHelp && process.env.COMITY_DAEMON !== "off" && (mcpArgs.length === 0 || (mcpArgs.length === 2 && mcpArgs[0] === "--host"))) {
    try {
      daemonClient = require("../dist/daemon/daemon-client.cjs");
    } catch {
      daemonClient = null;
    }
    if (daemonClient !== null) {
      const through = await daemonClient.serveMcpThroughDaemon({ stdin: process.stdin, stdout: process.stdout, env: process.env, cwd: process.cwd(), host: mcpArgs[1] ?? null });
      if (!("fallback" in through)) {
        process.stdout.write("", () => process.exit(0));
        await new Promise(() => undefined);
      }
      const rest = new (require("node:stream").PassThrough)();
      rest.write(through.fallback);
      if (through.ended) rest.end();
      else process.stdin.pipe(rest);
      mcpStdin = rest;
      startDaemon = through.startDaemon;
    }
  }

  // `comity status`, `who` and a small `symbols` run in the daemon where it runs (it has Comity loaded and the store
  // open); `comity analyze` asks it first: a folder it watches and that did not change since its last analysis is
  // answered from memory, otherwise the analysis runs here and is handed to the daemon for next time. Other commands
  // do not load its client.
  let analyzeCache;
  let daemonCommands = [];
  try {
    daemonCommands = hook ? [] : require("../dist/daemon/daemon-commands.cjs").DAEMON_COMMANDS;
  } catch {
    // the full load below reports what is missing
  }
  const command = process.argv[2];
  if (!hook && process.env.COMITY_DAEMON !== "off" && (command === "analyze" || daemonCommands.includes(command))) {
    try {
      daemonClient = require("../dist/daemon/daemon-client.cjs");
    } catch {
      daemonClient = null;
    }
    const tty = process.stdout.isTTY === true;
    const through =
      daemonClient === null
        ? null
        : command === "analyze"
          ? await daemonClient.analyzeThroughDaemon(process.argv.slice(3), process.env, process.cwd(), tty)
          : await daemonClient.commandThroughDaemon(process.argv.slice(2), process.env, process.cwd(), tty);
    if (through !== null && "stdout" in through) {
      process.stderr.write(through.stderr ?? "");
      process.stdout.on("error", () => process.exit(through.code));
      process.stdout.write(through.stdout, () => process.exit(through.code));
      await new Promise(() => undefined);
    }
    if (through !== null) {
      if (through.store) analyzeCache = { store: through.store };
      startDaemon = through.startDaemon;
    }
  }

  let runCli;
  try {
    ({ runCli } = await import("../dist/cli-bundle/main.js"));
  } catch (error) {
    if (hook) failOpen(`comity could not load (${error instanceof Error ? error.message : String(error)}): reinstall it`);
    throw error;
  }

  // The commands that extract the symbols of many files run for seconds: for them, TurboFan's inlining costs more
  // compiling (on V8's background threads, beside the parse workers on the same cores) than the inlined code gains
  // back (benchmarks/README.md, "no inlining"). Set before any code is hot, and only there: a hook has no need to load
  // `node:v8`, and `serve` runs for days.
  if (process.argv[2] === "symbols" || process.argv[2] === "analyze") require("node:v8").setFlagsFromString("--no-turbo-inlining");

  // A reader that stops early (`comity ... | head`) is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error) => {
      if (error.code === "EPIPE") process.exit(hook ? 0 : (process.exitCode ?? 0));
      if (hook) failOpen(`cannot write its answer: ${error.message}`);
      throw error;
    });
  }

  let code;
  try {
    code = await runCli(process.argv.slice(2), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
      stdinIsTTY: process.stdin.isTTY === true,
      readStdin: readStdinOnce,
      stdio: { stdin: mcpStdin, stdout: process.stdout },
      ...(analyzeCache === undefined ? {} : { analyzeCache }),
      ...(hookEndsAt === undefined ? {} : { hookEndsAt }),
    });
  } catch (error) {
    if (hook) failOpen(`internal error: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
  if (hook) code = 0;
  if (startDaemon) daemonClient?.startDaemonInBackground(__filename, process.env);
  // Exit as soon as the output is flushed: an idle keep-alive socket or worker must not hold the process
  // (a hook's host is waiting on it).
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

main().catch((error) => {
  if (hook) failOpen(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  throw error;
});
