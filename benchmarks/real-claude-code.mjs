#!/usr/bin/env node
// What Comity's hooks cost a real Claude Code session: the pinned CLI (devDependencies), headless, against a scripted
// model on 127.0.0.1, one session of N edits (one file each) in a repo wired by `comity init` (command hooks through
// the native client, or `--http`), interleaved with the same session in a repo with no hooks at all, which is the
// anchor. Per style: each hook's time as Claude Code reports it (from its own `hook_started` to its `hook_response`
// event on its stream); the agent loop's wall time per tool call over the anchor's, as the median of the tool calls'
// rounds (one model request to the next: the tool, its Pre and Post hooks) and as their mean (the first request to the
// last, over the edits: it carries the first edit's warm-up); and the whole session's over the anchor's, per tool call
// (which adds the session's start, prompt, stop and end hooks). Two more styles are Claude Code's own floor: the same
// hooks doing nothing. Then the daemon SIGSTOPped before the first edit: what a stalled daemon costs a tool call.
//
//   node benchmarks/real-claude-code.mjs [--runs 3] [--edits 10] [--no-stopped]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { machine, median, table } from "./lib.mjs";
import { runClaude, startScriptedModel } from "./scripted-model.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const claudeBin = path.join(root, "node_modules", ".bin", "claude");
const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, edits: { type: "string", default: "10" }, "no-stopped": { type: "boolean", default: false } } });
const runs = Number(values.runs);
const edits = Number(values.edits);
if (!fs.existsSync(claudeBin)) {
  console.log("Claude Code is not installed (npm ci installs the pinned @anthropic-ai/claude-code): nothing measured");
  process.exit(0);
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "comity-bench-claude-")));
const home = path.join(base, "home");
const bin = path.join(base, "bin");
const configDir = path.join(base, "comity-config");
fs.mkdirSync(home);
fs.mkdirSync(bin);
fs.symlinkSync(path.join(root, "bin", "comity.cjs"), path.join(bin, "comity"));
fs.symlinkSync(path.join(root, "bin", "comity-hook"), path.join(bin, "comity-hook"));
const gitConfig = path.join(home, ".gitconfig");
fs.writeFileSync(gitConfig, "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n");
const env = { ...process.env, HOME: home, PATH: `${bin}${path.delimiter}${process.env.PATH}`, COMITY_CONFIG_DIR: configDir, GIT_CONFIG_GLOBAL: gitConfig, GIT_CONFIG_NOSYSTEM: "1" };
delete env.COMITY_DAEMON;
const git = (cwd, ...args) => spawnSync("git", args, { cwd, env, encoding: "utf8" });
const comity = (cwd, ...args) => {
  const r = spawnSync(process.execPath, [path.join(root, "bin", "comity.cjs"), ...args], { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`comity ${args.join(" ")}: ${r.stderr}`);
};

/** A repo of `edits` small TypeScript files, wired as `style` says. */
function repo(style) {
  const dir = path.join(base, `app-${style}`);
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  git(dir, "init", "-q");
  for (let i = 0; i < edits; i++) fs.writeFileSync(path.join(dir, "src", `f${i}.ts`), `export function f${i}(x: number): number {\n  return x + 0;\n}\n`);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  if (style === "command") comity(dir, "init", "--tool", "claude_code");
  if (style === "http") comity(dir, "init", "--tool", "claude_code", "--http");
  if (style === "noop-command" || style === "noop-http") {
    // Claude Code's own cost of two hooks that answer at once: `true`, or an HTTP server that answers `{}` at once
    // to a hook shaped as `init --http` writes them (the same headers and allowed variables).
    const ours = JSON.parse(fs.readFileSync(path.join(repos.http, ".claude", "settings.local.json"), "utf8")).hooks;
    const hook = (event) => (style === "noop-command" ? { type: "command", command: "true" } : { ...ours[event][0].hooks[0], url: `http://127.0.0.1:${noop.address().port}/` });
    const hooks = Object.fromEntries(["PreToolUse", "PostToolUse"].map((e) => [e, [{ matcher: ours[e][0].matcher, hooks: [hook(e)] }]]));
    fs.mkdirSync(path.join(dir, ".claude"));
    fs.writeFileSync(path.join(dir, ".claude", "settings.local.json"), JSON.stringify({ hooks }));
  }
  return dir;
}

const noop = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise((resolve) => noop.listen(0, "127.0.0.1", resolve));
const styles = ["none", "noop-command", "noop-http", "command", "http"];
// The no-op styles copy the hooks' shape from the http repo's, so it is made first.
const repos = {};
for (const s of ["none", "command", "http", "noop-command", "noop-http"]) repos[s] = repo(s);

function daemonPid() {
  try {
    return Number.parseInt(fs.readFileSync(path.join(configDir, "daemon.sock.pid"), "utf8"), 10) || null;
  } catch {
    return null;
  }
}

/** One session of `edits` edits in the repo of `style`; `before` runs when the model is asked for its first edit. */
async function session(style, before = async () => undefined) {
  const dir = repos[style];
  git(dir, "checkout", "-q", "--", "src");
  const steps = Array.from({ length: edits }, (_, i) => ({ tool: "Edit", input: { file_path: path.join(dir, "src", `f${i}.ts`), old_string: "x + 0", new_string: `x + ${i + 1}` } }));
  const model = await startScriptedModel([
    async () => {
      await before();
      return steps[0];
    },
    ...steps.slice(1),
    { text: "done" },
  ]);
  try {
    const run = await runClaude({ bin: claudeBin, cwd: dir, env, modelUrl: model.url });
    const errors = model.requests
      .at(-1)
      .messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === "tool_result" && b.is_error === true);
    if (run.code !== 0 || errors.length > 0) throw new Error(`${style} session failed: exit ${run.code}, ${errors.length} tool errors: ${run.stderr.slice(-500)}`);
    const hooks = {};
    for (const h of run.hooks) (hooks[h.event] ??= []).push(h.ms);
    // The agent loop's own time per tool call: from the model's first request to its last, over the edits between
    // (the mean, which carries the session's first edit, slower with or without hooks), and each tool call's round
    // from one request to the next (their median: the tool call as the session goes on).
    const loop = (model.arrivals.at(-1) - model.arrivals[0]) / edits;
    const rounds = model.arrivals.slice(1).map((t, i) => t - model.arrivals[i]);
    return { ms: run.ms, hooks, loop, round: median(rounds) };
  } finally {
    await model.close();
  }
}

