// The coordination scenario runner: each scenario (a JSON file in ./cases) sets up repos and clones, starts a real
// `comity serve`, plays an ordered script of host events through the built CLI with the exact command `comity
// init` writes (`comity hook --tool <host> --event <Event>`), applies the edits between them, and reads what each
// agent's model would see: a denial before a tool runs, context where the host shows it. It then scores recall
// (each expected warning seen by the affected agent at the step the scenario says) and false alarms (a coordination
// warning nobody expected there, or the same conflict told twice to one session). Used by
// test/scenarios/scenarios.test.ts and by `npm run scenarios` (scripts/scenarios.mjs), which prints the table.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The CLI under test: this checkout's, or another build's (`COMITY_SCENARIO_BIN`, to score older code side by side). */
export const BIN = process.env.COMITY_SCENARIO_BIN ?? path.resolve(HERE, "../../bin/comity.cjs");
/** The CLI the scenario being played runs (`runScenario`'s `bin` option; scenarios are played one at a time). */
let bin = BIN;
/** Whether it runs in this process (`runScenario`'s `inProcess` option): the same library the built CLI calls. */
let inProcess = false;
/** Whether hook events go through a daemon (`runScenario`'s `viaDaemon` option): the daemon's wire and server. */
let viaDaemon = false;
/** Whether Claude Code's tool-call events go over the daemon's HTTP front (`runScenario`'s `viaHttp` option). */
let viaHttp = false;
/** Whether hook events go through the native client `comity-hook` to the daemon (`runScenario`'s `viaNative` option). */
let viaNative = false;
/** The native hook client the install script made (`scripts/install-hook-client.mjs`). */
export const NATIVE_CLIENT = path.resolve(HERE, "../../bin/comity-hook");
/** The daemons started for the scenario being played, by config folder. */
const daemons = new Map();
/** Their snapshots kept between events, as `comity daemon run` keeps them (one watch for the whole run). */
let snapshotMemo = null;
/** What the daemons of one scenario keep between its events (as `comity daemon run` does), made at their first. */
let daemonRuntimes = null;
/** How many snapshots the daemons reused over the run (the scenarios' shell steps meet both cases). */
export const snapshotsReused = () => snapshotMemo?.stats().reused ?? 0;

/** Runs a hook event as the hook's thin path does: over the daemon's socket, to a daemon of this checkout. */
async function hookViaDaemon(args, { cwd, env, input }) {
  const { COMITY_DAEMON: _off, ...daemonEnv } = env;
  const { hookThroughDaemon, installedBuild, daemonSocketFor } = (await import(dist("daemon/daemon-client.cjs"))).default;
  const socket = daemonSocketFor(daemonEnv);
  const httpFront = await import(dist("daemon/daemon-http.js"));
  if (!daemons.has(socket)) {
    const { startDaemonServer } = await import(dist("daemon/start-daemon-server.js"));
    const { answerHookCall, daemonRuntime } = await import(dist("cli/commands/daemon.js"));
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // As `comity init --http` makes them: a port of its own and a secret, in the config folder.
    const config = viaHttp ? await httpFront.ensureDaemonHttpConfig(path.dirname(socket)) : null;
    // The daemon's own environment holds none of the session's variables: its HTTP events get those its command hooks
    // recorded.
    const baseEnv = Object.fromEntries(Object.entries(daemonEnv).filter(([k]) => !httpFront.HTTP_HOOK_ENV.includes(k)));
    const http = config === null ? {} : { http: { config, baseEnv, hosts: ["claude_code"] } };
    // As `comity daemon run`: a shell command's snapshots kept on the daemon's change watch (where the native addon
    // has one), git started by the native addon's posix_spawn, the embedded store open between events.
    const { createWatchedRoots } = await import(dist("daemon/watched-roots.js"));
    const { nativeChangeWatch } = await import(dist("daemon/native-change-watch.js"));
    const { createSnapshotMemo } = await import(dist("daemon/snapshot-memo.js"));
    snapshotMemo ??= createSnapshotMemo({ roots: createWatchedRoots(nativeChangeWatch, { maxRoots: 100_000 }) });
    daemonRuntimes ??= daemonRuntime(snapshotMemo);
    const runtime = await daemonRuntimes;
    const server = await startDaemonServer({ socket, build: installedBuild(), idleMs: 600_000, runHook: (call) => answerHookCall(call, runtime), ...http });
    if (server.httpProblem !== null) throw new Error(`the daemon's HTTP front: ${server.httpProblem}`);
    daemons.set(socket, server);
  }
  const [, tool, , event] = args.slice(1);
  if (viaHttp && tool === "claude_code" && event in httpFront.HTTP_HOOK_EVENTS) {
    // Posted as Claude Code posts an HTTP hook of `comity init --http`: its URL, its headers as Claude Code fills them
    // from the session's environment, the event as the body.
    const hook = httpFront.claudeHttpHooks(httpFront.readDaemonHttpConfig(path.dirname(socket)))[event];
    const headers = httpFront.headersAsSent(hook, daemonEnv);
    const res = await fetch(hook.url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: input });
    if (res.status !== 200) throw new Error(`the daemon's HTTP front answered ${res.status}: ${await res.text()}`);
    return { status: 0, stdout: await res.text(), stderr: "" };
  }
  if (viaNative) {
    // The native client as a host runs it (`comity-hook --tool T --event E`, the event on stdin); the daemon must
    // have answered it (a client that fell back to Node would be as right, and not what is tested here).
    const before = daemons.get(socket).status().served;
    const r = await runProcess(NATIVE_CLIENT, args.slice(1), { cwd, env: daemonEnv, input });
    if (daemons.get(socket).status().served !== before + 1) throw new Error(`comity-hook did not go through the daemon: ${r.stderr}`);
    return r;
  }
  const through = await hookThroughDaemon(args.slice(1), input, daemonEnv, cwd);
  if (!("stdout" in through)) throw new Error(`the daemon did not answer: ${JSON.stringify(through)}`);
  return { status: 0, stdout: through.stdout, stderr: "" };
}
/** This checkout's built library, for in-process play. */
const dist = (file) => new URL(`../../dist/${file}`, import.meta.url).href;
export const CASES_DIR = path.join(HERE, "cases");

