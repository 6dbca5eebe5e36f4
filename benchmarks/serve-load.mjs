#!/usr/bin/env node
// `npm run bench:serve`: evaluate latency of `comity serve` under the load of issue #9: 50 sessions sending 20 events
// each, all at once, one connection per request (as hook processes do), over loopback. Runs the built CLI with a
// fresh SQLite database (or `--db postgres://…`). Anchor, in the same run and the same pattern: GET /v1/health of the
// same server (HTTP and connection cost, no storage). Bounded: a fixed number of runs, then it stops.
//   node benchmarks/serve-load.mjs [--runs 5] [--sessions 50] [--events 20] [--profile burst|paced] [--db URL] [--dashboards N]
// (`--dashboards 50`: 50 people signed in to the dashboard, each with its live event stream open, during the load;
// every stream must receive updates.)
// (`--profile burst --events 200`: a sustained burst, long enough to cross the server's WAL restart threshold.)
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { machine, median, table } from "./lib.mjs";
import { dashboardSignIn, planLoad, quantile, runLoad, startServe } from "./serve-load-driver.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    sessions: { type: "string", default: "50" },
    events: { type: "string", default: "20" },
    profile: { type: "string" },
    db: { type: "string" },
    dashboards: { type: "string", default: "0" },
  },
});
const runs = Number(values.runs);
const sessions = Number(values.sessions);
const events = Number(values.events);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-serve-bench-"));
const env = { ...process.env, COMITY_CONFIG_DIR: dir };
const db = values.db ?? path.join(dir, "serve.sqlite");
const { url, token, server } = await startServe(bin, db, env);

// Open dashboards: each signs in with the team's token (its own cookie) and keeps /events open.
const dashboards = Number(values.dashboards);
const streams = [];
for (let i = 0; i < dashboards; i++) {
  const cookie = await dashboardSignIn(url, token);
  const stream = { changes: 0, req: null };
  await new Promise((resolve, reject) => {
    stream.req = http.get(new URL("/events", url), { agent: false, headers: { cookie } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: HTTP ${res.statusCode}`));
      res.setEncoding("utf8");
      res.on("data", (chunk) => (stream.changes += (chunk.match(/event: change/g) ?? []).length));
      resolve();
    });
    stream.req.on("error", () => undefined);
  });
  streams.push(stream);
}

function health() {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(new URL("/v1/health", url), { agent: false, headers: { connection: "close" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
      })
      .on("error", reject);
  });
}

// Two profiles. burst: every session sends its next event the moment the last is answered (client and server then
// share this machine's 2 cores flat out: a throughput test). paced: one event per 150 ms per session, the shortest
// a hook process lives (benchmarks/README.md, hook), so the fastest one agent can send; still 50x what 50 agents
// making one tool call a second would send.
const PROFILES = [
  ["burst", 0],
  ["paced 150 ms", 150],
].filter(([name]) => values.profile === undefined || name.startsWith(values.profile));
if (PROFILES.length === 0) throw new Error(`--profile: burst or paced, not ${values.profile}`);
// One warm-up round per profile, not recorded (the server's JIT and statement cache warm up, as in every
// other benchmark here: figures are of warm runs).
for (const [profile, thinkMs] of PROFILES) await runLoad({ url, token, plan: planLoad({ sessions, events, run: `warmup-${profile}-${Date.now()}` }), thinkMs });
const rows = [];
const perRunP99 = new Map(PROFILES.map(([name]) => [name, []]));
const totals = new Map(PROFILES.map(([name]) => [name, { evaluate: [], server: [], health: [] }]));
for (let run = 0; run < runs; run++) {
  for (const [profile, thinkMs] of PROFILES) {
    const plan = planLoad({ sessions, events, run: `bench${run}-${profile}-${Date.now()}` });
    const t = Date.now();
    const r = await runLoad({ url, token, plan, thinkMs });
    const wall = Date.now() - t;
    if (r.failures.length > 0 || r.mismatches.length > 0) throw new Error(`lost or changed answers: ${[...r.failures, ...r.mismatches].slice(0, 3).join("; ")}`);
    // The anchor: the same number of GET /v1/health in the same pattern.
    const anchor = (
      await Promise.all(
        Array.from({ length: sessions }, async (_, n) => {
          const xs = [];
          if (thinkMs > 0) await new Promise((res) => setTimeout(res, (n * thinkMs) / sessions));
          for (let i = 0; i < r.latencies.length / sessions; i++) {
            if (thinkMs > 0 && i > 0) await new Promise((res) => setTimeout(res, thinkMs));
            xs.push(await health());
          }
          return xs;
        }),
      )
    ).flat();
    const tot = totals.get(profile);
    tot.evaluate.push(...r.latencies);
    tot.server.push(...r.serverLatencies);
    tot.health.push(...anchor);
    perRunP99.get(profile).push({ evaluate: quantile(r.latencies, 0.99), health: quantile(anchor, 0.99) });
    rows.push([
      `${profile}, run ${run + 1}`,
      r.latencies.length,
      `${wall} ms`,
      quantile(r.latencies, 0.5).toFixed(1),
      quantile(r.latencies, 0.99).toFixed(1),
      quantile(r.serverLatencies, 0.99).toFixed(1),
      quantile(anchor, 0.5).toFixed(1),
      quantile(anchor, 0.99).toFixed(1),
    ]);
  }
}
const quiet = streams.filter((st) => st.changes === 0).length;
for (const st of streams) st.req.destroy();
if (quiet > 0) throw new Error(`${quiet} of ${dashboards} open dashboards received no update during the load`);
server.kill("SIGTERM");
fs.rmSync(dir, { recursive: true, force: true });

const verdicts = [];
for (const [profile] of PROFILES) {
  const t = totals.get(profile);
  rows.push([
    `${profile}, all pooled`,
    t.evaluate.length,
    "",
    quantile(t.evaluate, 0.5).toFixed(1),
    quantile(t.evaluate, 0.99).toFixed(1),
    quantile(t.server, 0.99).toFixed(1),
    quantile(t.health, 0.5).toFixed(1),
    quantile(t.health, 0.99).toFixed(1),
  ]);
  // The figure: the median over runs of each run's p99 (one run's p99 is its 12th slowest answer).
  const p99 = median(perRunP99.get(profile).map((x) => x.evaluate));
  const anchorP99 = median(perRunP99.get(profile).map((x) => x.health));
  verdicts.push([
    `evaluate p99 < 50 ms, ${profile}${dashboards > 0 ? `, ${dashboards} dashboards open` : ""} (median of ${runs} runs)`,
    `${p99.toFixed(1)} ms`,
    `${(p99 / anchorP99).toFixed(1)}x health p99`,
    p99 < 50 ? "met" : "NOT met",
  ]);
}
console.log(
  `machine: ${machine()}; storage: ${values.db ? "postgres" : "sqlite"}; ${sessions} sessions x ${events} events (+1 replay in 5), concurrent${dashboards > 0 ? `; ${dashboards} dashboards signed in with their event streams open, each updated during the load (fewest updates one got: ${Math.min(...streams.map((st) => st.changes))})` : ""}\n`,
);
console.log(table(["", "requests", "wall", "evaluate p50 ms", "evaluate p99 ms", "server-side p99 ms", "health p50 ms", "health p99 ms"], rows));
console.log("");
console.log(table(["target", "figure", "anchor ratio", "verdict"], verdicts));
