#!/usr/bin/env node
// Two builds' pre_edit (or post_edit) side by side: `node -e 0`, the other build's `comity hook` and this one's,
// interleaved one process after the other (so a slow phase of the machine hits all three alike), against a mock API
// answering at once. For a change's cost on a noisy machine, where separate runs of benchmarks/hook.mjs move by
// ±20 ms. With --event PostToolUse, each hook run sees a new version of the file, as after a real edit.
// Usage: node benchmarks/hook-ab.mjs --other /path/to/other/checkout/bin/comity.cjs [--runs 40] [--event PreToolUse|PostToolUse]
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { machine, median, table } from "./lib.mjs";

const { values } = parseArgs({ options: { other: { type: "string" }, runs: { type: "string", default: "40" }, event: { type: "string", default: "PreToolUse" } } });
if (values.event !== "PreToolUse" && values.event !== "PostToolUse") throw new Error("--event is PreToolUse or PostToolUse");
if (values.other === undefined) throw new Error("--other BIN is required (another build's bin/comity.cjs)");
const runs = Number(values.runs);
const ours = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "comity.cjs");

let answered = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    answered++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ decision: "allow", reason: null, inject_context: null, session_id: "s", index_version: 1 }));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-ab-"));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@e", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@e" };
const repo = path.join(base, "repo");
fs.mkdirSync(path.join(repo, "src"), { recursive: true });
const git = (...a) => spawnSync("git", ["-c", "init.defaultBranch=main", ...a], { cwd: repo, env });
git("init", "-q");
git("remote", "add", "origin", "git@github.com:acme/r.git");
fs.writeFileSync(path.join(repo, "src/config.ts"), 'import { a } from "./a";\nexport function parseConfig(path: string): object {\n  return {};\n}\n'.repeat(20));
git("add", "-A");
git("commit", "-qm", "init");
// Each hook process runs the event itself, as the cold rows of benchmarks/hook.mjs do: with a daemon, the first run
// would start one and the rest would go through it (and two builds' runs would keep replacing each other's).
const hookEnv = { ...env, COMITY_DAEMON: "off", COMITY_API_URL: `http://127.0.0.1:${server.address().port}`, COMITY_TOKEN: "t", COMITY_CONFIG_DIR: path.join(base, "config") };
const input = JSON.stringify({
  session_id: "bench",
  transcript_path: "/t",
  cwd: repo,
  hook_event_name: values.event,
  tool_name: "Edit",
  tool_input: { file_path: path.join(repo, "src/config.ts"), old_string: "a", new_string: "b" },
  ...(values.event === "PostToolUse" ? { tool_response: {} } : {}),
  tool_use_id: "x",
});
// A post_edit reads the edited file: a new version before each hook run, never one whose symbols are cached.
let edit = 0;
const newEdit = () => fs.writeFileSync(path.join(repo, "src/config.ts"), `export function parseConfig(path: string, strict: boolean, n${++edit}?: number): object {\n  return {};\n}\n`.repeat(20));
const run = (args) =>
  new Promise((resolve) => {
    if (values.event === "PostToolUse" && args[0] !== "-e") newEdit();
    const t = process.hrtime.bigint();
    const c = spawn(process.execPath, args, { cwd: repo, env: hookEnv, stdio: ["pipe", "ignore", "ignore"] });
    c.on("close", () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
    c.stdin.end(input);
  });
const hook = (bin) => [bin, "hook", "--tool", "claude_code", "--event", values.event];
const procs = { "node -e 0": ["-e", "0"], [`other build (${values.other})`]: hook(values.other), "this build": hook(ours) };
const xs = Object.fromEntries(Object.keys(procs).map((k) => [k, []]));
for (const args of Object.values(procs)) await run(args); // warm the page cache
for (let i = 0; i < runs; i++) for (const [k, args] of Object.entries(procs)) xs[k].push(await run(args));
server.close();
fs.rmSync(base, { recursive: true, force: true });
if (answered !== 2 * (runs + 1)) throw new Error(`${answered} requests reached the API, ${2 * (runs + 1)} expected`);
const node = median(xs["node -e 0"]);
console.log(`machine: ${machine()}; ${values.event}; median of ${runs} interleaved runs; every hook reached the API\n`);
console.log(
  table(
    ["process", "median ms", "over node -e 0"],
    Object.entries(xs).map(([k, v]) => [k, median(v).toFixed(1), k === "node -e 0" ? "" : `+${(median(v) - node).toFixed(1)} ms`]),
  ),
);