/** The code every scenario starts from unless it says otherwise. */
export const FIXTURES = {
  "ts-app": {
    "package.json": '{\n  "name": "app",\n  "version": "1.0.0",\n  "type": "module"\n}\n',
    "src/config.ts":
      'export interface Config {\n  path: string;\n}\n\nexport function parseConfig(path: string): Config {\n  return { path };\n}\n\nexport function defaultPath(): string {\n  return "comity.json";\n}\n',
    "src/main.ts": 'import { parseConfig } from "./config.js";\n\nexport function main(): void {\n  console.log(parseConfig("a.json"));\n}\n',
    "src/calc.ts": "export class Calc {\n  add(a: number, b: number): number {\n    return a + b;\n  }\n\n  sub(a: number, b: number): number {\n    return a - b;\n  }\n}\n",
    "src/report.ts": 'import { Calc } from "./calc.js";\n\nexport function total(xs: number[]): number {\n  const c = new Calc();\n  return xs.reduce((a, x) => c.add(a, x), 0);\n}\n',
    "src/util.ts": "export function clamp(x: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, x));\n}\n",
    "README.md": "# app\n",
  },
  // A TypeScript library published as @acme/lib: its entry re-exports two of config.ts's three exports.
  "ts-lib": {
    "package.json": '{\n  "name": "@acme/lib",\n  "version": "1.0.0",\n  "type": "module",\n  "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/index.js" } }\n}\n',
    "src/index.ts": 'export { parseConfig, formatConfig } from "./config.js";\n',
    "src/config.ts":
      "export function parseConfig(path: string): object {\n  return { path };\n}\n\nexport function formatConfig(c: object): string {\n  return JSON.stringify(c);\n}\n\nexport function internalHelper(x: number): number {\n  return x;\n}\n",
  },
  // An app that depends on @acme/lib and calls parseConfig from it.
  "ts-consumer": {
    "package.json": '{\n  "name": "app",\n  "version": "1.0.0",\n  "type": "module",\n  "dependencies": { "@acme/lib": "^1.0.0" }\n}\n',
    "src/main.ts": 'import { parseConfig } from "@acme/lib";\n\nexport function main(): void {\n  console.log(parseConfig("a.json"));\n}\n',
    "src/util.ts": "export function clamp(x: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, x));\n}\n",
  },
  // A Python library published as acme-lib (import name acme_lib), and an app that imports from it.
  "py-lib": {
    "pyproject.toml": '[project]\nname = "acme-lib"\nversion = "0.1.0"\n',
    "acme_lib/__init__.py": "from .config import parse_config\n",
    "acme_lib/config.py": 'def parse_config(path):\n    return {"path": path}\n\n\ndef _private_helper(x):\n    return x\n',
  },
  "py-consumer": {
    "pyproject.toml": '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["acme-lib>=0.1"]\n',
    "app/__init__.py": "",
    "app/main.py": 'from acme_lib.config import parse_config\n\n\ndef main():\n    return parse_config("a.toml")\n',
  },
  "py-app": {
    "pyproject.toml": '[project]\nname = "app"\nversion = "0.1.0"\n',
    "app/__init__.py": "",
    "app/config.py": 'def parse_config(path):\n    return {"path": path}\n',
    "app/main.py": 'from app.config import parse_config\n\n\ndef main():\n    return parse_config("a.toml")\n',
    "app/util.py": "def clamp(x, lo, hi):\n    return min(hi, max(lo, x))\n",
  },
};

