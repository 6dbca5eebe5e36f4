#!/usr/bin/env node
// `comity serve` as three replicas on one PostgreSQL behind HAProxy (benchmarks/replica-cluster.mjs), under the load
// of issue #55: N simulated agents (sessions of the realistic mix of serve-load-driver.mjs: session start, prompts,
// pre/post edits, shell commands, plans, stop) across R repos, paced as hook processes are, for a few minutes, one
// connection per request, through the balancer. Measured in the same run: evaluate p50/p99 (client side, through the
// balancer; the anchor is GET /v1/health through the same balancer), errors, and each acknowledged event in the
// database exactly once; a replica killed (SIGKILL) mid-load and started again, with the built hook run through the
// balancer meanwhile; how soon a dashboard stream on replica 2 hears an event sent to replica 1; PostgreSQL stopped
// and started again under the hooks.
//   node benchmarks/serve-replicas.mjs [--agents 1000] [--repos 50] [--events 20] [--think-ms 10000]
// (an agent's tool calls come seconds apart: its model thinks between them; 1,000 agents 10 s apart are 100 events/s)
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { machine, table } from "./lib.mjs";
import { startCluster } from "./replica-cluster.mjs";
import { dashboardSignIn, planLoad, post, quantile } from "./serve-load-driver.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({
  options: {
    agents: { type: "string", default: "1000" },
    repos: { type: "string", default: "50" },
    events: { type: "string", default: "20" },
    "think-ms": { type: "string", default: "10000" },
  },
});
const agents = Number(values.agents);
const events = Number(values.events);
const thinkMs = Number(values["think-ms"]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-replicas-bench-"));
const env = { ...process.env, COMITY_CONFIG_DIR: path.join(dir, "cfg"), COMITY_DAEMON: "off" };
const cluster = await startCluster(3, env);
const cli = (...args) => spawnSync(process.execPath, [bin, ...args], { env, encoding: "utf8" });
const token = cli("serve", "token", "create", "--team", "load", "--db", cluster.pg.url).stdout.trim();
// The hooks run beside the load as a team of their own: the load's count of applied events is the load's alone.
const hookToken = cli("serve", "token", "create", "--team", "hooks", "--db", cluster.pg.url).stdout.trim();
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (x) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const out = [];

try {
  // --- The load, with replica 2 killed 40% of the way through and started again 10 s later. ---------------------------
  const plan = planLoad({ sessions: agents, events, run: "replicas", repos: Number(values.repos) });
  const total = agents * events;
  const latencies = [];
  const anchor = [];
  const errors = []; // [time, what]
  const answers = new Map();
  let killedAt = null;
  let restartedAt = null;
  let lastErrorAfterKill = null;
  const started = Date.now();
  // The hook as `comity init` wires it, run through the balancer every 500 ms from 2 s before the kill until 5 s after
  // the restart (a Node process a run: on two cores, running them all along would be a load of its own).
  const hookDir = path.join(dir, "hook-repo");
  fs.mkdirSync(hookDir);
  spawnSync("git", ["init", "-q"], { cwd: hookDir });
  spawnSync("git", ["remote", "add", "origin", "git@github.com:acme/app.git"], { cwd: hookDir });
  const hookRuns = []; // { at, ms, status, stdout }
  let hooksFrom = null;
  let loadDone = false;
  const hooks = (async () => {
    let i = 0;
    while (!loadDone) {
      const near = answers.size >= total * 0.37 && (restartedAt === null || Date.now() < restartedAt + 5_000);
      if (!near) {
        await pause(50);
        continue;
      }
      const payload = JSON.stringify({
        session_id: `hook-${i++}`,
        hook_event_name: "PreToolUse",
        tool_name: "Edit",
        tool_input: { file_path: path.join(hookDir, "a.ts"), old_string: "a", new_string: "b" },
        cwd: hookDir,
      });
      const t = Date.now();
      hooksFrom ??= t;
      // (spawned, not spawnSync: the load's requests go on meanwhile)
      const r = await new Promise((resolve) => {
        const child = spawn(process.execPath, [bin, "hook", "--tool", "claude_code", "--event", "PreToolUse"], { cwd: hookDir, env: { ...env, COMITY_API_URL: cluster.url, COMITY_TOKEN: hookToken } });
        let stdout = "";
        child.stdout.on("data", (c) => (stdout += c));
        child.on("close", (status) => resolve({ status, stdout }));
        child.stdin.end(payload);
      });
      hookRuns.push({ at: t, ms: Date.now() - t, status: r.status, stdout: r.stdout });
      await pause(500);
    }
  })();
  const anchorLoop = (async () => {
    while (!loadDone) {
      const t = process.hrtime.bigint();
      const ok = await fetch(`${cluster.url}/v1/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) anchor.push(Number(process.hrtime.bigint() - t) / 1e6);
      await pause(100);
    }
  })();
  const killer = (async () => {
    while (answers.size < total * 0.4) await pause(50);
    killedAt = Date.now();
    await cluster.kill(1);
    await pause(10_000);
    await cluster.restart(1);
    restartedAt = Date.now();
  })();
  await Promise.all(
    plan.map(async (list, n) => {
      await pause((n * thinkMs) / plan.length);
      for (let i = 0; i < list.length; i++) {
        if (i > 0) await pause(thinkMs);
        const body = list[i];
        // An event whose answer did not come is sent again with its dedupe key (what was applied is answered, not
        // applied again), up to 50 times.
        for (let attempt = 0; attempt < 50; attempt++) {
          const r = await post(cluster.url, token, body).catch((e) => ({ status: 0, text: e.message, ms: NaN }));
          if (r.status === 200) {
            if (attempt === 0) latencies.push([Date.now(), r.ms, r.serverMs, body.event]);
            answers.set(body.dedupe_key, r.text);
            break;
          }
          errors.push([Date.now(), `${r.status} ${r.text.slice(0, 80)}`]);
          if (killedAt !== null) lastErrorAfterKill = Date.now();
          await pause(200);
        }
      }
    }),
  );
  loadDone = true;
  await Promise.all([hooks, anchorLoop, killer]);
  const seconds = (Date.now() - started) / 1000;

  // Each acknowledged event in the database exactly once: a repo's index version counts the events applied to it.
  const client = new pg.Client({ connectionString: cluster.pg.url });
  await client.connect();
  const applied = (await client.query("SELECT COALESCE(SUM(r.index_version), 0)::int AS n FROM repos r JOIN teams t ON t.id = r.team_id WHERE t.name = 'load'")).rows[0].n;
  const keys = (await client.query("SELECT COUNT(*)::int AS n FROM dedupe d JOIN teams t ON t.id = d.team_id WHERE t.name = 'load'")).rows[0].n;
  await client.end();
  const hookFailures = hookRuns.filter((h) => h.status !== 0 || h.stdout.includes("error"));
  const hooksDuringKill = hookRuns.filter((h) => killedAt !== null && h.at >= killedAt && h.at <= (restartedAt ?? Infinity));
  const outsideKill = ([t]) => killedAt === null || t < killedAt || t > (restartedAt ?? Infinity) + 5_000;
  const all = latencies.map(([, x]) => x);
  const calm = latencies.filter(outsideKill).map(([, x]) => x);
  const p50 = quantile(calm, 0.5);
  const p99 = quantile(calm, 0.99);
  // The same without the first 10 s, while the replicas start cold (their code not yet compiled, their database
  // connections opened and their statements prepared as the first events arrive).
  const warm = latencies.filter((x) => outsideKill(x) && x[0] >= started + 10_000).map(([, x]) => x);
  const steady = errors.filter(outsideKill);
  // Without the hook processes either (from 2 s before the kill): each is a Node process on the same two cores.
  const noHooks = latencies.filter((x) => outsideKill(x) && (hooksFrom === null || x[0] < hooksFrom)).map(([, x]) => x);
  // Per kind of event, the server's own time (its Server-Timing) beside the time through the balancer.
  const eventKinds = [...new Set(latencies.map((x) => x[3]))].sort();
  const ofKind = (k, i) => latencies.filter((x) => outsideKill(x) && x[3] === k).map((x) => x[i]);
  out.push(
    `${agents} agents x ${events} events across ${values.repos} repos, ${thinkMs} ms apart (${(total / seconds).toFixed(0)} events/s over ${seconds.toFixed(0)} s), through HAProxy to 3 replicas on one PostgreSQL; replica 2 killed at 40% and started again 10 s later.`,
    "",
    table(
      ["measure", "value", "target", "verdict"],
      [
        ["evaluate p50 / p99 (ms, through the balancer), outside the kill window", `${ms(p50)} / ${ms(p99)}`, "p99 < 50", p99 < 50 ? "met" : "NOT met"],
        ["evaluate p50 / p99 (ms), outside the kill window and the first 10 s", `${ms(quantile(warm, 0.5))} / ${ms(quantile(warm, 0.99))}`, "", ""],
        ["evaluate p50 / p99 (ms), outside the kill window, before the hook processes start", `${ms(quantile(noHooks, 0.5))} / ${ms(quantile(noHooks, 0.99))}`, "", ""],
        ["evaluate p50 / p99 (ms), the whole run", `${ms(quantile(all, 0.5))} / ${ms(quantile(all, 0.99))}`, "", ""],
        ["anchor: GET /v1/health p50 / p99 (ms)", `${ms(quantile(anchor, 0.5))} / ${ms(quantile(anchor, 0.99))}`, "", ""],
        ["events acknowledged / planned", `${answers.size} / ${total}`, "all", answers.size === total ? "met" : "NOT met"],
        ["applied in the database (sum of index versions) / dedupe keys", `${applied} / ${keys}`, `${answers.size} each`, applied === answers.size && keys === answers.size ? "met" : "NOT met"],
        ["failed requests outside the kill window", String(steady.length), "0", steady.length === 0 ? "met" : "NOT met"],
        ["failed requests in the kill window (each sent again)", String(errors.length - steady.length), "", ""],
        [
          "last failure after the kill (ms after it)",
          lastErrorAfterKill === null ? "none failed" : String(lastErrorAfterKill - (killedAt ?? 0)),
          "< 5,000 after the balancer marks it down",
          lastErrorAfterKill === null || lastErrorAfterKill - (killedAt ?? 0) < 5_600 ? "met" : "NOT met",
        ],
        ["hooks run through the balancer / exit 0, nothing printed on failure", `${hookRuns.length} / ${hookRuns.length - hookFailures.length}`, "all", hookFailures.length === 0 ? "met" : "NOT met"],
        ["hooks while replica 2 was down: max wall ms", hooksDuringKill.length === 0 ? "-" : String(Math.max(...hooksDuringKill.map((h) => h.ms))), "", ""],
      ],
    ),
  );

  out.push(
    "",
    table(
      ["outside the kill window, by kind", "events", "p50 / p99 through the balancer (ms)", "p50 / p99 in the server (ms)"],
      eventKinds.map((k) => {
        const [through, server] = [ofKind(k, 1), ofKind(k, 2)];
        return [k, String(through.length), `${ms(quantile(through, 0.5))} / ${ms(quantile(through, 0.99))}`, `${ms(quantile(server, 0.5))} / ${ms(quantile(server, 0.99))}`];
      }),
    ),
  );

  // --- A stream on replica 2, signed in on replica 1: how soon it hears an event sent to replica 1. ----------------
  const [r1, r2] = cluster.replicas;
  const cookie = await dashboardSignIn(r1.url, token);
  const heard = [];
  const stream = await openStream(r2.url, cookie, (stamp) => heard.push(stamp));
  const lags = [];
  for (let i = 0; i < 20; i++) {
    const before = heard.length;
    const sent = Date.now();
    await post(r1.url, token, {
      event: "pre_edit",
      dedupe_key: `lag-${i}`,
      session: { external_id: "lag", tool: "claude_code" },
      repo: { remote_fingerprints: ["ab".repeat(32)], branch: "main", head_sha: null },
      paths: [`src/lag${i}.ts`],
    });
    while (heard.length === before && Date.now() - sent < 5_000) await pause(5);
    lags.push(heard.length > before ? Date.now() - sent : Infinity);
    await pause(300);
  }
  stream.close();
  out.push(
    "",
    table(
      ["dashboard across replicas", "value", "target", "verdict"],
      [
        ["a cookie of replica 1 opens a stream on replica 2", stream.status === 200 ? "yes" : `HTTP ${stream.status}`, "yes", stream.status === 200 ? "met" : "NOT met"],
        [
          "event sent to replica 1 -> change on replica 2's stream, p50 / max (ms, 20 events)",
          `${quantile(lags, 0.5)} / ${Math.max(...lags)}`,
          "< 1,000",
          Math.max(...lags) < 1000 ? "met" : "NOT met",
        ],
      ],
    ),
  );

  // --- PostgreSQL stopped for 5 s under the hooks, then started again. ------------------------------------------------
  cluster.pg.halt();
  const downHooks = [];
  const downAt = Date.now();
  while (Date.now() - downAt < 5_000) {
    const t = Date.now();
    const r = spawnSync(process.execPath, [bin, "hook", "--tool", "claude_code", "--event", "PreToolUse"], {
      cwd: hookDir,
      input: JSON.stringify({
        session_id: "pg-down",
        hook_event_name: "PreToolUse",
        tool_name: "Edit",
        tool_input: { file_path: path.join(hookDir, "a.ts"), old_string: "a", new_string: "b" },
        cwd: hookDir,
      }),
      encoding: "utf8",
      env: { ...env, COMITY_API_URL: cluster.url, COMITY_TOKEN: hookToken },
      timeout: 30_000,
    });
    downHooks.push({ ms: Date.now() - t, ok: r.status === 0 && r.stdout === "" });
  }
  cluster.pg.resume();
  const upAt = Date.now();
  let back = null;
  for (let i = 0; back === null && Date.now() - upAt < 60_000; i++) {
    const r = await post(cluster.url, token, {
      event: "session_start",
      dedupe_key: `up-${i}`,
      session: { external_id: `up-${i}`, tool: "codex" },
      repo: { remote_fingerprints: ["cd".repeat(32)], branch: "main", head_sha: null },
    }).catch(() => ({ status: 0 }));
    if (r.status === 200) back = Date.now() - upAt;
    else await pause(50);
  }
  out.push(
    "",
    table(
      ["PostgreSQL stopped for 5 s", "value", "target", "verdict"],
      [
        ["hooks meanwhile: exit 0 with nothing printed", `${downHooks.filter((h) => h.ok).length} / ${downHooks.length}`, "all", downHooks.every((h) => h.ok) ? "met" : "NOT met"],
        ["their wall time, max (ms)", String(Math.max(...downHooks.map((h) => h.ms))), "", ""],
        ["first event answered after it started again (ms)", back === null ? "never" : String(back), "by itself", back !== null ? "met" : "NOT met"],
      ],
    ),
  );
  // What the failed requests were, most frequent first.
  const kinds = new Map();
  for (const [, what] of errors) kinds.set(what.replace(/\d+/g, "N").slice(0, 60), (kinds.get(what.replace(/\d+/g, "N").slice(0, 60)) ?? 0) + 1);
  if (kinds.size > 0)
    out.push(
      "",
      `failed requests by kind: ${[...kinds]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([k, v]) => `${v} x "${k}"`)
        .join(", ")}`,
    );
  out.push("", machine());
  console.log(out.join("\n"));
} finally {
  await cluster.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A dashboard stream: each change event's arrival to `onChange`. */
function openStream(base, cookie, onChange) {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL("/events", base), { agent: false, headers: { cookie } }, (res) => {
      let buffer = "";
      res.on("data", (c) => {
        buffer += c;
        for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
          if (buffer.slice(0, at).includes("event: change")) onChange(Date.now());
          buffer = buffer.slice(at + 2);
        }
      });
      resolve({ status: res.statusCode, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}