// Warm: each style once (Claude Code's first start in a new HOME, the daemon started by the first hooks).
for (const s of styles) await session(s);
const wall = Object.fromEntries(styles.map((s) => [s, []]));
const loops = Object.fromEntries(styles.map((s) => [s, []]));
const rounds = Object.fromEntries(styles.map((s) => [s, []]));
const hooks = Object.fromEntries(styles.map((s) => [s, {}]));
for (let r = 0; r < runs; r++) {
  for (const s of styles) {
    const one = await session(s);
    wall[s].push(one.ms);
    loops[s].push(one.loop);
    rounds[s].push(one.round);
    for (const [event, ms] of Object.entries(one.hooks)) (hooks[s][event] ??= []).push(...ms);
  }
}

const ms1 = (x) => (x === undefined ? "–" : x.toFixed(0));
const perCall = (s) => (median(wall[s]) - median(wall.none)) / edits;
const perLoop = (s) => median(loops[s]) - median(loops.none);
const perRound = (s) => median(rounds[s]) - median(rounds.none);
const claudeOwn = (s, event) => (hooks[s][event] === undefined ? undefined : median(hooks[s][event]));
const verdict = (ok) => (ok ? "met" : "NOT met");
const rows = [];
rows.push(["no hooks (anchor): whole session", ms1(median(wall.none)), "", ""]);
for (const [s, what] of [
  ["noop-command", "Claude Code's own cost of command hooks doing nothing (`true`)"],
  ["noop-http", "Claude Code's own cost of HTTP hooks shaped as Comity's, answered `{}` at once"],
]) {
  rows.push([`floor, ${what}: added per tool call (median round)`, ms1(perRound(s)), "", ""]);
  rows.push([`floor, ${what}: added per tool call (loop mean)`, ms1(perLoop(s)), "", ""]);
}
for (const [s, toolTarget] of [
  ["command", 45],
  ["http", 30],
]) {
  const pre = claudeOwn(s, "PreToolUse");
  const post = claudeOwn(s, "PostToolUse");
  const both = pre === undefined || post === undefined ? undefined : pre + post;
  rows.push([`${s} hooks: whole session`, ms1(median(wall[s])), "", ""]);
  rows.push([`${s} hooks: added per tool call, wall time (median round over the anchor's)`, ms1(perRound(s)), `≤ ${toolTarget} ms`, verdict(perRound(s) <= toolTarget)]);
  rows.push([`${s} hooks: added per tool call, wall time (loop mean over the anchor's)`, ms1(perLoop(s)), `≤ ${toolTarget} ms`, verdict(perLoop(s) <= toolTarget)]);
  rows.push([`${s} hooks: the whole session's wall time over the anchor's, per tool call`, ms1(perCall(s)), "", ""]);
  rows.push([`${s} hooks: PreToolUse + PostToolUse as Claude Code reports them`, ms1(both), `≤ ${toolTarget} ms`, both === undefined ? "not recorded" : verdict(both <= toolTarget)]);
  const prompt = claudeOwn(s, "UserPromptSubmit");
  rows.push([`${s} hooks: UserPromptSubmit as Claude Code reports it`, ms1(prompt), "≤ 50 ms", prompt === undefined ? "not recorded" : verdict(prompt <= 50)]);
  const start = claudeOwn(s, "SessionStart");
  rows.push([`${s} hooks: SessionStart as Claude Code reports it`, ms1(start), "≤ 300 ms", start === undefined ? "not recorded" : verdict(start <= 300)]);
}