const KINDS = ["edit_conflict", "file_overlap", "symbol_overlap", "breaking_change", "cross_repo_breaking", "plan_overlap"];

/** Every scenario in ./cases, sorted by file name. */
export function loadScenarios(dir = CASES_DIR) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ file: f, ...JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) }));
}

function git(cwd, ...args) {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: gitEnv() });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

function gitEnv() {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
  };
}

function writeFiles(root, files) {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

/** Runs the built CLI (as a process, or its entry `runCli` in this one); resolves with its exit code and output. */
async function cli(args, { cwd, env, input = "" }) {
  if (inProcess && viaDaemon && args[0] === "hook") return hookViaDaemon(args, { cwd, env, input });
  if (inProcess) {
    const { runCli } = await import(dist("cli/main.js"));
    let stdout = "";
    let stderr = "";
    const io = {
      stdout: {
        write: (chunk, done) => {
          stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
          done?.();
          return true;
        },
      },
      stderr: {
        write: (text) => {
          stderr += text;
          return true;
        },
      },
      cwd,
      env,
      stdinIsTTY: false,
      readStdin: async () => input,
    };
    const status = await runCli(args, io);
    return { status, stdout, stderr };
  }
  return runProcess(process.execPath, [bin, ...args], { cwd, env, input });
}

/** A process with `input` on its stdin; resolves with its exit code and output. */
function runProcess(exe, args, { cwd, env, input }) {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

async function startServe(db, env) {
  if (inProcess) {
    const { openDatabase } = await import(dist("store/open-database.js"));
    const { createCoordinationServer } = await import(dist("serve/create-server.js"));
    const database = await openDatabase(db, { configDir: env.COMITY_CONFIG_DIR, cwd: path.dirname(env.COMITY_CONFIG_DIR) });
    const server = await createCoordinationServer({ database, log: () => undefined });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${server.address().port}`,
      stop: async () => {
        await new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        });
        await database.close();
      },
    };
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--db", db], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    child.stdout.on("data", (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m !== null)
        resolve({
          url: m[1],
          stop: () =>
            new Promise((r) => {
              child.on("exit", r);
              child.kill("SIGTERM");
            }),
        });
    });
    child.on("exit", (code) => reject(new Error(`comity serve exited (${code}): ${err}`)));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Host payloads, as each host sends them (docs/hooks.md), and what each host shows its model.

let counter = 0;
const nextId = (prefix) => `${prefix}-${(++counter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** The native event names `comity init` wires for a host, per Comity step. */
const NATIVE = {
  claude_code: {
    start: "SessionStart",
    prompt: "UserPromptSubmit",
    pre: "PreToolUse",
    post: "PostToolUse",
    preShell: "PreToolUse",
    postShell: "PostToolUse",
    plan: "PreToolUse",
    stop: "Stop",
    end: "SessionEnd",
  },
  codex: { start: "SessionStart", prompt: "UserPromptSubmit", pre: "PreToolUse", post: "PostToolUse", preShell: "PreToolUse", postShell: "PostToolUse", plan: null, stop: "Stop", end: null },
  cursor: {
    start: "sessionStart",
    prompt: "beforeSubmitPrompt",
    pre: "preToolUse",
    post: "afterFileEdit",
    preShell: "beforeShellExecution",
    postShell: "afterShellExecution",
    plan: null,
    stop: "stop",
    end: "sessionEnd",
  },
  copilot: {
    start: "sessionStart",
    prompt: "userPromptSubmitted",
    pre: "preToolUse",
    post: "postToolUse",
    preShell: "preToolUse",
    postShell: "postToolUse",
    plan: null,
    stop: "agentStop",
    end: "sessionEnd",
  },
};

/** An apply_patch envelope for one file, as Codex sends edits. */
/**
 * An apply_patch envelope for one file, as Codex sends edits: an added file whole, or an update of the whole lines
 * that hold the replaced text (`before` in `file`, replaced by `after`), with a line of context on each side.
 */
function patchEnvelope(rel, before, after, file = null) {
  if (before === null || file === null)
    return `*** Begin Patch\n*** Add File: ${rel}\n${after
      .split("\n")
      .map((l) => `+${l}`)
      .join("\n")}\n*** End Patch`;
  const at = file.indexOf(before);
  const first = file.lastIndexOf("\n", at - 1) + 1;
  const endAt = file.indexOf("\n", at + before.length);
  const last = endAt < 0 ? file.length : endAt;
  const oldLines = file.slice(first, last).split("\n");
  const newLines = file.slice(first, last).replace(before, after).split("\n");
  const lines = file.split("\n");
  const startLine = file.slice(0, first).split("\n").length - 1;
  const ctxBefore = startLine > 0 ? [` ${lines[startLine - 1]}`] : [];
  const after1 = lines[startLine + oldLines.length];
  const ctxAfter = after1 !== undefined && after1 !== "" ? [` ${after1}`] : [];
  const hunk = [...ctxBefore, ...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`), ...ctxAfter];
  return `*** Begin Patch\n*** Update File: ${rel}\n@@\n${hunk.join("\n")}\n*** End Patch`;
}

function payload(host, s, phase, extra) {
  const { cwd } = s;
  if (host === "claude_code") {
    const common = {
      session_id: s.id,
      transcript_path: path.join(os.tmpdir(), `${s.id}.jsonl`),
      cwd,
      permission_mode: "default",
      ...(s.agentId ? { agent_id: s.agentId, agent_type: "general-purpose" } : {}),
    };
    switch (phase) {
      case "start":
        return { ...common, hook_event_name: "SessionStart", source: "startup", model: "claude-sonnet-4-5" };
      case "prompt":
        return { ...common, hook_event_name: "UserPromptSubmit", prompt: extra.text, prompt_id: nextId("p") };
      case "pre":
      case "preShell":
      case "plan":
        return { ...common, hook_event_name: "PreToolUse", tool_name: extra.tool, tool_input: extra.input, tool_use_id: extra.toolUseId };
      case "post":
      case "postShell":
        return { ...common, hook_event_name: "PostToolUse", tool_name: extra.tool, tool_input: extra.input, tool_use_id: extra.toolUseId, tool_response: { success: true } };
      case "stop":
        return { ...common, hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: extra.text ?? "Done." };
      case "end":
        return { ...common, hook_event_name: "SessionEnd", reason: "prompt_input_exit" };
    }
  }
  if (host === "codex") {
    const common = { session_id: s.id, transcript_path: null, cwd, model: "gpt-5-codex", permission_mode: "default", ...(s.agentId ? { agent_id: s.agentId, agent_type: "worker" } : {}) };
    switch (phase) {
      case "start":
        return { ...common, hook_event_name: "SessionStart", source: "startup" };
      case "prompt":
        s.turn = nextId("turn");
        return { ...common, hook_event_name: "UserPromptSubmit", turn_id: s.turn, prompt: extra.text };
      case "pre":
      case "preShell":
        return { ...common, hook_event_name: "PreToolUse", turn_id: s.turn, tool_name: extra.tool, tool_input: extra.input, tool_use_id: extra.toolUseId };
      case "post":
      case "postShell":
        return { ...common, hook_event_name: "PostToolUse", turn_id: s.turn, tool_name: extra.tool, tool_input: extra.input, tool_use_id: extra.toolUseId, tool_response: "Success" };
      case "stop":
        return { ...common, hook_event_name: "Stop", turn_id: s.turn, stop_hook_active: false, last_assistant_message: extra.text ?? "Done." };
    }
  }
  if (host === "cursor") {
    const common = { conversation_id: s.id, generation_id: nextId("gen"), model: "gpt-5", cursor_version: "1.7.2", workspace_roots: [cwd], user_email: null, transcript_path: null };
    switch (phase) {
      case "start":
        return { ...common, hook_event_name: "sessionStart", session_id: s.id, is_background_agent: false, composer_mode: "agent" };
      case "prompt":
        return { ...common, hook_event_name: "beforeSubmitPrompt", prompt: extra.text, attachments: [] };
      case "pre":
        return {
          ...common,
          hook_event_name: "preToolUse",
          tool_name: "Write",
          tool_input: { file_path: extra.input.file_path, content: extra.after },
          tool_use_id: extra.toolUseId,
          cwd,
          agent_message: "",
        };
      case "post":
        return { ...common, hook_event_name: "afterFileEdit", file_path: extra.input.file_path, edits: [{ old_string: extra.before ?? "", new_string: extra.after }] };
      case "preShell":
        return { ...common, hook_event_name: "beforeShellExecution", command: extra.input.command, cwd, timeout: 30000 };
      case "postShell":
        return { ...common, hook_event_name: "afterShellExecution", command: extra.input.command, output: "", duration: 10 };
      case "stop":
        return { ...common, hook_event_name: "stop", status: "completed", loop_count: 0 };
      case "end":
        return { ...common, hook_event_name: "sessionEnd", session_id: s.id, reason: "user_close", duration_ms: 1000, is_background_agent: false, final_status: "completed" };
    }
  }
  if (host === "copilot") {
    const common = { sessionId: s.id, timestamp: Date.now(), cwd };
    switch (phase) {
      case "start":
        return { ...common, source: "new", initialPrompt: "" };
      case "prompt":
        return { ...common, prompt: extra.text };
      case "pre":
      case "preShell":
        return { ...common, toolName: extra.copilotTool, toolArgs: JSON.stringify(extra.copilotArgs) };
      case "post":
      case "postShell":
        return { ...common, toolName: extra.copilotTool, toolArgs: JSON.stringify(extra.copilotArgs), toolResult: { resultType: "success", textResultForLlm: "ok" } };
      case "stop":
        return { ...common, transcriptPath: "/tmp/t.json", stopReason: "end_turn" };
      case "end":
        return { ...common, reason: "complete" };
    }
  }
  throw new Error(`no ${phase} payload for ${host}`);
}

/** What the model reads from one hook answer: a denial (before the tool runs) and context. */
function seen(host, native, stdout) {
  const text = stdout.trim();
  if (text === "") return { denied: null, context: null };
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return { denied: null, context: null };
  }
  const hso = json.hookSpecificOutput ?? {};
  if (host === "claude_code" || host === "codex") {
    if (hso.permissionDecision === "deny") return { denied: hso.permissionDecisionReason ?? "", context: null };
    // Claude Code shows PreToolUse context next to the tool result only; the hook queues it instead of printing it.
    return { denied: null, context: typeof hso.additionalContext === "string" ? hso.additionalContext : null };
  }
  if (host === "cursor") {
    if (native === "preToolUse" && json.decision === "deny") return { denied: json.reason ?? "", context: null };
    if (native === "beforeShellExecution" && json.permission === "deny") return { denied: json.agent_message ?? "", context: null };
    return { denied: null, context: native === "sessionStart" && typeof json.additional_context === "string" ? json.additional_context : null };
  }
  if (host === "copilot") {
    return { denied: json.permissionDecision === "deny" ? (json.permissionDecisionReason ?? "") : null, context: null };
  }
  return { denied: null, context: null };
}

/** The coordination warnings in a text: `CF-n kind` lines. */
function alarmsIn(text) {
  const out = [];
  if (text === null) return out;
  for (const line of text.split("\n")) {
    const m = /CF-(\d+) (edit_conflict|file_overlap|symbol_overlap|breaking_change|cross_repo_breaking|plan_overlap)\b/.exec(line);
    if (m !== null) out.push({ ref: `CF-${m[1]}`, kind: m[2], line });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Plays one scenario. `options.mode`: `served` (the default: a real `comity serve`, on `options.db`, a SQLite path
 * or PostgreSQL URL, a fresh SQLite file in the scenario's folder when absent) or `embedded` (no server, no
 * `COMITY_API_URL`: the hooks coordinate through the config folder's store, as on one machine out of the box). A
 * scenario that needs two machines (`served_only`, saying why) is skipped in embedded mode. `options.bin`: the CLI
 * to play it with (this checkout's by default); `options.inProcess`: play it through this checkout's built library
 * in this process instead (its CLI entry and server, the code the processes run, without a process an event);
 * with it, `options.viaDaemon` sends each hook event over a daemon's socket, `options.viaNative` runs the native
 * client `comity-hook` for each event, which calls that daemon, and `options.viaHttp` sends Claude Code's tool-call
 * events to the daemon's HTTP front as `comity init --http` wires them (the others over its socket).
 * Returns the score and a transcript of what each agent saw.
 */
export async function runScenario(scenario, options = {}) {
  bin = options.bin ?? BIN;
  inProcess = options.inProcess === true;
  viaDaemon = options.viaDaemon === true || options.viaHttp === true || options.viaNative === true;
  viaHttp = options.viaHttp === true;
  viaNative = options.viaNative === true;
  const embedded = options.mode === "embedded";
  if (embedded && scenario.served_only !== undefined)
    return {
      name: scenario.name,
      file: scenario.file,
      items: scenario.items ?? [],
      hosts: [],
      skipped: scenario.served_only,
      expected: 0,
      recalled: 0,
      falseAlarms: 0,
      misses: [],
      alarms: [],
      transcript: [],
    };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-scn-"));
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  const baseEnv = { ...gitEnv(), HOME: home, COMITY_CONFIG_DIR: path.join(dir, "config") };
  // Each scenario has a config folder of its own, so a daemon of its own: played as processes, the hooks run each
  // event themselves unless asked (`options.daemon`), or a run would leave one daemon per scenario behind it.
  if (options.daemon === true) delete baseEnv.COMITY_DAEMON;
  else baseEnv.COMITY_DAEMON = "off";
  delete baseEnv.COMITY_API_URL;
  delete baseEnv.COMITY_TOKEN;
  delete baseEnv.COMITY_AGENT_NAME;
  const transcript = [];
  let serve = null;
  try {
    // Repos: an origin per repo, then each clone or worktree of it, all with the same remote URL.
    const origins = {};
    for (const [name, spec] of Object.entries(scenario.repos ?? { app: {} })) {
      const src = path.join(dir, `${name}.src`);
      fs.mkdirSync(src);
      git(src, "init", "-q", "-b", "main");
      writeFiles(src, { ...(FIXTURES[spec.fixture ?? "ts-app"] ?? {}), ...(spec.files ?? {}) });
      git(src, "add", "-A");
      git(src, "commit", "-q", "-m", "initial");
      origins[name] = { src, remote: spec.remote ?? `git@github.com:acme/${name}.git` };
    }
    const clones = {};
    for (const [folder, spec] of Object.entries(scenario.clones ?? { one: "app", two: "app" })) {
      const s = typeof spec === "string" ? { repo: spec } : spec;
      const target = path.join(dir, "work", folder);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (s.worktree_of !== undefined) {
        git(clones[s.worktree_of], "worktree", "add", "-q", "-b", s.branch ?? folder, target);
      } else {
        git(path.dirname(target), "clone", "-q", origins[s.repo].src, target);
        git(target, "remote", "set-url", "origin", origins[s.repo].remote);
        if (s.branch !== undefined) git(target, "checkout", "-q", "-b", s.branch);
      }
      clones[folder] = target;
    }
    // The server, and a token per team; in embedded mode, the machine's own store and its policy.
    // `options.serveUrl`: servers already running on `options.db` (replicas behind a balancer), shared by scenarios
    // played one after another; each scenario's teams get `options.teamSuffix`, so that none sees another's rows.
    const db = options.db ?? path.join(dir, "serve.sqlite");
    const suffix = options.teamSuffix ?? "";
    const setPolicy = async (team, policy) => {
      const p = embedded ? await cli(["policy", policy], { cwd: dir, env: baseEnv }) : await cli(["serve", "policy", "--team", `${team}${suffix}`, policy, "--db", db], { cwd: dir, env: baseEnv });
      if (p.status !== 0) throw new Error(`policy: ${p.stderr}`);
    };
    if (!embedded) serve = options.serveUrl === undefined ? await startServe(db, baseEnv) : { url: options.serveUrl, stop: async () => undefined };
    const tokens = {};
    const teams = [...new Set(Object.values(scenario.sessions).map((s) => s.team ?? "acme"))];
    if (embedded && scenario.policy !== undefined) await setPolicy("local", scenario.policy);
    for (const team of embedded ? [] : teams) {
      const r = await cli(["serve", "token", "create", "--team", `${team}${suffix}`, "--db", db], { cwd: dir, env: baseEnv });
      if (r.status !== 0) throw new Error(`token create: ${r.stderr}`);
      tokens[team] = r.stdout.trim();
      if (scenario.policy !== undefined) await setPolicy(team, scenario.policy);
    }
    const sessions = {};
    for (const [name, spec] of Object.entries(scenario.sessions)) {
      const parent = spec.parent === undefined ? null : sessions[spec.parent];
      sessions[name] = {
        name,
        host: spec.host ?? "claude_code",
        id: parent === null ? nextId(`s-${name}`) : parent.id,
        agentId: parent === null ? null : nextId("agent"),
        // A session may run in the folder that holds the clones (a workspace of repos) instead of in one of them.
        cwd: spec.workspace === true ? path.join(dir, "work") : path.join(clones[spec.clone ?? "one"], spec.folder ?? ""),
        env: embedded
          ? { ...baseEnv, COMITY_AGENT_NAME: spec.label ?? name }
          : { ...baseEnv, COMITY_API_URL: serve.url, COMITY_TOKEN: tokens[spec.team ?? "acme"], COMITY_AGENT_NAME: spec.label ?? name },
        turn: nextId("turn"),
        seenRefs: new Set(),
      };
    }

    const hook = async (s, phase, extra = {}) => {
      const native = NATIVE[s.host][phase];
      if (native === null || native === undefined) return { denied: null, context: null, native: null };
      const body = payload(s.host, s, phase, extra);
      const r = await cli(["hook", "--tool", s.host, "--event", native], { cwd: s.cwd, env: s.env, input: JSON.stringify(body) });
      if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
      return { ...seen(s.host, native, r.stdout), native };
    };

    // Before each edit, the MCP server's check_edit (the hook's pipeline as a dry run, `checkHookEvent`) on the same
    // event: its verdict must be the one the PreToolUse hook then gives. A disagreement is a miss.
    const dryRun = async (s, extra) => {
      const native = NATIVE[s.host].pre;
      if (native === null || native === undefined) return null;
      const { checkHookEvent } = await import(dist("hook/run-hook.js"));
      const { verdict } = await checkHookEvent({ tool: s.host, event: native, stdin: JSON.stringify(payload(s.host, s, "pre", extra)), env: s.env, cwd: s.cwd });
      return verdict;
    };
    const score = { expected: 0, recalled: 0, falseAlarms: 0, misses: [], alarms: [], checks: { total: 0, agreed: 0 } };
    for (const [i, step] of scenario.steps.entries()) {
      if (step.do === "api-down") {
        // An API that no longer answers: a port nothing listens on. In embedded mode, coordination turned off.
        for (const x of Object.values(sessions)) x.env = { ...x.env, COMITY_API_URL: embedded ? "off" : "http://127.0.0.1:9" };
        continue;
      }
      if (step.do === "policy") {
        await setPolicy(step.team ?? "acme", step.policy);
        continue;
      }
      const s = sessions[step.session];
      if (s === undefined) throw new Error(`step ${i}: no session ${step.session}`);
      const views = []; // { phase, denied, context }
      const record = (phase, v) => views.push({ phase, denied: v.denied, context: v.context });
      switch (step.do) {
        case "start":
          record("start", await hook(s, "start"));
          break;
        case "prompt":
          record("prompt", await hook(s, "prompt", { text: step.text ?? "Carry on." }));
          break;
        case "stop":
          record("stop", await hook(s, "stop", { text: step.text }));
          break;
        case "end":
          record("end", await hook(s, "end"));
          break;
        case "git":
          git(s.cwd, ...step.args);
          break;
        case "message": {
          // An agent reaching another through its shell tool, as a warning tells it to.
          const to = step.to_session === undefined ? step.to : sessions[step.to_session].id;
          const r = await cli(["message", to, step.text], { cwd: s.cwd, env: s.env });
          if (r.status !== 0) throw new Error(`step ${i}: comity message exited ${r.status}: ${r.stderr}`);
          record("message", { denied: null, context: null });
          break;
        }
        case "who": {
          const r = await cli(["who", step.file], { cwd: s.cwd, env: s.env });
          if (r.status !== 0) throw new Error(`step ${i}: comity who exited ${r.status}: ${r.stderr}`);
          // What the command printed, read as the agent reads its shell's output.
          record("who", { denied: null, context: r.stdout });
          break;
        }
        case "plan":
          record("plan", await hook(s, "plan", { tool: "ExitPlanMode", input: { plan: step.text }, toolUseId: nextId("tu") }));
          if (views.at(-1).denied !== null && step.retry !== false) record("plan-retry", await hook(s, "plan", { tool: "ExitPlanMode", input: { plan: step.text }, toolUseId: nextId("tu") }));
          break;
        case "edit": {
          const abs = path.join(s.cwd, step.file);
          const before = fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : null;
          let after;
          if (step.write !== undefined) after = step.write;
          else {
            const [from, to] = step.replace;
            if (before === null || !before.includes(from)) throw new Error(`step ${i}: ${step.file} has no '${from}'`);
            after = before.replace(from, to);
          }
          const edited = step.replace === undefined ? null : step.replace;
          const input = edited === null ? { file_path: abs, content: after } : { file_path: abs, old_string: edited[0], new_string: edited[1] };
          const tool = edited === null ? "Write" : "Edit";
          const patch = patchEnvelope(step.file, edited === null ? null : edited[0], edited === null ? after : edited[1], before);
          const copilotTool = edited === null ? "create" : "edit";
          const copilotArgs = edited === null ? { path: abs, file_text: after } : { path: abs, old_str: edited[0], new_str: edited[1] };
          const call = () => {
            const toolUseId = nextId("tu");
            return s.host === "codex"
              ? { tool: "apply_patch", input: { command: patch }, toolUseId, before, after, copilotTool, copilotArgs }
              : { tool, input, toolUseId, before, after, copilotTool, copilotArgs };
          };
          let c = call();
          // (with coordination turned off there is nothing to check against)
          const checked = options.checkEdits === false || s.env.COMITY_API_URL === "off" || s.env.COMITY_API_URL === "http://127.0.0.1:9" ? null : await dryRun(s, c);
          let pre = await hook(s, "pre", c);
          record("pre", pre);
          if (checked !== null) {
            score.checks.total++;
            if ((checked.block !== null) === (pre.denied !== null)) score.checks.agreed++;
            else
              score.misses.push(
                `step ${i} (${step.session} edit): check_edit said ${checked.block !== null ? "deny" : "allow"}, the PreToolUse hook then ${pre.denied !== null ? "denied" : "allowed"} the edit`,
              );
          }
          if (pre.denied !== null && step.retry !== false) {
            c = call();
            pre = await hook(s, "pre", c);
            record("retry", pre);
          }
          if (pre.denied === null) {
            fs.mkdirSync(path.dirname(abs), { recursive: true });
            fs.writeFileSync(abs, after);
            record("post", await hook(s, "post", c));
          }
          break;
        }
        case "shell": {
          const call = () => ({ tool: "Bash", input: { command: step.command }, toolUseId: nextId("tu"), copilotTool: "bash", copilotArgs: { command: step.command } });
          const c = call();
          let pre = await hook(s, "preShell", c);
          record("pre", pre);
          if (pre.denied !== null && step.retry !== false) {
            pre = await hook(s, "preShell", c);
            record("retry", pre);
          }
          if (pre.denied === null) {
            const r = spawnSync("sh", ["-c", step.command], { cwd: s.cwd, env: gitEnv(), encoding: "utf8" });
            if (r.status !== 0 && step.mayFail !== true) throw new Error(`step ${i}: '${step.command}' failed: ${r.stderr}`);
            record("post", await hook(s, "postShell", c));
          }
          break;
        }
        default:
          throw new Error(`step ${i}: unknown action ${step.do}`);
      }

      // What the agent saw at this step, against what the scenario expects it to see.
      const expectations = step.expect ?? [];
      const alarms = views.flatMap((v) => [...alarmsIn(v.denied).map((a) => ({ ...a, phase: v.phase, before: true })), ...alarmsIn(v.context).map((a) => ({ ...a, phase: v.phase, before: false }))]);
      const matched = new Set();
      for (const e of expectations) {
        score.expected++;
        let ok;
        const all = views
          .flatMap((v) => [v.denied, v.context])
          .filter((t) => t !== null)
          .join("\n");
        if (e.text !== undefined) {
          ok = views.some((v) => [v.denied, v.context].some((t) => t?.includes(e.text) && (e.before !== true || t === v.denied)));
        } else if (e.absent !== undefined) {
          ok = !all.includes(e.absent);
        } else if (e.order !== undefined) {
          const at = e.order.map((x) => all.indexOf(x));
          ok = at.every((x) => x >= 0) && at.every((x, k) => k === 0 || x > (at[k - 1] ?? -1));
        } else {
          const hit = alarms.findIndex((a, j) => !matched.has(j) && a.kind === e.kind && (e.mentions ?? []).every((m) => a.line.includes(m)) && (e.before !== true || a.before));
          ok = hit >= 0;
          if (ok) matched.add(hit);
        }
        if (ok) score.recalled++;
        else
          score.misses.push(
            `step ${i} (${step.session} ${step.do}): expected ${e.kind ?? (e.absent !== undefined ? "no" : e.order !== undefined ? "in order" : "text")} ${JSON.stringify(e.mentions ?? e.text ?? e.absent ?? e.order)}${e.before ? " before the tool" : ""}`,
          );
      }
      alarms.forEach((a, j) => {
        const repeat = s.seenRefs.has(a.ref);
        if (!matched.has(j) || repeat) {
          // A denial and then its retry's context of one conflict is one telling.
          if (!matched.has(j) && alarms.some((b, k) => k !== j && matched.has(k) && b.ref === a.ref)) return;
          score.falseAlarms++;
          score.alarms.push(`step ${i} (${step.session} ${step.do}): ${repeat ? "told again" : "unexpected"}: ${a.line.trim()}`);
        }
      });
      for (const a of alarms) s.seenRefs.add(a.ref);
      if (step.silent === true && views.some((v) => v.denied !== null)) {
        score.falseAlarms++;
        score.alarms.push(`step ${i} (${step.session} ${step.do}): denied where nothing should be said`);
      }
      transcript.push({ step: i, session: step.session, do: step.do, views });
    }
    return { name: scenario.name, file: scenario.file, items: scenario.items ?? [], skipped: null, hosts: [...new Set(Object.values(sessions).map((s) => s.host))], ...score, transcript };
  } finally {
    for (const daemon of daemons.values()) await daemon.close("scenario over");
    if (daemonRuntimes !== null) {
      const runtime = await daemonRuntimes;
      daemonRuntimes = null;
      await runtime.stores?.close();
      runtime.connections?.close();
    }
    daemons.clear();
    if (serve !== null) await serve.stop();
    if (options.keep !== true) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A plain-text table of scenario results and the totals. */
export function formatTable(results) {
  const rows = results.map((r) => [
    r.file.replace(/\.json$/, ""),
    r.items.join(","),
    r.hosts.join(","),
    `${r.recalled}/${r.expected}`,
    r.expected === 0 ? "-" : `${((100 * r.recalled) / r.expected).toFixed(0)}%`,
    String(r.falseAlarms),
  ]);
  const expected = results.reduce((n, r) => n + r.expected, 0);
  const recalled = results.reduce((n, r) => n + r.recalled, 0);
  const alarms = results.reduce((n, r) => n + r.falseAlarms, 0);
  rows.push(["total", "", "", `${recalled}/${expected}`, expected === 0 ? "-" : `${((100 * recalled) / expected).toFixed(1)}%`, String(alarms)]);
  const head = ["scenario", "items", "hosts", "told", "recall", "false alarms"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export { KINDS };
