import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import daemonClient from "../../src/daemon/daemon-client.cjs";
import type { HookCall } from "../../src/daemon/daemon-wire.js";
import { startDaemonServer, type DaemonServer, type HookAnswer } from "../../src/daemon/start-daemon-server.js";
import { ComityError } from "../../src/errors/comity-error.js";

const { MAX_DAEMON_REQUEST_BYTES, callDaemon } = daemonClient;

let dir: string;
let socket: string;
const servers: DaemonServer[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-daemon-"));
  fs.chmodSync(dir, 0o700);
  socket = path.join(dir, "daemon.sock");
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close("test over");
  fs.rmSync(dir, { recursive: true, force: true });
});

const call = (extra: Partial<HookCall> = {}): HookCall => ({ kind: "hook", build: "b1", args: ["--tool", "codex"], cwd: "/w", env: { HOME: "/h" }, stdin: "{}", ...extra });
const limits = { connectMs: 500, answerMs: 2000 };
async function start(options: { runHook?: (c: HookCall) => Promise<string | HookAnswer>; maxWaiting?: number; idleMs?: number; elapsedClock?: () => number } = {}): Promise<DaemonServer> {
  const s = await startDaemonServer({
    socket,
    build: "b1",
    idleMs: options.idleMs ?? 60_000,
    runHook: options.runHook ?? (async (c) => `ran ${c.args.join(" ")} in ${c.cwd} with ${c.stdin}`),
    ...(options.maxWaiting === undefined ? {} : { maxWaiting: options.maxWaiting }),
    ...(options.elapsedClock === undefined ? {} : { elapsedClock: options.elapsedClock }),
  });
  servers.push(s);
  return s;
}
/** Sends raw bytes and reads the answer line. */
function raw(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const conn = net.createConnection(socket);
    let text = "";
    conn.on("data", (c) => (text += c.toString()));
    conn.on("close", () => resolve(text));
    conn.on("error", () => resolve(text));
    conn.end(bytes);
  });
}