// A stalled daemon: SIGSTOPped when the model asks for its first edit (the session's start went through it).
const stopped = {};
for (const s of values["no-stopped"] ? [] : ["command", "http"]) {
  const xs = [];
  for (let r = 0; r < runs; r++) {
    let pid = null;
    const one = await session(s, async () => {
      pid = daemonPid();
      if (pid !== null) process.kill(pid, "SIGSTOP");
    });
    xs.push(one.ms);
    // The command hooks end a stopped daemon themselves; under --http nothing does until the next prompt.
    if (pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended by a hook already
      }
    }
    // A new daemon for the next run (the hooks may have started one already: then this says so and changes nothing).
    spawnSync(process.execPath, [path.join(root, "bin", "comity.cjs"), "daemon", "start"], { cwd: repos[s], env, stdio: "ignore" });
  }
  stopped[s] = (median(xs) - median(wall.none)) / edits;
  rows.push([`${s} hooks, daemon SIGSTOPped: added per tool call over the anchor`, ms1(stopped[s]), "≤ 1,500 ms", verdict(stopped[s] <= 1500)]);
}
spawnSync(process.execPath, [path.join(root, "bin", "comity.cjs"), "daemon", "stop"], { env, stdio: "ignore" });

const version = spawnSync(claudeBin, ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(
  `machine: ${machine()}; ${version}, headless, scripted model on 127.0.0.1; a session of ${edits} Edit calls (one file each), median of ${runs} interleaved runs per style after one warm-up each; a hook's time is from Claude Code's hook_started to its hook_response event, medians over every call\n`,
);
console.log(table(["Claude Code session", "ms", "target", "verdict"], rows));
fs.rmSync(base, { recursive: true, force: true });
noop.close();
