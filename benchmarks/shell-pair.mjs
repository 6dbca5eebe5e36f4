#!/usr/bin/env node
// The shell pair on real code: PreToolUse + PostToolUse of one shell command (`comity hook`; the native client
// `comity-hook`, as `comity init` wires Codex where it was built; Claude Code's HTTP hooks of `comity init --http`),
// through a warm daemon, against `git status` run twice as processes (the anchor: what a shell command's before and
// after cost at the least), in the same run. Two repos of the shapes users meet: the whole `effect` npm package (2,700
// files, TypeScript and its build, the shape of vite) and this machine's Python standard library (the shape of sympy),
// each committed, with a few files changed. Each path twice: a command that changes nothing (the daemon reuses its
// last snapshot, its change watch having seen nothing) and one that writes a file between its hooks after the tree
// changed before it (both snapshots taken). Node's start is not subtracted. Usage: node benchmarks/shell-pair.mjs [--runs 15]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { daemonServed, gitEnv, machine, median, table, timedPost } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "comity.cjs");
const hookClient = path.join(here, "..", "bin", "comity-hook");
if (fs.readFileSync(hookClient).subarray(0, 2).toString("latin1") === "#!") throw new Error("bin/comity-hook is not the native client here (no C compiler?): node scripts/install-hook-client.mjs");
const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
const base = fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-shell-"));
const repoEnv = gitEnv();
delete repoEnv.COMITY_DAEMON;
delete repoEnv.COMITY_API_URL;
delete repoEnv.COMITY_TOKEN;
const git = (cwd, ...args) => execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, env: repoEnv, stdio: ["ignore", "pipe", "inherit"] });

/** A committed repo of `files` (absolute path → repo-relative path), with a remote and three files changed since. */
function makeRepo(name, files) {
  const repo = path.join(base, name);
  for (const [from, rel] of files) {
    const to = path.join(repo, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
  git(repo, "init", "-q");
  git(repo, "remote", "add", "origin", `git@github.com:bench/${name}.git`);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "import");
  for (const [, rel] of files.slice(0, 3)) fs.appendFileSync(path.join(repo, rel), "\n");
  return { repo, count: files.length };
}

function walk(dir, skip) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (skip.test(p)) continue;
    if (e.isDirectory()) out.push(...walk(p, skip));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

// The whole effect package, from npm (`npm pack`, pinned), unpacked once.
const pack = path.join(base, "pack");
fs.mkdirSync(pack);
const tgz = execFileSync("npm", ["pack", "effect@3.18.4", "--silent", "--pack-destination", pack], { encoding: "utf8" }).trim().split("\n").pop();
execFileSync("tar", ["xzf", path.join(pack, tgz), "-C", pack]);
const effectDir = path.join(pack, "package");
const stdlib = execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: "utf8" }).trim();
const repos = [
  [
    "effect (npm package, TypeScript)",
    makeRepo(
      "effect",
      walk(effectDir, /$^/).map((f) => [f, path.relative(effectDir, f)]),
    ),
  ],
  [
    "Python standard library",
    makeRepo(
      "stdlib",
      walk(stdlib, /(site-packages|__pycache__|\.pyc$)/).map((f) => [f, path.relative(stdlib, f)]),
    ),
  ],
];

