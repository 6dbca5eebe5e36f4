import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import daemonClient from "../../src/daemon/daemon-client.cjs";
import {
  claudeHttpHooks,
  ENV_HEADER,
  ensureDaemonHttpConfig,
  envHeader,
  envHeaderTemplate,
  HTTP_HOOK_ENV,
  parseEnvHeader,
  headersAsSent,
  portIsFree,
  readDaemonHttpConfig,
  routeHttpHook,
  type DaemonHttpConfig,
} from "../../src/daemon/daemon-http.js";
import type { HookCall } from "../../src/daemon/daemon-wire.js";
import type { HttpHook } from "../../src/init/host-configs.js";
import { startDaemonServer, type DaemonServer } from "../../src/daemon/start-daemon-server.js";

const { MAX_DAEMON_REQUEST_BYTES, callDaemon } = daemonClient;

let dir: string;
const servers: DaemonServer[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-daemon-http-"));
  fs.chmodSync(dir, 0o700);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close("test over");
  fs.rmSync(dir, { recursive: true, force: true });
});

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
const SECRET = "ab".repeat(32);
const config = (port: number): DaemonHttpConfig => ({ port, secret: SECRET });
const echo = async (c: HookCall): Promise<string> => JSON.stringify({ args: c.args, cwd: c.cwd, pane: c.env["TMUX_PANE"] ?? null, stdin: c.stdin });

async function start(port: number, runHook: (c: HookCall) => Promise<string> = echo): Promise<DaemonServer> {
  const s = await startDaemonServer({
    socket: path.join(dir, "daemon.sock"),
    build: "b1",
    idleMs: 60_000,
    runHook,
    http: { config: config(port), baseEnv: { HOME: "/h", TMUX_PANE: "%daemon" }, hosts: ["claude_code"] },
  });
  servers.push(s);
  return s;
}

/** One request over a connection of its own, as a browser or a stranger could send it. */
function request(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: options.method ?? "POST", path: options.path ?? "/v1/hook/claude_code/PreToolUse", headers: options.headers ?? {}, agent: false },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body ?? "");
  });
}
const auth = { authorization: `Bearer ${SECRET}` };
const payload = JSON.stringify({ session_id: "s1", cwd: "/work/repo", hook_event_name: "PreToolUse", tool_name: "Edit" });

