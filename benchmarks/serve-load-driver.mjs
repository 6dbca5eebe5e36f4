// The load `comity serve` is measured and tested under: N simulated sessions, each sending its M events in order
// (as one agent does), all sessions at once. Every event has its own dedupe key; every fifth is sent twice, and the
// replay must return the first answer byte for byte. Used by benchmarks/serve-load.mjs (latency) and by
// test/serve/serve-load.test.ts (nothing lost, nothing applied twice, and the SIGKILL crash test).
import { spawn, spawnSync } from "node:child_process";
import * as http from "node:http";

const KINDS = ["pre_edit", "post_edit", "prompt", "pre_shell", "post_edit", "plan"];

/** Hex that looks like a fingerprint, from a seed. */
export function fingerprint(seed) {
  return Buffer.from(String(seed).padEnd(32, "-")).toString("hex").slice(0, 64);
}

/** The plan: for each session, its events in order. Deterministic for a (sessions, events, run) triple. */
export function planLoad({ sessions = 50, events = 20, run = "load", repos = 5 } = {}) {
  const plan = [];
  for (let s = 0; s < sessions; s++) {
    const external = `${run}-s${String(s).padStart(3, "0")}`;
    const repo = { remote_fingerprints: [fingerprint(`${run}/repo${s % repos}`)], branch: `b${s % 3}`, head_sha: null };
    const list = [];
    for (let e = 0; e < events; e++) {
      const event = e === 0 ? "session_start" : e === events - 1 ? "stop" : KINDS[(e - 1) % KINDS.length];
      const file = `src/f${(s + e) % 12}.ts`;
      const body = { event, dedupe_key: `${external}-e${e}`, session: { external_id: external, tool: s % 2 === 0 ? "claude_code" : "codex" }, repo };
      if (event === "pre_edit" || event === "pre_shell") body.paths = [file];
      if (event === "prompt") body.prompt_excerpt = "carry on";
      if (event === "post_edit") {
        body.paths = [file];
        body.analysis = [
          {
            path: file,
            symbols: [{ name: `fn${e % 4}`, qualified_name: `fn${e % 4}`, kind: "function", exported: true }],
            changes: [{ qualified_name: `fn${e % 4}`, kind: "function", change: "modified", renamed_from: null, exported: true, compatibility: e % 3 === 0 ? "breaking" : "compatible", reasons: [] }],
            new_references: [{ kind: "call", name: `fn${(e + 1) % 4}`, module: "./lib" }],
          },
        ];
      }
      if (event === "stop") body.status = { excerpt: "done", files: [file] };
      list.push(body);
    }
    plan.push(list);
  }
  return plan;
}

/** One POST; resolves { status, text, ms, serverMs (its Server-Timing) } or rejects on a connection error. */
export function post(baseUrl, token, body) {
  const payload = JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL("/v1/hooks/evaluate", baseUrl),
      {
        method: "POST",
        agent: false, // one connection per request, like a hook process
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), authorization: `Bearer ${token}`, connection: "close" },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        const server = /dur=([0-9.]+)/.exec(String(res.headers["server-timing"] ?? ""));
        res.on("end", () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8"), ms: Number(process.hrtime.bigint() - started) / 1e6, serverMs: server ? Number(server[1]) : NaN }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Sends the plan: sessions concurrently, each session's events in order, back to back (`thinkMs` 0: the burst
 * case) or `thinkMs` apart (a hook process lives at least ~150 ms, so one session cannot send faster). Stops a session at its first failed
 * request (the server went away). Returns every answer by dedupe key, latencies (client and server side), replay mismatches and failures.
 */
export async function runLoad({ url, token, plan, replayEvery = 5, onAnswer = () => {}, thinkMs = 0 }) {
  const answers = new Map();
  const latencies = [];
  const serverLatencies = [];
  const mismatches = [];
  const failures = [];
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  await Promise.all(
    plan.map(async (events, n) => {
      // Paced sessions start spread over one pause, as agents do not all fire in the same millisecond.
      if (thinkMs > 0) await pause((n * thinkMs) / plan.length);
      for (let i = 0; i < events.length; i++) {
        if (thinkMs > 0 && i > 0) await pause(thinkMs);
        const body = events[i];
        let r;
        try {
          r = await post(url, token, body);
        } catch (error) {
          failures.push(`${body.dedupe_key}: ${error.message}`);
          return;
        }
        if (r.status !== 200) {
          failures.push(`${body.dedupe_key}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
          return;
        }
        latencies.push(r.ms);
        serverLatencies.push(r.serverMs);
        answers.set(body.dedupe_key, r.text);
        onAnswer(answers.size);
        if (replayEvery > 0 && i % replayEvery === replayEvery - 1) {
          let again;
          try {
            again = await post(url, token, body);
          } catch (error) {
            failures.push(`${body.dedupe_key} (replay): ${error.message}`);
            return;
          }
          latencies.push(again.ms);
          serverLatencies.push(again.serverMs);
          if (again.text !== r.text) mismatches.push(body.dedupe_key);
        }
      }
    }),
  );
  return { answers, latencies, serverLatencies, mismatches, failures };
}

/**
 * Signs in to a server's dashboard with a team token as its own form does (the form's token, in its cookie and in the
 * form, then the post): the `comity_dashboard=...` cookie.
 */
export async function dashboardSignIn(base, token) {
  const form = await fetch(new URL("/signin", base));
  const formCookie = /comity_signin=([^;]+)/.exec(form.headers.get("set-cookie") ?? "")?.[1];
  const formToken = /name="form" value="([^"]+)"/.exec(await form.text())?.[1];
  const r = await fetch(new URL("/signin", base), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: `comity_signin=${formCookie}` },
    body: `form=${encodeURIComponent(formToken ?? "")}&token=${encodeURIComponent(token)}`,
  });
  const cookie = /comity_dashboard=[^;]+/.exec(r.headers.get("set-cookie") ?? "")?.[0];
  if (r.status !== 303 || cookie === undefined) throw new Error(`sign-in: HTTP ${r.status}`);
  return cookie;
}

/** The q-quantile (0..1) of a list of numbers, nearest rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * The built `comity serve` (`bin`) with these arguments, once it says where it listens and where its dashboard is:
 * `{ url, banner, child, stop() (SIGTERM, then its exit code), kill() (SIGKILL) }`; rejected, with what it said on
 * stderr, when it exits before. The tests' fixtures and the benchmarks start servers through here.
 */
export function spawnServe(bin, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const exited = new Promise((r) => child.on("exit", (code) => r(code)));
    child.stderr.on("data", (c) => (err += c));
    child.stdout.on("data", (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m !== null && out.includes("dashboard"))
        resolve({
          url: m[1],
          banner: out,
          child,
          stop: async () => {
            child.kill("SIGTERM");
            return exited;
          },
          kill: async () => {
            child.kill("SIGKILL");
            await exited;
          },
        });
    });
    child.on("exit", (code) => reject(new Error(`comity serve exited (${code}) before listening: ${err}`)));
  });
}

/**
 * A team's token (`comity serve token create`), then the built `comity serve --port 0` on that database, once it
 * says where it listens: `{ url, token, server }`.
 */
export async function startServe(bin, db, env, team = "bench") {
  const token = spawnSync(process.execPath, [bin, "serve", "token", "create", "--team", team, "--db", db], { env, encoding: "utf8" }).stdout.trim();
  const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--db", db], { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error(`comity serve exited with ${code}`)));
  });
  return { url, token, server };
}
