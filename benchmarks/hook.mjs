#!/usr/bin/env node
// Hook benchmark: wall time of `comity hook` processes against `node -e 0` (bare Node start) in the
// same run, with an instant local API server on 127.0.0.1. Three cases: pre_edit; post_edit of one
// edited TypeScript file with symbol analysis; session_start in a folder of 8 repos.
// Usage: npm run bench:hook [-- --runs N]
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { machine, median, table } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.js");
const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);

const ALLOW = JSON.stringify({ decision: "allow", reason: null, inject_context: "## Comity\n- 1 other session active", session_id: "s", index_version: 1 });
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(ALLOW);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;

// Fixture: a folder of 8 repos with remotes, one TypeScript file committed in each.
const base = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-hook-"));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@e", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@e" };
const git = (cwd, ...args) => spawnSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, env });
for (let i = 0; i < 8; i++) {
  const r = path.join(base, `repo-${i}`);
  fs.mkdirSync(path.join(r, "src"), { recursive: true });
  git(r, "init", "-q");
  git(r, "remote", "add", "origin", `git@github.com:acme/repo-${i}.git`);
  fs.writeFileSync(path.join(r, "src/config.ts"), "export function parseConfig(path: string): object {\n  return {};\n}\n".repeat(20));
  fs.writeFileSync(path.join(r, "package.json"), JSON.stringify({ name: `repo-${i}`, version: "1.0.0" }));
  git(r, "add", "-A");
  git(r, "commit", "-q", "-m", "init");
}
const repo0 = path.join(base, "repo-0");
fs.writeFileSync(path.join(repo0, "src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return {};\n}\n".repeat(20));
const hookEnv = { ...env, COMITY_API_URL: url, COMITY_TOKEN: "t", COMITY_CONFIG_DIR: path.join(base, "config") };

const run = (args, input, cwd) =>
  new Promise((resolve) => {
    const t = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, env: hookEnv, stdio: ["pipe", "ignore", "ignore"] });
    child.on("close", () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
    child.stdin.end(input);
  });
const measure = async (args, input, cwd, before = () => {}) => {
  before();
  await run(args, input, cwd); // warm the page cache
  const xs = [];
  for (let i = 0; i < runs; i++) {
    before();
    xs.push(await run(args, input, cwd));
  }
  return median(xs);
};
// Each post_edit sees a new version of the file, as after a real edit: its symbols are never cached
// (the HEAD version's are, after the first run, as they would be after a session's first edit of it).
let edit = 0;
const newEdit = () => fs.writeFileSync(path.join(repo0, "src/config.ts"), `export function parseConfig(path: string, strict: boolean, n${++edit}?: number): object {\n  return {};\n}\n`.repeat(20));

const nodeStart = await measure(["-e", "0"], "", base);
const payload = (event, extra) => JSON.stringify({ session_id: "bench", transcript_path: "/t", cwd: repo0, hook_event_name: event, ...extra });
const preEdit = await measure([bin, "hook", "--tool", "claude_code", "--event", "PreToolUse"], payload("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo0, "src/config.ts") }, tool_use_id: "x" }), repo0);
const postEditArgs = [bin, "hook", "--tool", "claude_code", "--event", "PostToolUse"];
const postEditInput = payload("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo0, "src/config.ts") }, tool_response: {}, tool_use_id: "x" });
const postEdit = await measure(postEditArgs, postEditInput, repo0, newEdit);
// The session's first edit of the file: nothing cached, HEAD's version read with isomorphic-git and parsed too.
const firstPostEdit = await measure(postEditArgs, postEditInput, repo0, () => {
  newEdit();
  for (const d of ["symbols", "head-hashes"]) fs.rmSync(path.join(hookEnv.COMITY_CONFIG_DIR, d), { recursive: true, force: true });
});
const sessionStart = await measure([bin, "hook", "--tool", "claude_code", "--event", "SessionStart"], JSON.stringify({ session_id: "bench", transcript_path: "/t", cwd: base, hook_event_name: "SessionStart", source: "startup" }), base);
server.close();
fs.rmSync(base, { recursive: true, force: true });

console.log(`machine: ${machine()}; median of ${runs} runs; local API answering at once\n`);
console.log(
  table(
    ["process", "median ms", "over node -e 0", "target"],
    [
      ["node -e 0 (anchor)", nodeStart.toFixed(0), "", ""],
      ["comity hook PreToolUse Edit (pre_edit)", preEdit.toFixed(0), `+${(preEdit - nodeStart).toFixed(0)} ms`, `within 60 ms of node: ${preEdit - nodeStart <= 60 ? "met" : "NOT met"}`],
      ["comity hook PostToolUse Edit, one TS file analysed (post_edit)", postEdit.toFixed(0), `+${(postEdit - nodeStart).toFixed(0)} ms`, `< 250 ms: ${postEdit < 250 ? "met" : "NOT met"}`],
      ["same, the session's first edit of the file (nothing cached)", firstPostEdit.toFixed(0), `+${(firstPostEdit - nodeStart).toFixed(0)} ms`, `< 250 ms: ${firstPostEdit < 250 ? "met" : "NOT met"}`],
      ["comity hook SessionStart, folder of 8 repos (session_start)", sessionStart.toFixed(0), `+${(sessionStart - nodeStart).toFixed(0)} ms`, `< 500 ms: ${sessionStart < 500 ? "met" : "NOT met"}`],
    ],
  ),
);