describe("the daemon's server", () => {
  it("answers a hook call with what the event printed, one at a time, and counts it", async () => {
    let running = 0;
    let most = 0;
    const s = await start({
      runHook: async (c) => {
        most = Math.max(most, ++running);
        // Held across a turn of the event loop, where another call could start if the daemon let it.
        await new Promise((r) => setImmediate(r));
        running--;
        return c.stdin;
      },
    });
    const answers = await Promise.all([1, 2, 3, 4].map((i) => callDaemon(socket, call({ stdin: `e${i}` }), limits)));
    expect(answers).toEqual([1, 2, 3, 4].map((i) => ({ kind: "hook", stdout: `e${i}` })));
    // Events of one session must not interleave: they run one after another.
    expect(most).toBe(1);
    expect(s.status()).toMatchObject({ served: 4, build: "b1", pid: process.pid });
  });

  it("runs what an event left for after its answer before the next event, and answers each with its own stdout", async () => {
    const log: string[] = [];
    await start({
      runHook: async (c) => {
        log.push(`run ${c.stdin}`);
        return { stdout: `answer ${c.stdin}`, after: () => log.push(`after ${c.stdin}`) };
      },
    });
    const answers = await Promise.all([1, 2, 3].map((i) => callDaemon(socket, call({ stdin: `e${i}` }), limits)));
    expect(answers).toEqual([1, 2, 3].map((i) => ({ kind: "hook", stdout: `answer e${i}` })));
    // The next event reads what the one before wrote after its answer (its session's state): never in between.
    await expect.poll(() => log.length).toBe(6);
    expect(log).toEqual(["run e1", "after e1", "run e2", "after e2", "run e3", "after e3"]);
  });

  it("reports per event the events answered and the time to answer them, the folders and its memory", async () => {
    // Each event takes, on the clock the daemon measures with, 40 ms when "slow" and 1 ms otherwise.
    let clock = 0;
    const s = await start({
      elapsedClock: () => clock,
      runHook: async (c) => {
        clock += c.stdin === "slow" ? 40 : 1;
        return "";
      },
    });
    for (const stdin of ["a", "b", "slow"]) await callDaemon(socket, call({ args: ["--tool", "codex", "--event", "PreToolUse"], stdin }), limits);
    await callDaemon(socket, call({ args: ["--tool", "claude_code", "--event", "Stop"], cwd: "/other" }), limits);
    const st = s.status();
    expect(Object.keys(st.events)).toEqual(["claude_code Stop", "codex PreToolUse"]);
    expect(st.events["codex PreToolUse"]?.count).toBe(3);
    expect(st.events["codex PreToolUse"]?.p50Ms).toBe(1);
    expect(st.events["codex PreToolUse"]?.p99Ms).toBe(40);
    expect(st.folders).toBe(2);
    expect(st.rssBytes).toBeGreaterThan(0);
    const { statusDetail } = await import("../../src/cli/commands/daemon.js");
    const shown = statusDetail(st, Date.parse(st.startedAt) + 90_000);
    expect(shown).toContain("version b1, up 2 min");
    expect(shown).toMatch(/codex PreToolUse\s+3\s+\d+\.\d\s+\d+\.\d/);
  });

  it("listens on a socket only its user can open, and serves only its wire", async () => {
    await start();
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await raw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n\r\n"))).toEqual({ kind: "refused", reason: "not a call of the daemon's wire" });
    expect(JSON.parse(await raw(`${JSON.stringify({ kind: "shell", build: "b1", command: "rm -rf /" })}\n`))).toMatchObject({ kind: "refused" });
    expect(JSON.parse(await raw(`${JSON.stringify({ ...call(), env: { X: 1 } })}\n`))).toMatchObject({ kind: "refused" });
    const store = { kind: "analyze-store", build: "b1", key: "k", token: null, stdout: "", code: 0 };
    expect(JSON.parse(await raw(`${JSON.stringify({ ...store, roots: ["relative/path"] })}\n`))).toMatchObject({ kind: "refused" });
    expect(JSON.parse(await raw(`${JSON.stringify({ ...store, roots: ["/w"] })}\n`))).toEqual({ kind: "stored", stored: false }); // no cache in this daemon
    expect(JSON.parse(await raw(Buffer.alloc(MAX_DAEMON_REQUEST_BYTES + 10, 0x61)))).toEqual({ kind: "refused", reason: `request over ${MAX_DAEMON_REQUEST_BYTES} bytes` });
    expect(await callDaemon(socket, call(), limits)).toMatchObject({ kind: "hook" });
  });

  it("a call from another build is answered stale and the daemon ends, removing its socket", async () => {
    const s = await start();
    expect(await callDaemon(socket, call({ build: "b2" }), limits)).toEqual({ kind: "stale", build: "b1" });
    expect(await s.ended).toBe("another build called (b2)");
    expect(fs.existsSync(socket)).toBe(false);
  });

  it("tells the excess callers it is busy, so that they run their event themselves", async () => {
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const inside = new Promise<void>((r) => (entered = r));
    await start({
      maxWaiting: 1,
      runHook: async () => {
        entered();
        await gate;
        return "done";
      },
    });
    const first = callDaemon(socket, call(), limits);
    await inside;
    expect(await callDaemon(socket, call(), limits)).toEqual({ kind: "busy" });
    release();
    expect(await first).toEqual({ kind: "hook", stdout: "done" });
  });

  it("does not queue an event behind one that has run long: the caller runs its own (an edit never waits on a briefing)", async () => {
    let clock = 0;
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const inside = new Promise<void>((r) => (entered = r));
    servers.push(
      await startDaemonServer({
        socket,
        build: "b1",
        idleMs: 60_000,
        busyAfterMs: 250,
        now: () => clock,
        runHook: async (c) => {
          if (c.stdin === "slow") {
            entered();
            await gate;
          }
          return c.stdin;
        },
      }),
    );
    const slow = callDaemon(socket, call({ stdin: "slow" }), limits);
    await inside;
    clock = 100;
    const queued = callDaemon(socket, call({ stdin: "quick" }), limits);
    // (waits until the daemon has queued it: the slow one and this one)
    while (servers[0]?.status().waiting !== 2) await new Promise((r) => setImmediate(r));
    clock = 300;
    expect(await callDaemon(socket, call({ stdin: "late" }), limits)).toEqual({ kind: "busy" });
    release();
    expect(await slow).toEqual({ kind: "hook", stdout: "slow" });
    expect(await queued).toEqual({ kind: "hook", stdout: "quick" });
  });

  it("ends after an event that leaves it holding more memory than its bound, having answered it", async () => {
    const s = await startDaemonServer({ socket, build: "b1", idleMs: 60_000, maxRssBytes: 1, runHook: async () => "answered" });
    servers.push(s);
    expect(await callDaemon(socket, call(), limits)).toEqual({ kind: "hook", stdout: "answered" });
    expect(await s.ended).toMatch(/^memory \(\d+ MiB\)$/);
  });

  it("replaces a socket its daemon left behind, refuses to start beside a live one, ends when idle or stopped", async () => {
    fs.writeFileSync(socket, "");
    const s = await start({ idleMs: 50 });
    await expect(startDaemonServer({ socket, build: "b1", idleMs: 1000, runHook: async () => "" })).rejects.toSatisfy((e) => e instanceof ComityError && e.code === "DAEMON_RUNNING");
    expect(await s.ended).toBe("idle");
    const t = await start();
    expect(await callDaemon(socket, { kind: "stop", build: "b1" }, limits)).toEqual({ kind: "stopping" });
    expect(await t.ended).toBe("stopped");
    expect(await callDaemon(socket, call(), limits)).toMatchObject({ miss: "absent" });
  });
});