describe("routeHttpHook", () => {
  const req = (extra: Partial<Parameters<typeof routeHttpHook>[0]> = {}) => ({
    method: "POST",
    url: "/v1/hook/claude_code/PreToolUse",
    headers: { host: "127.0.0.1:4000", authorization: `Bearer ${SECRET}` },
    body: payload,
    ...extra,
  });
  const route = (r: ReturnType<typeof req>) => routeHttpHook(r, config(4000), "b1", { HOME: "/h", TMUX_PANE: "%0", COMITY_TOKEN: "daemon's" }, ["claude_code"]);
  /** The PreToolUse of `payload`, run with `env`. */
  const preCall = (env: Record<string, string>, extra: Partial<HookCall> = {}) => ({
    call: { kind: "hook", build: "b1", args: ["--tool", "claude_code", "--event", "PreToolUse"], cwd: "/work/repo", env, stdin: payload, ...extra },
  });

  it("reads a hook event as init writes it: the tool and event from the path, the folder from the payload, the session's variables left to its state", () => {
    const pre = claudeHttpHooks(config(4000))["PreToolUse"];
    if (pre === undefined) throw new Error("no PreToolUse hook");
    const sent = headersAsSent(pre, { TMUX_PANE: "%7", COMITY_AGENT_NAME: "alice" });
    const r = route(req({ headers: { host: "localhost:4000", ...Object.fromEntries(Object.entries(sent).map(([k, v]) => [k.toLowerCase(), v])) } }));
    expect(r).toEqual(preCall({ HOME: "/h", TMUX_PANE: "%0", COMITY_TOKEN: "daemon's" }, { envFromSession: true }));
  });

  it("reads the variables the hooks of earlier builds forward in one header, over the daemon's", () => {
    const old = { ...(claudeHttpHooks(config(4000))["PreToolUse"] as HttpHook), headers: { Authorization: `Bearer ${SECRET}`, [ENV_HEADER]: envHeaderTemplate() }, allowedEnvVars: [...HTTP_HOOK_ENV] };
    const sent = headersAsSent(old, { TMUX_PANE: "%7", COMITY_AGENT_NAME: "alice; bob=1" });
    const r = route(req({ headers: { host: "localhost:4000", authorization: `Bearer ${SECRET}`, [ENV_HEADER.toLowerCase()]: sent[ENV_HEADER] } }));
    expect(r).toEqual(preCall({ HOME: "/h", TMUX_PANE: "%7", COMITY_AGENT_NAME: "alice; bob=1" }));
  });

  it("reads the one header per variable that hooks written by earlier builds send", () => {
    const r = route(req({ headers: { host: "localhost:4000", authorization: `Bearer ${SECRET}`, [envHeader("TMUX_PANE").toLowerCase()]: "%7", [envHeader("COMITY_TOKEN").toLowerCase()]: "" } }));
    expect(r).toEqual(preCall({ HOME: "/h", TMUX_PANE: "%7" }));
  });

  it("gets back every forwarded variable as the session had it, whatever its value", () => {
    const pre = { ...(claudeHttpHooks(config(4000))["PreToolUse"] as HttpHook), headers: { [ENV_HEADER]: envHeaderTemplate() }, allowedEnvVars: [...HTTP_HOOK_ENV] };
    // Claude Code strips CR, LF and NUL from a header; a value holding "; NEXT_NAME=" is the one thing not told apart.
    const value = fc.string({ maxLength: 40 }).filter((v) => !/[\r\n\0]/.test(v) && !HTTP_HOOK_ENV.some((n) => v.includes(`; ${n}=`)));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...HTTP_HOOK_ENV), value), (vars) => {
        const got = parseEnvHeader(headersAsSent(pre, vars)[ENV_HEADER] ?? "");
        for (const name of HTTP_HOOK_ENV) expect(got.get(name)).toBe(vars[name] ?? "");
      }),
    );
    // Garbage reads as nothing forwarded, never as a crash.
    fc.assert(fc.property(fc.string(), (junk) => void parseEnvHeader(junk)));
  });

  it("refuses a browser, another host name, a missing or wrong secret, other paths, hosts and methods", () => {
    const status = (r: ReturnType<typeof route>) => ("status" in r ? r.status : 200);
    expect(status(route(req({ headers: { ...req().headers, origin: "http://127.0.0.1:4000" } })))).toBe(403);
    expect(status(route(req({ headers: { ...req().headers, host: "evil.example:4000" } })))).toBe(403);
    expect(status(route(req({ headers: { ...req().headers, host: "127.0.0.1:4001" } })))).toBe(403);
    expect(status(route(req({ headers: { host: "127.0.0.1:4000" } })))).toBe(401);
    expect(status(route(req({ headers: { host: "127.0.0.1:4000", authorization: `Bearer ${"cd".repeat(32)}` } })))).toBe(401);
    expect(status(route(req({ url: "/v1/status" })))).toBe(404);
    expect(status(route(req({ url: "/v1/hook/codex/PreToolUse" })))).toBe(404);
    expect(status(route(req({ url: "/v1/hook/claude_code/PreToolUse/../x" })))).toBe(404);
    expect(status(route(req({ method: "GET" })))).toBe(405);
  });

  it("runs a payload without an absolute folder in the daemon's home (the hook then reports what is wrong, as on the command path)", () => {
    const r = route(req({ body: "not json" }));
    expect("call" in r && r.call.cwd).toBe("/h");
    const relative = route(req({ body: JSON.stringify({ cwd: "repo" }) }));
    expect("call" in relative && relative.call.cwd).toBe("/h");
  });
});