const config = path.join(base, "config");
const env = { ...repoEnv, COMITY_CONFIG_DIR: config };
const time = (cmd, args, { cwd, input = "", runEnv = env }) =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env: runEnv, stdio: ["pipe", "ignore", "ignore"] });
    child.on("close", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t) / 1e6) : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}`))));
    child.stdin.on("error", () => undefined); // a process that reads no stdin (true, git) may be gone before it is written
    child.stdin.end(input);
  });
const httpFront = await import(path.join(here, "..", "dist", "daemon", "daemon-http.js"));
const httpConfig = await httpFront.ensureDaemonHttpConfig(config);
const hooks = httpFront.claudeHttpHooks(httpConfig);
// The session's environment forwards nothing here: each header as Claude Code sends an unset variable.
const headersOf = (hook) => httpFront.headersAsSent(hook, {});
if (spawnSync(process.execPath, [bin, "daemon", "start"], { env }).status !== 0) throw new Error("comity daemon start failed");
const served = () => daemonServed(bin, env);

const rows = [];
let n = 0;
for (const [label, { repo, count }] of repos) {
  const payload = (event, host) => {
    const id = `t${++n}`;
    return JSON.stringify({
      session_id: `bench-${host}`,
      transcript_path: "/t",
      cwd: repo,
      hook_event_name: event,
      tool_name: "Bash",
      tool_input: { command: "make build" },
      tool_use_id: id,
    });
  };
  const anchor = [];
  const command = [];
  const native = [];
  const overHttp = [];
  const nativeEdit = [];
  const httpEdit = [];
  // A command that writes a file between its two hooks (untimed), and the tree changed before it too: neither of
  // its snapshots can be one kept. A text file, so that the rows time the snapshots, not a symbol analysis.
  const edited = path.join(repo, "comity-bench-notes.txt");
  let edits = 0;
  const edit = () => fs.appendFileSync(edited, `\n${"#".repeat(++edits % 7)}`);
  const before = served();
  for (let i = 0; i <= runs; i++) {
    const a = (await time("git", ["status", "--porcelain"], { cwd: repo })) + (await time("git", ["status", "--porcelain"], { cwd: repo }));
    // The command path (Codex): two `comity hook` processes, the thin client forwarding each event to the daemon.
    const pre = payload("PreToolUse", "codex");
    const c1 = await time(process.execPath, [bin, "hook", "--tool", "codex", "--event", "PreToolUse"], { cwd: repo, input: pre });
    const c2 = await time(process.execPath, [bin, "hook", "--tool", "codex", "--event", "PostToolUse"], { cwd: repo, input: pre.replace('"PreToolUse"', '"PostToolUse"') });
    // The same through the native client: no Node started.
    const npre = payload("PreToolUse", "codex-native");
    const n1 = await time(hookClient, ["--tool", "codex", "--event", "PreToolUse"], { cwd: repo, input: npre });
    const n2 = await time(hookClient, ["--tool", "codex", "--event", "PostToolUse"], { cwd: repo, input: npre.replace('"PreToolUse"', '"PostToolUse"') });
    // Claude Code's HTTP hooks: no process at all.
    const cpre = payload("PreToolUse", "claude_code");
    const h1 = (await timedPost(hooks.PreToolUse.url, headersOf(hooks.PreToolUse), cpre)).ms;
    const h2 = (await timedPost(hooks.PostToolUse.url, headersOf(hooks.PostToolUse), cpre.replace('"PreToolUse"', '"PostToolUse"'))).ms;
    edit();
    const epre = payload("PreToolUse", "codex-native-edit");
    const e1 = await time(hookClient, ["--tool", "codex", "--event", "PreToolUse"], { cwd: repo, input: epre });
    edit();
    const e2 = await time(hookClient, ["--tool", "codex", "--event", "PostToolUse"], { cwd: repo, input: epre.replace('"PreToolUse"', '"PostToolUse"') });
    edit();
    const hpre = payload("PreToolUse", "claude_code-edit");
    const f1 = (await timedPost(hooks.PreToolUse.url, headersOf(hooks.PreToolUse), hpre)).ms;
    edit();
    const f2 = (await timedPost(hooks.PostToolUse.url, headersOf(hooks.PostToolUse), hpre.replace('"PreToolUse"', '"PostToolUse"'))).ms;
    edit();
    if (i === 0) continue; // warm-up: page cache, the daemon's first status of the repo
    anchor.push(a);
    command.push(c1 + c2);
    native.push(n1 + n2);
    nativeEdit.push(e1 + e2);
    httpEdit.push(f1 + f2);
    overHttp.push(h1 + h2);
  }
  if (served() - before !== 10 * (runs + 1)) throw new Error(`${label}: the daemon answered ${served() - before} events, ${10 * (runs + 1)} expected`);
  const [g, c, nc, h, ne, he] = [median(anchor), median(command), median(native), median(overHttp), median(nativeEdit), median(httpEdit)];
  const short = label.split(" ")[0];
  rows.push([`${label}, ${count.toLocaleString("en")} files: git status twice (anchor)`, g.toFixed(0), "", ""]);
  rows.push([`${short}: comity hook ×2 through the daemon (Codex)`, c.toFixed(0), `${(c / g).toFixed(2)} × git`, `≤ 2 × git status twice: ${c <= 2 * g ? "met" : "NOT met"}`]);
  rows.push([`${short}: comity-hook ×2 (native client) through the daemon (Codex)`, nc.toFixed(0), `${(nc / g).toFixed(2)} × git`, `≤ 2 × git status twice: ${nc <= 2 * g ? "met" : "NOT met"}`]);
  rows.push([`${short}: Claude Code's HTTP hooks to the daemon`, h.toFixed(0), `${(h / g).toFixed(2)} × git`, `≤ 2 × git status twice: ${h <= 2 * g ? "met" : "NOT met"}`]);
  rows.push([`${short}: comity-hook ×2, a command that writes a file`, ne.toFixed(0), `${(ne / g).toFixed(2)} × git`, `≤ 2 × git status twice: ${ne <= 2 * g ? "met" : "NOT met"}`]);
  rows.push([`${short}: Claude Code's HTTP hooks, a command that writes a file`, he.toFixed(0), `${(he / g).toFixed(2)} × git`, `≤ 2 × git status twice: ${he <= 2 * g ? "met" : "NOT met"}`]);
}
spawnSync(process.execPath, [bin, "daemon", "stop"], { env });
if (fs.existsSync(path.join(config, "hook.log"))) throw new Error(`a hook failed open: ${fs.readFileSync(path.join(config, "hook.log"), "utf8")}`);
fs.rmSync(base, { recursive: true, force: true });
console.log(`machine: ${machine()}; median of ${runs} pairs, each pair timed whole (Node's start included)\n`);
console.log(table(["shell pair (PreToolUse + PostToolUse, Bash)", "median ms", "ratio", "target"], rows));
