#!/usr/bin/env node
// What a model waits on when it calls Comity's MCP server: `comity mcp` (this checkout's built CLI), started as a
// host starts it (stdio, with the SDK's own client), answering from an embedded store of 10,000 past events (500
// sessions of 20 events over the past week) with another session at work now, in a repo of 300 files. Each tool call
// is timed from the client's request to its answer; the anchor is the MCP protocol's own `ping` over the same pipe.
// Target: a tool call within 50 ms p50 (#53).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DROPPED_ENV, gitEnv, machine, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const { values } = parseArgs({ options: { runs: { type: "string", default: "40" } } });
const runs = Number(values.runs);

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-mcp-")));
const env = { ...gitEnv(), COMITY_DAEMON: "off", COMITY_CONFIG_DIR: path.join(base, "config") };
for (const k of DROPPED_ENV) delete env[k];
const git = (...args) => spawnSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd: repo, env });
const repo = path.join(base, "app");
fs.mkdirSync(path.join(repo, "src"), { recursive: true });
for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(repo, "src", `p${i}.ts`), `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`);
git("init", "-q");
git("remote", "add", "origin", "git@github.com:acme/app.git");
git("add", "-A");
git("-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "init");

// The store: the repo's fingerprint as its hooks name it, 10,000 past events, and a session at work now.
const { fingerprintsUnder } = await import(path.join(here, "..", "dist", "workspace", "repo-fingerprints.js"));
const { openEmbeddedStore } = await import(path.join(here, "..", "dist", "coordination", "embedded-store.js"));
const fingerprints = await fingerprintsUnder(repo, { kind: "embedded", file: "" }, env);
const store = await openEmbeddedStore(path.join(env.COMITY_CONFIG_DIR, "coordination.sqlite"));
const evBody = (session, event, extra) => ({
  event,
  dedupe_key: `${session}-${event}-${Math.random()}`,
  session: { external_id: session, tool: "claude_code", label: "bench" },
  repo: { remote_fingerprints: fingerprints, branch: "main" },
  ...extra,
});
const nowMs = Date.now();
let past = 0;
for (let s = 0; s < 500; s++) {
  const at = nowMs - (500 - s) * 20 * 60_000;
  const mine = Array.from({ length: 4 }, (_, k) => `src/p${(s * 7 + k) % 300}.ts`);
  for (let e = 0; e < 20; e++) {
    const kind = e % 4;
    const body =
      kind === 0
        ? evBody(`past-${s}`, "prompt", { prompt_excerpt: "work" })
        : kind === 1
          ? evBody(`past-${s}`, "pre_edit", { paths: [mine[e % 4]] })
          : kind === 2
            ? evBody(`past-${s}`, "post_edit", {
                paths: [mine[e % 4]],
                analysis: [{ path: mine[e % 4], changes: [{ qualified_name: `f${s}`, kind: "function", change: "signature_changed", compatibility: "breaking" }] }],
              })
            : evBody(`past-${s}`, "stop", { status: { excerpt: "done", files: mine } });
    await store.evaluate(body, at + e * 30_000);
    past++;
  }
}
// Another session at work: 20 files held, a breaking change to f3; and the caller's own session, in the repo.
await store.evaluate(evBody("other", "pre_edit", { paths: Array.from({ length: 20 }, (_, i) => `src/p${i}.ts`) }), nowMs);
await store.evaluate(
  evBody("other", "post_edit", {
    paths: ["src/p3.ts"],
    analysis: [{ path: "src/p3.ts", changes: [{ qualified_name: "f3", kind: "function", change: "signature_changed", compatibility: "breaking" }] }],
  }),
  nowMs,
);
await store.evaluate({ ...evBody("me", "session_start", {}), repo: { remote_fingerprints: fingerprints, branch: "main", worktree: "app" } }, nowMs);
await store.close();

const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--host", "claude_code"], cwd: repo, env, stderr: "ignore" });
const client = new Client({ name: "bench", version: "1" });
await client.connect(transport);

const calls = {
  "ping (anchor: the protocol's round trip)": () => client.ping(),
  "who src/p3.ts": () => client.callTool({ name: "who", arguments: { path: "src/p3.ts" } }),
  status: () => client.callTool({ name: "status", arguments: {} }),
  "check_edit of a held file (a dry run of PreToolUse)": () => client.callTool({ name: "check_edit", arguments: { path: "src/p3.ts", old_string: "a + 3", new_string: "a + 4" } }),
  "impact f3 (with analyze of the repo)": () => client.callTool({ name: "impact", arguments: { symbol: "f3" } }),
  inbox: () => client.callTool({ name: "inbox", arguments: {} }),
};
const times = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
// Interleaved, run by run: the machine's phases hit every call alike. The first round warms the server up.
for (let i = 0; i <= runs; i++) {
  for (const [name, call] of Object.entries(calls)) {
    const t = performance.now();
    const r = await call();
    const ms = performance.now() - t;
    if (r?.isError === true) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    if (i > 0) times[name].push(ms);
  }
}
await client.close();
fs.rmSync(base, { recursive: true, force: true });

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? Number.NaN;
console.log(`${machine()}; embedded store of ${past.toLocaleString("en")} past events; ${runs} calls of each, interleaved\n`);
console.log(
  table(
    ["MCP tool call, request to answer", "p50 ms", "p90 ms", "target"],
    Object.entries(times).map(([name, xs]) => [
      name,
      q(xs, 0.5).toFixed(1),
      q(xs, 0.9).toFixed(1),
      name.startsWith("ping") ? "" : name.startsWith("impact") ? `p50 < 50 ms: ${q(xs, 0.5) < 50 ? "met" : "NOT met"} (an analyze)` : `p50 < 50 ms: ${q(xs, 0.5) < 50 ? "met" : "NOT met"}`,
    ]),
  ),
);
