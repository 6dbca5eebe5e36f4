import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import daemonClient from "../../src/daemon/daemon-client.cjs";
import { parseCall } from "../../src/daemon/start-daemon-server.js";
import type { DaemonCall } from "../../src/daemon/daemon-wire.js";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog } from "../helpers/hook-fixture.js";
import { hookClientProblem, runHookClientAsync } from "../helpers/run-cli.js";

// The native hook client's side of the daemon's wire, against a daemon of the test's own making: what it sends is
// what the Node client would send (the daemon's own parser reads it), what it prints is the answer's stdout byte for
// byte, and whatever it cannot answer goes to the Node entry, which decides as it does for `comity hook`.

let sb: Sandbox;
let config: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  config = path.join(sb.dir, "cfg");
  fs.mkdirSync(config, { mode: 0o700 });
  const { COMITY_DAEMON: _off, ...rest } = sb.env;
  env = { ...rest, COMITY_CONFIG_DIR: config, COMITY_API_URL: "off" };
});
afterEach(() => sb.cleanup());

/** A daemon that answers each call with `answer(call)` (a line, or null for none), and remembers the calls. */
async function fakeDaemon(
  answer: (call: DaemonCall | null, raw: Buffer) => string | null,
  socket = path.join(config, "daemon.sock"),
): Promise<{ calls: Array<DaemonCall | null>; raws: Buffer[]; close(): Promise<void> }> {
  const calls: Array<DaemonCall | null> = [];
  const raws: Buffer[] = [];
  const server = net.createServer((conn) => {
    const chunks: Buffer[] = [];
    conn.on("data", (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf(10);
      if (end < 0) return;
      const raw = all.subarray(0, end + 1);
      raws.push(raw);
      const call = parseCall(raw.toString("utf8"));
      calls.push(call);
      const line = answer(call, raw);
      if (line !== null) conn.end(line);
    });
    conn.on("error", () => undefined);
  });
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { calls, raws, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const hookAnswer = (stdout: string) => `${JSON.stringify({ kind: "hook", stdout })}\n`;

describe.skipIf(hookClientProblem() !== null)("comity-hook, the native client, on the daemon's wire", () => {
  it("sends its arguments, folder, environment and stdin as the daemon reads them, and prints the answer's stdout byte for byte", async () => {
    let stdout = "";
    const daemon = await fakeDaemon(() => hookAnswer(stdout));
    try {
      // Any text: quotes, backslashes, control characters, astral and lone-surrogate code points (Node writes a lone
      // surrogate as U+FFFD, and so must the client).
      const text = fc.string({ unit: "binary", maxLength: 200 });
      await fc.assert(
        fc.asyncProperty(text, text, text, fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }), async (input, value, answer, arg) => {
          stdout = answer;
          const args = ["--tool", "codex", "--event", "PreToolUse", arg.replace(/\0/g, "")];
          const r = await runHookClientAsync(args, { cwd: sb.dir, env: { ...env, COMITY_TEST_VALUE: value.replace(/\0/g, "") }, input });
          expect(r).toMatchObject({ status: 0, stdout: Buffer.from(answer, "utf8").toString("utf8") });
          const call = daemon.calls.at(-1);
          expect(call).toMatchObject({
            kind: "hook",
            build: daemonClient.installedBuild(),
            args: args.map((a) => Buffer.from(a, "utf8").toString("utf8")),
            cwd: fs.realpathSync(sb.dir),
            stdin: Buffer.from(input, "utf8").toString("utf8"),
          });
          expect((call as { env: Record<string, string> }).env["COMITY_TEST_VALUE"]).toBe(Buffer.from(value.replace(/\0/g, ""), "utf8").toString("utf8"));
        }),
        { numRuns: 40 },
      );
      // Bytes that are not UTF-8 reach the daemon as Node would have decoded them.
      const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0xc3, 0x5c, 0x0a, 0xe2, 0x82]);
      await runHookClientAsync(["--tool", "codex"], { cwd: sb.dir, env, input: bytes });
      expect((daemon.calls.at(-1) as { stdin: string }).stdin).toBe(bytes.toString("utf8"));
      expect(readHookLog(config)).toEqual([]);
    } finally {
      await daemon.close();
    }
  }, 60_000);

  it("finds the daemon's socket where the Node client finds it: under XDG_CONFIG_HOME, HOME, or a hidden config folder", async () => {
    const { COMITY_CONFIG_DIR: _dir, ...base } = env;
    const places: Array<[NodeJS.ProcessEnv, string]> = [
      [{ ...base, XDG_CONFIG_HOME: path.join(sb.dir, "h1", ".config") }, path.join(sb.dir, "h1", ".config", "comity", "daemon.sock")],
      [{ ...base, XDG_CONFIG_HOME: `${path.join(sb.dir, "h2", ".config")}/` }, path.join(sb.dir, "h2", ".config", "comity", "daemon.sock")],
      [{ ...base, HOME: path.join(sb.dir, "h3") }, path.join(sb.dir, "h3", ".config", "comity", "daemon.sock")],
      [{ ...base, COMITY_CONFIG_DIR: path.join(sb.dir, ".hidden-cfg") }, path.join(sb.dir, ".hidden-cfg", "daemon.sock")],
    ];
    for (const [where, socket] of places) {
      expect(daemonClient.daemonSocketFor(where)).toBe(socket);
      const daemon = await fakeDaemon(() => hookAnswer("here"), socket);
      try {
        const r = await runHookClientAsync(["--tool", "codex", "--event", "Stop"], { cwd: sb.dir, env: where, input: "{}" });
        expect(r, socket).toMatchObject({ status: 0, stdout: "here" });
        // The native client's own call (it names its package; the Node entry's fallback would name its build).
        expect(daemon.raws.map((b) => JSON.parse(b.toString("utf8")).root)).toEqual([path.resolve(import.meta.dirname, "../..")]);
      } finally {
        await daemon.close();
      }
    }
  });

  it("hands a busy daemon's event to the Node entry, which runs it; COMITY_DAEMON=off never calls the daemon", async () => {
    const daemon = await fakeDaemon(() => `${JSON.stringify({ kind: "busy" })}\n`);
    try {
      const input = JSON.stringify({ session_id: "s", cwd: sb.dir, hook_event_name: "Stop" });
      const r = await runHookClientAsync(["--tool", "codex", "--event", "Stop"], { cwd: sb.dir, env, input });
      expect(r.status).toBe(0);
      // Its own call, then the Node client's: busy again, so the event ran in that process.
      expect(daemon.calls).toHaveLength(2);
      expect(daemon.calls[1]).toMatchObject({ kind: "hook", args: ["--tool", "codex", "--event", "Stop"], stdin: input });
      const off = await runHookClientAsync(["--tool", "codex", "--event", "Stop"], { cwd: sb.dir, env: { ...env, COMITY_DAEMON: "off" }, input });
      expect(off.status).toBe(0);
      expect(daemon.calls).toHaveLength(2);
      expect(readHookLog(config)).toEqual([]);
    } finally {
      await daemon.close();
    }
  });

  it("a daemon that answers garbage or nothing: the hook fails open through the Node entry (which ends a stuck daemon), exit 0, nothing printed", async () => {
    const garbage = await fakeDaemon(() => "not json\n");
    const input = JSON.stringify({ session_id: "s", cwd: sb.dir, hook_event_name: "Stop" });
    try {
      const r = await runHookClientAsync(["--tool", "codex", "--event", "Stop"], { cwd: sb.dir, env, input });
      expect(r).toMatchObject({ status: 0, stdout: "" });
      expect(garbage.calls).toHaveLength(1);
    } finally {
      await garbage.close();
    }
    const silent = await fakeDaemon(() => null);
    try {
      const r = await runHookClientAsync(["--tool", "codex", "--event", "Stop"], { cwd: sb.dir, env, input });
      // It ended by its own deadline (the hook.log line below says which), not by the test's.
      expect(r).toMatchObject({ status: 0, stdout: "" });
    } finally {
      await silent.close();
    }
    expect(readHookLog(config)).toEqual([
      expect.stringMatching(/\tfail-open\tcodex\tStop\tthe daemon did not answer \(an answer that is not JSON\): no pid beside its socket, left as it is$/),
      expect.stringMatching(/\tfail-open\tcodex\tStop\tthe daemon did not answer \(no answer within 3500 ms\): no pid beside its socket, left as it is$/),
    ]);
  }, 20_000);

  it("a host that never closes stdin: exit 0 inside the hosts' 5 s, nothing printed, one line in hook.log", async () => {
    const daemon = await fakeDaemon(() => hookAnswer("never"));
    try {
      const r = await runHookClientAsync(["--tool", "codex", "--event", "PreToolUse"], { cwd: sb.dir, env, input: "{", keepStdinOpen: true });
      expect(r).toMatchObject({ status: 0, stdout: "" });
      expect(daemon.calls).toHaveLength(0);
      expect(readHookLog(config)).toEqual([expect.stringMatching(/\tfail-open\tcodex\tPreToolUse\tthe hook ran past 4000 ms reading its stdin and was ended$/)]);
    } finally {
      await daemon.close();
    }
  }, 20_000);
});