describe("the daemon's HTTP settings", () => {
  it("are made once per config folder, 0600, with a port below the kernel's range for outgoing connections", async () => {
    const a = await ensureDaemonHttpConfig(dir);
    expect(a.port).toBeGreaterThanOrEqual(20000);
    expect(a.port).toBeLessThan(32000);
    expect(a.secret).toMatch(/^[0-9a-f]{64}$/);
    const file = fs.readdirSync(dir).map((f) => path.join(dir, f))[0] as string;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await ensureDaemonHttpConfig(dir)).toEqual(a);
    expect(readDaemonHttpConfig(dir)).toEqual(a);
  });

  it("give every tool-call hook the URL and the secret, and no variable for Claude Code to fill", () => {
    const hooks = claudeHttpHooks(config(4000));
    expect(Object.keys(hooks).sort()).toEqual(["PostToolUse", "PreToolUse", "Stop"]);
    const pre = hooks["PreToolUse"];
    expect(pre?.url).toBe("http://127.0.0.1:4000/v1/hook/claude_code/PreToolUse");
    // Claude Code composes its environment again for each variable it fills: the session's come from its state.
    expect(pre?.headers).toEqual({ Authorization: `Bearer ${SECRET}` });
    expect(pre?.allowedEnvVars).toBeUndefined();
  });

  it("are sent as Claude Code fills them: the listed variables from the session, an unset or unlisted one empty", () => {
    const hook = claudeHttpHooks(config(4000))["PreToolUse"] as HttpHook;
    const pre = { ...hook, headers: { ...hook.headers, [ENV_HEADER]: envHeaderTemplate() }, allowedEnvVars: [...HTTP_HOOK_ENV] };
    const sent = headersAsSent({ ...pre, headers: { ...pre.headers, "X-Other": "$HOME-${PATH}" } }, { TMUX_PANE: "%2", HOME: "/h", PATH: "/bin" });
    const forwarded = parseEnvHeader(sent[ENV_HEADER] ?? "");
    expect(forwarded.get("TMUX_PANE")).toBe("%2");
    expect(forwarded.get("COMITY_TOKEN")).toBe("");
    expect(sent["X-Other"]).toBe("-");
    expect(sent["Authorization"]).toBe(`Bearer ${SECRET}`);
  });

  it("take a port only where one is free", async () => {
    const taken = net.createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, "127.0.0.1", () => resolve((taken.address() as net.AddressInfo).port)));
    try {
      expect(await portIsFree(port)).toBe(false);
    } finally {
      taken.close();
    }
  });
});

