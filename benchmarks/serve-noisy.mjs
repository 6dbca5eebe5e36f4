#!/usr/bin/env node
// `comity serve` with one noisy team (issue: hardening, item 1): its history holds 100,000 session file rows and
// 100,000 imports, and while the load of issue #9 runs for another team (50 sessions x 20 events, paced 150 ms),
// the noisy team sends post_edit requests of 200 breaking changes each, back to back, from 2 clients. The figure:
// the other team's evaluate p99, beside the same load without the noise in the same run; and the noisy
// requests' own latency. Bounded: a fixed number of runs, then it stops.
//   node benchmarks/serve-noisy.mjs [--runs 3] [--rows 100000] [--db URL]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { machine, median, table } from "./lib.mjs";
import { fingerprint, planLoad, post, quantile, runLoad, startServe } from "./serve-load-driver.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, rows: { type: "string", default: "100000" }, db: { type: "string" } } });
const runs = Number(values.runs);
const rows = Number(values.rows);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-serve-noisy-"));
const env = { ...process.env, COMITY_CONFIG_DIR: dir };
const db = values.db ?? path.join(dir, "serve.sqlite");
const { url, token: quiet, server } = await startServe(bin, db, env, `bench-${Date.now()}`);
const noisy = spawnSync(process.execPath, [bin, "serve", "token", "create", "--team", `noisy-${Date.now()}`, "--db", db], { env, encoding: "utf8" }).stdout.trim();

// The noisy team's history, through the API: 200 sessions of one repo, each with 500 changed files whose imports
// (one each) name the module the noisy changes break.
const repo = { remote_fingerprints: [fingerprint("noisy/monorepo")], branch: "main", head_sha: null };
const noisySessions = 200;
const perSession = Math.ceil(rows / noisySessions);
let key = 0;
const send = async (tok, body) => {
  const r = await post(url, tok, { dedupe_key: `n${++key}-${Date.now()}`, repo, ...body });
  if (r.status !== 200) throw new Error(`seeding: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return r;
};
const t0 = Date.now();
for (let s = 0; s < noisySessions; s++) {
  const session = { external_id: `noisy-${s}`, tool: "codex" };
  for (let start = 0; start < perSession; start += 50) {
    const files = Array.from({ length: Math.min(50, perSession - start) }, (_, i) => `pkg${s % 40}/src/f${start + i}.ts`);
    await send(noisy, {
      event: "post_edit",
      session,
      paths: files,
      analysis: files.map((f) => ({ path: f, references: [{ kind: "import", name: `fn${start % 200}`, module: "../../lib/api" }], changes: [] })),
    });
  }
}
const seeded = ((Date.now() - t0) / 1000).toFixed(0);

// 200 breaking changes to lib/api.ts in one request, as the probe sent them.
const heavy = (n) => ({
  event: "post_edit",
  session: { external_id: `noisy-writer-${n % 2}`, tool: "claude_code" },
  paths: ["lib/api.ts"],
  analysis: [
    {
      path: "lib/api.ts",
      changes: Array.from({ length: 200 }, (_, i) => ({
        qualified_name: `fn${i}_${n}`,
        kind: "function",
        change: "signature_changed",
        compatibility: "breaking",
        reasons: [{ code: "PARAMETER_ADDED_REQUIRED", message: "x" }],
      })),
      references: [],
    },
  ],
});
let noise = false;
const noisyMs = [];
const noiseLoop = async () => {
  let n = 0;
  while (noise) {
    const r = await post(url, noisy, { dedupe_key: `h${++key}-${Date.now()}`, repo, ...heavy(n++) });
    if (r.status !== 200) throw new Error(`noisy: HTTP ${r.status}`);
    noisyMs.push(r.ms);
  }
};

const results = { quiet: [], noisy: [] };
await runLoad({ url, token: quiet, plan: planLoad({ sessions: 50, events: 20, run: `warm-${Date.now()}` }), thinkMs: 150 });
for (let run = 0; run < runs; run++) {
  for (const mode of ["quiet", "noisy"]) {
    noise = mode === "noisy";
    const loops = noise ? [noiseLoop(), noiseLoop()] : [];
    const r = await runLoad({ url, token: quiet, plan: planLoad({ sessions: 50, events: 20, run: `${mode}${run}-${Date.now()}` }), thinkMs: 150 });
    noise = false;
    await Promise.all(loops);
    if (r.failures.length > 0 || r.mismatches.length > 0) throw new Error(`lost or changed answers: ${[...r.failures, ...r.mismatches].slice(0, 3).join("; ")}`);
    results[mode].push(quantile(r.latencies, 0.99));
  }
}
server.kill("SIGTERM");
fs.rmSync(dir, { recursive: true, force: true });

const quietP99 = median(results.quiet);
const noisyP99 = median(results.noisy);
console.log(
  `machine: ${machine()}; storage: ${values.db ? "postgres" : "sqlite"}; noisy team: ${noisySessions * perSession} session file rows and as many imports (seeded through the API in ${seeded} s), 2 clients sending 200 breaking changes per request\n`,
);
console.log(
  table(
    ["", "figure", "per run", "target"],
    [
      ["other team's evaluate p99, no noise (50 sessions x 20 events, paced 150 ms)", `${quietP99.toFixed(1)} ms`, results.quiet.map((x) => x.toFixed(1)).join(" / "), ""],
      [
        "other team's evaluate p99, while the noisy team sends 200-change requests",
        `${noisyP99.toFixed(1)} ms`,
        results.noisy.map((x) => x.toFixed(1)).join(" / "),
        `< 50 ms: ${noisyP99 < 50 ? "met" : "NOT met"}`,
      ],
      ["the noisy team's 200-change requests: p50 / p99", `${quantile(noisyMs, 0.5).toFixed(1)} / ${quantile(noisyMs, 0.99).toFixed(1)} ms`, `${noisyMs.length} requests`, ""],
    ],
  ),
);