describe("the daemon's HTTP front", () => {
  it("answers a hook event with the event's stdout as the body, the same as over its socket", async () => {
    const port = await freePort();
    const s = await start(port);
    expect(s.httpProblem).toBeNull();
    expect(s.status().httpPort).toBe(port);
    const r = await request(port, {
      headers: { ...auth, [ENV_HEADER]: "COMITY_AGENT_NAME=; COMITY_API_URL=; COMITY_SHARE_STATUS=; COMITY_TOKEN=; KITTY_WINDOW_ID=; NO_COLOR=; TMUX_PANE=%3; WEZTERM_PANE=; ZELLIJ_PANE_ID=" },
      body: payload,
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ args: ["--tool", "claude_code", "--event", "PreToolUse"], cwd: "/work/repo", pane: "%3", stdin: payload });
    const viaSocket = await callDaemon(
      path.join(dir, "daemon.sock"),
      { kind: "hook", build: "b1", args: ["--tool", "claude_code", "--event", "PreToolUse"], cwd: "/work/repo", env: { HOME: "/h", TMUX_PANE: "%3" }, stdin: payload },
      { connectMs: 500, answerMs: 2000 },
    );
    expect(viaSocket).toEqual({ kind: "hook", stdout: r.body });
    expect(s.status().served).toBe(2);
  });

  it("says while its front is starting that it is, so `daemon start` and `init --http` wait for the front, not just the socket", async () => {
    const port = await freePort();
    const socket = path.join(dir, "daemon.sock");
    let during: Promise<unknown> = Promise.resolve(null);
    const s = await startDaemonServer({
      socket,
      build: "b1",
      idleMs: 60_000,
      runHook: echo,
      // (the socket listens already; the front's thread has only just been made)
      http: {
        config: config(port),
        baseEnv: { HOME: "/h" },
        hosts: ["claude_code"],
        onFrontStarted: () => {
          during = callDaemon(socket, { kind: "status", build: "b1" }, { connectMs: 500, answerMs: 2000 });
        },
      },
    });
    servers.push(s);
    expect(await during).toMatchObject({ kind: "status", httpPort: null, httpStarting: true });
    expect(s.status().httpPort).toBe(port);
    expect(s.status().httpStarting).toBeUndefined();
  });

  it("goes on without HTTP hooks when its front does not say it listens in time, and answers on its socket", async () => {
    // A front that never says anything, as one stuck in its start would (the daemon waited for it for ever, and wrote
    // no pid file: nothing could end it but its 8 h idle).
    const silent = path.join(dir, "silent-front.mjs");
    fs.writeFileSync(silent, "setInterval(() => undefined, 1000);\n");
    const port = await freePort();
    const socket = path.join(dir, "daemon.sock");
    const s = await startDaemonServer({
      socket,
      build: "b1",
      idleMs: 60_000,
      runHook: echo,
      http: { config: config(port), baseEnv: { HOME: "/h" }, hosts: ["claude_code"], frontStartMs: 300, frontScript: new URL(`file://${silent}`) },
    });
    servers.push(s);
    expect(s.httpProblem).toBe("the HTTP front did not start within 0.3 s");
    expect(s.status()).toMatchObject({ httpPort: null });
    const answer = await callDaemon(socket, { kind: "hook", build: "b1", args: ["hook"], cwd: dir, env: {}, stdin: "x" }, { connectMs: 500, answerMs: 2000 });
    expect(answer).toMatchObject({ kind: "hook" });
  });

  it("starts its front again when the front's thread ends on its own, and answers HTTP hooks again", async () => {
    const port = await freePort();
    const fronts: Worker[] = [];
    const s = await startDaemonServer({
      socket: path.join(dir, "daemon.sock"),
      build: "b1",
      idleMs: 60_000,
      runHook: echo,
      http: { config: config(port), baseEnv: { HOME: "/h" }, hosts: ["claude_code"], onFrontStarted: (w) => fronts.push(w) },
    });
    servers.push(s);
    expect((await request(port, { headers: auth, body: payload })).status).toBe(200);
    // The front's thread dies (as an uncaught error in it would end it).
    await fronts[0]?.terminate();
    // Polled: a new front is started and answers on the same port.
    for (let i = 0; i < 200 && (fronts.length < 2 || s.status().httpPort === null); i++) await new Promise((r) => setTimeout(r, 25));
    let answered = 0;
    for (let i = 0; i < 200 && answered !== 200; i++) {
      answered = await request(port, { headers: auth, body: payload }).then(
        (r) => r.status,
        () => 0,
      );
      if (answered !== 200) await new Promise((r) => setTimeout(r, 25));
    }
    expect(answered).toBe(200);
    expect(fronts).toHaveLength(2);
    expect(s.status().http).toEqual({ restarts: 1, problem: null });
  });

  it("refuses strangers over the wire: no secret, a web page, a rebound host name, a body past the bound", async () => {
    const port = await freePort();
    let ran = 0;
    await start(port, async () => {
      ran++;
      return "";
    });
    expect((await request(port, { body: payload })).status).toBe(401);
    expect((await request(port, { headers: { ...auth, origin: "https://evil.example" }, body: payload })).status).toBe(403);
    expect((await request(port, { headers: { ...auth, host: `rebound.example:${port}` }, body: payload })).status).toBe(403);
    expect((await request(port, { method: "GET", path: "/", headers: auth })).status).toBe(404);
    // Refused on their headers, the refusal said before the connection goes: a body past the bound, or any body
    // from a caller without the secret (never read, never kept).
    expect((await request(port, { headers: auth, body: Buffer.alloc(MAX_DAEMON_REQUEST_BYTES + 1, 32) })).status).toBe(413);
    expect((await request(port, { body: Buffer.alloc(MAX_DAEMON_REQUEST_BYTES + 1, 32) })).status).toBe(401);
    expect(ran).toBe(0);
    // Still answering its own callers.
    expect((await request(port, { headers: auth, body: payload })).status).toBe(200);
    expect(ran).toBe(1);
  });

  it("answers 503 and ends where another build was installed under it (an HTTP hook carries no build of its own)", async () => {
    const port = await freePort();
    let installed = "b1";
    let ran = 0;
    const s = await startDaemonServer({
      socket: path.join(dir, "daemon.sock"),
      build: "b1",
      idleMs: 60_000,
      runHook: async () => {
        ran++;
        return "";
      },
      http: { config: config(port), baseEnv: { HOME: "/h" }, hosts: ["claude_code"], installedBuild: () => installed },
    });
    servers.push(s);
    expect((await request(port, { headers: auth, body: payload })).status).toBe(200);
    installed = "b2";
    expect((await request(port, { headers: auth, body: payload })).status).toBe(503);
    expect(await s.ended).toBe("another build was installed (b2)");
    expect(ran).toBe(1);
  });

  it("answers 503 at once while the daemon's thread is held, and still runs that event once the thread is free", async () => {
    const port = await freePort();
    // [0]: 1 once the first event holds the thread; [1]: 1 to let it go; [2]: the held-off request's status.
    const shared = new Int32Array(new SharedArrayBuffer(12));
    const ran: string[] = [];
    await start(port, async (c) => {
      ran.push(c.stdin);
      if (c.stdin.includes('"hold"')) {
        Atomics.store(shared, 0, 1);
        Atomics.notify(shared, 0);
        // Held as git or SQLite's lock hold it: synchronously, nothing else on this thread runs.
        Atomics.wait(shared, 1, 0, 30_000);
      }
      return "answered";
    });
    // Another thread asks while this one is held, then lets it go.
    const asker = new Worker(
      `const { workerData: w } = require("node:worker_threads");
       const http = require("node:http");
       const s = new Int32Array(w.buffer);
       Atomics.wait(s, 0, 0, 30000);
       const req = http.request({ host: "127.0.0.1", port: w.port, method: "POST", path: "/v1/hook/claude_code/PreToolUse", headers: { authorization: w.auth }, agent: false }, (res) => {
         res.resume();
         res.on("end", () => { Atomics.store(s, 2, res.statusCode); Atomics.store(s, 1, 1); Atomics.notify(s, 1); });
       });
       req.end(w.body);`,
      { eval: true, workerData: { buffer: shared.buffer, port, auth: auth.authorization, body: JSON.stringify({ cwd: "/work/repo", asked: "while held" }) } },
    );
    try {
      const held = await request(port, { headers: auth, body: JSON.stringify({ cwd: "/work/repo", hold: "hold" }) });
      expect(held).toEqual({ status: 200, body: "answered" });
      expect(Atomics.load(shared, 2)).toBe(503);
      // The request answered 503 was taken after all: its event ran (late), after the one that held the thread.
      for (let i = 0; i < 500 && ran.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(ran.map((x) => JSON.parse(x) as Record<string, string>).map((x) => x["hold"] ?? x["asked"])).toEqual(["hold", "while held"]);
    } finally {
      await asker.terminate();
    }
  });

  it("answers a caller that ends its side of the connection after its request (a half-close)", async () => {
    const port = await freePort();
    await start(port);
    const got = await new Promise<string>((resolve) => {
      let text = "";
      const c = net.connect(port, "127.0.0.1", () =>
        c.end(`POST /v1/hook/claude_code/Stop HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth.authorization}\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`),
      );
      c.on("data", (d) => (text += d.toString()));
      c.on("close", () => resolve(text));
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
    expect(got).toContain('"stdin":');
  });

  it("listens on 127.0.0.1 only", async () => {
    const port = await freePort();
    await start(port);
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i !== undefined && i.family === "IPv4" && !i.internal);
    if (external === undefined) return; // no other address to try on this machine
    const reached = await new Promise<boolean>((resolve) => {
      const c = net.createConnection({ host: external.address, port }, () => {
        c.destroy();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    expect(reached).toBe(false);
  });

  it("says why it cannot answer HTTP hooks when its port is taken, and still answers over its socket", async () => {
    const taken = net.createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, "127.0.0.1", () => resolve((taken.address() as net.AddressInfo).port)));
    try {
      const s = await start(port);
      expect(s.httpProblem).toMatch(/EADDRINUSE/);
      expect(s.status().httpPort).toBeNull();
      const a = await callDaemon(path.join(dir, "daemon.sock"), { kind: "status", build: "b1" }, { connectMs: 500, answerMs: 2000 });
      expect("kind" in a && a.kind).toBe("status");
    } finally {
      taken.close();
    }
  });
});
