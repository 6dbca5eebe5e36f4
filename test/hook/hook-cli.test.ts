import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { ALLOW, startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

let sb: Sandbox;
let server: RecordingServer;
let repo: string;
let env: NodeJS.ProcessEnv;
let configDir: string;

beforeEach(async () => {
  sb = createSandbox();
  server = await startRecordingServer();
  repo = repoWithRemote(sb, "api");
  configDir = path.join(sb.dir, "..", "comity-config");
  env = { ...sb.env, COMITY_API_URL: server.url, COMITY_TOKEN: "tok-123", COMITY_CONFIG_DIR: configDir };
});
afterEach(async () => {
  await server.close();
  sb.cleanup();
});

const claude = (event: string, extra: Record<string, unknown> = {}) => ({ session_id: "sess-1", transcript_path: "/tmp/t.jsonl", cwd: repo, hook_event_name: event, ...extra });
const codex = (event: string, extra: Record<string, unknown> = {}) => ({
  session_id: "cx-1",
  transcript_path: null,
  cwd: repo,
  hook_event_name: event,
  model: "gpt-5-codex",
  turn_id: "turn-1",
  ...extra,
});

async function hook(tool: string, event: string, payload: unknown, extraEnv: NodeJS.ProcessEnv = {}) {
  return runBuiltCliAsync(["hook", "--tool", tool, "--event", event], { cwd: repo, env: { ...env, ...extraEnv }, input: typeof payload === "string" ? payload : JSON.stringify(payload) });
}

const logLines = (): string[] => readHookLog(configDir);

describe("comity hook: Claude Code and Codex events to requests", () => {
  it("maps every Claude Code event and sends the documented fields", async () => {
    let r = await hook("claude_code", "SessionStart", claude("SessionStart", { source: "startup", model: "claude-x" }));
    expect(r.status).toBe(0);
    r = await hook("claude_code", "UserPromptSubmit", claude("UserPromptSubmit", { prompt: "fix the config parser" }));
    r = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "ExitPlanMode", tool_input: { plan: "1. change parseConfig" }, tool_use_id: "t0" }));
    r = await hook(
      "claude_code",
      "PreToolUse",
      claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts"), old_string: "a", new_string: "b" }, tool_use_id: "t1" }),
    );
    fs.writeFileSync(path.join(repo, "src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return {};\n}\n");
    r = await hook("claude_code", "PostToolUse", claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_response: {}, tool_use_id: "t1" }));
    r = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Bash", tool_input: { command: "cat <<'EOF' | tee notes.md\nhello\nEOF" }, tool_use_id: "t2" }));
    fs.writeFileSync(path.join(repo, "notes.md"), "hello\n");
    r = await hook("claude_code", "PostToolUse", claude("PostToolUse", { tool_name: "Bash", tool_input: { command: "cat <<'EOF' | tee notes.md\nhello\nEOF" }, tool_response: {}, tool_use_id: "t2" }));
    r = await hook("claude_code", "Stop", claude("Stop", { stop_hook_active: false, last_assistant_message: "Done: parseConfig now takes strict." }));
    r = await hook("claude_code", "SessionEnd", claude("SessionEnd", { reason: "prompt_input_exit" }));
    expect(r.stdout).toBe("");
    const events = server.requests.map((q) => q.body["event"]);
    expect(events).toEqual(["session_start", "prompt", "plan", "pre_edit", "post_edit", "pre_shell", "post_edit", "stop", "session_end"]);
    const [start, prompt, plan, preEdit, postEdit, preShell, postShell, stop] = server.requests.map((q) => q.body) as Array<Record<string, any>>;
    expect(server.requests[0]?.url).toBe("/v1/hooks/evaluate");
    expect(server.requests[0]?.headers["authorization"]).toBe("Bearer tok-123");
    expect(start?.["session"]).toEqual({ external_id: "sess-1", tool: "claude_code", model: "claude-x", surface: "hook", parent_external_id: null, label: os.hostname() });
    expect(start?.["client"]).toMatchObject({ cli_version: expect.any(String), os: process.platform, machine_id_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(start?.["repo"]).toMatchObject({
      remote_fingerprints: [expect.stringMatching(/^[0-9a-f]{64}$/)],
      branch: "main",
      head_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      cwd_path: ".",
      worktree_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      packages: [],
    });
    expect(prompt?.["prompt_excerpt"]).toBe("fix the config parser");
    expect(plan?.["plan_text"]).toBe("1. change parseConfig");
    expect(preEdit?.["paths"]).toEqual(["src/config.ts"]);
    expect(postEdit?.["paths"]).toEqual(["src/config.ts"]);
    expect(postEdit?.["analysis"][0]).toMatchObject({ path: "src/config.ts", language: "typescript", changes: [{ qualified_name: "parseConfig", compatibility: "breaking" }], references: [] });
    expect(preEdit?.["uses"]).toEqual([]);
    expect(JSON.stringify(postEdit?.["analysis"])).not.toContain("strict: boolean"); // no signature text, no contents
    expect(preShell?.["shell"]).toEqual({ command: "cat <<'EOF' | tee notes.md\n… 1 line …\nEOF", paths: ["notes.md"], unresolved: 0 });
    expect(postShell?.["paths"]).toEqual(["notes.md"]);
    expect(stop?.["status"]).toEqual({ excerpt: "Done: parseConfig now takes strict.", files: ["notes.md", "src/config.ts"] });
    for (const q of server.requests) expect(q.body["dedupe_key"]).toMatch(/^[0-9a-f]{32}$/);
    expect(logLines()).toEqual([]);
  });

  it("sends what an edited file imports before the edit (as it is and as the edit writes it), every import after it, a label, and a parse failure as such", async () => {
    fs.writeFileSync(path.join(repo, "src/main.ts"), 'import { parseConfig } from "./config.js";\nimport * as fs from "node:fs";\nparseConfig("x");\n');
    const write = { file_path: path.join(repo, "src/cli.ts"), content: 'import { defaultPath } from "./config";\nexport const p = defaultPath();\n' };
    await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Write", tool_input: write, tool_use_id: "u1" }), { COMITY_AGENT_NAME: "alice-laptop" });
    await hook(
      "claude_code",
      "PreToolUse",
      claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/main.ts"), old_string: "x", new_string: "y" }, tool_use_id: "u2" }),
    );
    await hook("claude_code", "PostToolUse", claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/main.ts") }, tool_response: {}, tool_use_id: "u2" }));
    fs.writeFileSync(path.join(repo, "src/config.ts"), "export function parseConfig(path: string {\n");
    await hook("claude_code", "PostToolUse", claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_response: {}, tool_use_id: "u3" }));
    const [newFile, edit, after, broken] = server.requests.map((q) => q.body as Record<string, any>);
    expect(newFile?.["session"]["label"]).toBe("alice-laptop");
    expect(newFile?.["uses"]).toEqual([{ path: "src/cli.ts", name: "defaultPath", module: "./config" }]);
    expect(edit?.["uses"]).toEqual([
      { path: "src/main.ts", name: "*", module: "node:fs" },
      { path: "src/main.ts", name: "parseConfig", module: "./config.js" },
    ]);
    expect(after?.["analysis"][0]["references"]).toEqual([
      { kind: "import", name: "*", module: "node:fs" },
      { kind: "import", name: "parseConfig", module: "./config.js" },
    ]);
    // A file that no longer parses: no symbol of it counts as removed.
    expect(broken?.["analysis"][0]).toMatchObject({ path: "src/config.ts", parse_error: true, changes: [] });
    expect(broken?.["analysis"][0]["symbols"]).toBeUndefined();
  });

  it("sends at most 1,000 symbol changes in one request, breaking ones first, and says it left some out", async () => {
    const fns = (sig: string) => Array.from({ length: 1001 }, (_, i) => `export function f${i}(${sig}): void {}\n`).join("");
    fs.writeFileSync(path.join(repo, "src/many.ts"), fns("a: number"));
    sb.git(repo, "add", "-A");
    sb.git(repo, "commit", "-qm", "many");
    fs.writeFileSync(path.join(repo, "src/many.ts"), `${fns("a: number, b: number")}export const added = 1;\n`);
    await hook("claude_code", "PostToolUse", claude("PostToolUse", { tool_name: "Write", tool_input: { file_path: path.join(repo, "src/many.ts") }, tool_response: {}, tool_use_id: "m1" }));
    const sent = server.requests[0]?.body as Record<string, any>;
    expect(sent["analysis_truncated"]).toBe(true);
    const changes = sent["analysis"][0]["changes"] as Array<{ compatibility: string; qualified_name: string }>;
    expect(changes).toHaveLength(1000);
    expect(changes.every((c) => c.compatibility === "breaking")).toBe(true);
  });

  it("maps Codex events: apply_patch edits, shell commands, and Stop always answers JSON", async () => {
    const patch =
      "*** Begin Patch\n*** Add File: src/new.ts\n+export const n = 1;\n*** Update File: src/config.ts\n*** Move to: src/settings.ts\n@@\n-a\n+b\n*** Delete File: src/old.ts\n*** End Patch";
    await hook("codex", "SessionStart", codex("SessionStart", { source: "startup" }));
    await hook("codex", "UserPromptSubmit", codex("UserPromptSubmit", { prompt: "go" }));
    await hook("codex", "PreToolUse", codex("PreToolUse", { tool_name: "apply_patch", tool_input: { command: patch }, tool_use_id: "c1" }));
    await hook("codex", "PreToolUse", codex("PreToolUse", { tool_name: "Bash", tool_input: { command: `apply_patch <<'EOF'\n${patch}\nEOF` }, tool_use_id: "c2" }));
    await hook("codex", "PreToolUse", codex("PreToolUse", { tool_name: "exec_command", tool_input: { command: "echo hi > out.txt" }, tool_use_id: "c3" }));
    await hook("codex", "PostToolUse", codex("PostToolUse", { tool_name: "apply_patch", tool_input: { command: patch }, tool_response: "ok", tool_use_id: "c1" }));
    const stop = await hook("codex", "Stop", codex("Stop", { last_assistant_message: "done", stop_hook_active: false }));
    expect(stop.stdout).toBe("{}\n");
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    expect(bodies.map((b) => b["event"])).toEqual(["session_start", "prompt", "pre_edit", "pre_edit", "pre_shell", "post_edit", "stop"]);
    const patched = ["src/config.ts", "src/new.ts", "src/old.ts", "src/settings.ts"];
    expect(bodies[2]?.["paths"]).toEqual(patched);
    expect(bodies[3]?.["paths"]).toEqual(patched);
    expect(bodies[4]?.["shell"]["paths"]).toEqual(["out.txt"]);
    expect(bodies[0]?.["session"]).toMatchObject({ external_id: "cx-1", tool: "codex", model: "gpt-5-codex" });
  });

  it("reads the paths of every edit tool", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["Edit", { file_path: path.join(repo, "a.ts") }, "a.ts"],
      ["Write", { file_path: path.join(repo, "dir/new/b.ts"), content: "x" }, "dir/new/b.ts"],
      ["MultiEdit", { file_path: path.join(repo, "c.py"), edits: [] }, "c.py"],
      ["NotebookEdit", { notebook_path: path.join(repo, "n.ipynb"), new_source: "x" }, "n.ipynb"],
      ["Delete", { file_path: path.join(repo, "d.js") }, "d.js"],
      ["create", { path: "relative/e.ts" }, "relative/e.ts"],
      ["str_replace_editor", { path: path.join(repo, "f.ts") }, "f.ts"],
    ];
    for (const [tool, input] of cases) await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: tool, tool_input: input, tool_use_id: tool }));
    expect(server.requests.map((q) => q.body["paths"])).toEqual(cases.map(([, , p]) => [p]));
    // Reads, searches and web tools send nothing and print nothing.
    const read = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Read", tool_input: { file_path: path.join(repo, "a.ts") } }));
    expect(read.stdout).toBe("");
    expect(server.requests).toHaveLength(cases.length);
  });

  it("derives the parent of a subagent, and keeps dedupe keys stable across a retried payload", async () => {
    const payload = claude("PreToolUse", { agent_id: "agent-7", agent_type: "explorer", tool_name: "Edit", tool_input: { file_path: path.join(repo, "x.ts") }, tool_use_id: "t9" });
    await hook("claude_code", "PreToolUse", payload);
    await hook("claude_code", "PreToolUse", payload);
    await hook("claude_code", "PreToolUse", { ...payload, tool_use_id: "t10" });
    const [a, b, c] = server.requests.map((q) => q.body as Record<string, any>);
    expect(a?.["session"]).toMatchObject({ external_id: "sess-1:agent-7", parent_external_id: "sess-1" });
    expect(a?.["dedupe_key"]).toBe(b?.["dedupe_key"]);
    expect(c?.["dedupe_key"]).not.toBe(a?.["dedupe_key"]);
  });

  it("sends one request per owning repo in a folder of repos, and never a path outside every repo", async () => {
    const web = initRepo(sb, "web");
    sb.git(web, "remote", "add", "origin", "https://github.com/acme/web.git");
    const payload = {
      session_id: "s-multi",
      transcript_path: "/t",
      cwd: sb.dir,
      hook_event_name: "PreToolUse",
      tool_name: "apply_patch",
      tool_input: { command: "*** Begin Patch\n*** Update File: api/src/config.ts\n*** Update File: web/index.ts\n*** Add File: loose.txt\n+x\n*** End Patch" },
      tool_use_id: "m1",
    };
    await runBuiltCliAsync(["hook", "--tool", "codex", "--event", "PreToolUse"], { cwd: sb.dir, env, input: JSON.stringify(payload) });
    const got = server.requests.map((q) => [(q.body["repo"] as Record<string, unknown>)["remote_fingerprints"], q.body["paths"]]);
    expect(got).toHaveLength(2);
    expect(got.map((g) => g[1])).toEqual(expect.arrayContaining([["src/config.ts"], ["index.ts"]]));
  });

  it("caps the prompt, the paths and the command", async () => {
    await hook("claude_code", "UserPromptSubmit", claude("UserPromptSubmit", { prompt: "p".repeat(10_000) }));
    const files = Array.from({ length: 600 }, (_, i) => `*** Add File: gen/f${String(i).padStart(3, "0")}.ts\n+x`).join("\n");
    await hook("codex", "PreToolUse", codex("PreToolUse", { tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n${files}\n*** End Patch` }, tool_use_id: "cap" }));
    await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Bash", tool_input: { command: `echo ${"x".repeat(5000)}` }, tool_use_id: "cmd" }));
    const [p, e, s] = server.requests.map((q) => q.body as Record<string, any>);
    expect(p?.["prompt_excerpt"]).toHaveLength(2000);
    expect(e?.["paths"]).toHaveLength(500);
    expect(s?.["shell"]["command"]).toHaveLength(4000);
  });

  it("leaves status out with COMITY_SHARE_STATUS=0", async () => {
    await hook("claude_code", "Stop", claude("Stop", { last_assistant_message: "secret plans" }), { COMITY_SHARE_STATUS: "0" });
    expect(server.requests[0]?.body["status"]).toBeUndefined();
  });
});

describe("comity hook: rendering answers", () => {
  it("renders a block as the PreToolUse deny, never a native allow", async () => {
    server.reply = () => ({ body: { ...ALLOW, decision: "block", reason: "parseConfig is being changed by another session" } });
    const r = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_use_id: "b1" }));
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "parseConfig is being changed by another session" },
    });
    server.reply = () => ({ body: ALLOW });
    const allow = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_use_id: "b2" }));
    expect(allow.stdout).toBe("");
  });

  it("shows a warning at PreToolUse on Claude Code and Codex; one said at Stop waits for the next event that shows context", async () => {
    const warning = "Session B (codex, main) edits src/config.ts since 2 min.";
    server.reply = (q) =>
      q.body["event"] === "pre_edit" || q.body["event"] === "stop" ? { body: { ...ALLOW, decision: "warn", reason: "1 coordination warning", inject_context: warning } } : { body: ALLOW };
    const pre = await hook("claude_code", "PreToolUse", claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_use_id: "q1" }));
    expect(JSON.parse(pre.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: warning } });
    const stop = await hook("claude_code", "Stop", claude("Stop", { stop_hook_active: false, last_assistant_message: "done" }));
    expect(stop.stdout).toBe("");
    const post = await hook(
      "claude_code",
      "PostToolUse",
      claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_response: {}, tool_use_id: "q1" }),
    );
    expect(JSON.parse(post.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: warning } });
    const again = await hook(
      "claude_code",
      "PostToolUse",
      claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_response: {}, tool_use_id: "q2" }),
    );
    expect(again.stdout).toBe("");
    const cx = await hook(
      "codex",
      "PreToolUse",
      codex("PreToolUse", { tool_name: "apply_patch", tool_input: { command: "*** Begin Patch\n*** Update File: src/config.ts\n*** End Patch" }, tool_use_id: "q3" }),
    );
    expect(JSON.parse(cx.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: warning } });
  });

  it("injects the briefing at SessionStart, capped at 6,000 characters", async () => {
    server.reply = () => ({ body: { ...ALLOW, inject_context: `## Comity update\n${"- another session is active\n".repeat(400)}` } });
    const r = await hook("claude_code", "SessionStart", claude("SessionStart", { source: "startup" }));
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect([...out.hookSpecificOutput.additionalContext].length).toBeLessThanOrEqual(6000);
    expect(out.hookSpecificOutput.additionalContext).toContain("- another session is active");
  });

  it("briefs from the local analysis when no API is configured", async () => {
    fs.writeFileSync(path.join(repo, "src/config.ts"), "changed\n");
    const r = await hook("claude_code", "SessionStart", claude("SessionStart", { source: "startup" }), { COMITY_API_URL: "" });
    const text = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(text).toContain("## api\n- Working on main");
    expect(text).toContain("1 uncommitted change: src/config.ts (M)");
    expect(server.requests).toHaveLength(0);
  });
});

describe("comity hook: fails open", () => {
  const edit = () => claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") }, tool_use_id: "f1" });
  const expectFailOpen = async (r: { status: number | null; stdout: string; stderr: string }, reason: RegExp) => {
    expect(r).toMatchObject({ status: 0, stdout: "", stderr: "" });
    const lines = logLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[^\t]+\tfail-open\t[^\t]+\t[^\t]+\t/);
    expect(lines[0]).toMatch(reason);
    expect(lines[0]).not.toContain("tok-123");
  };

  it("when the server is down", async () => {
    await server.close();
    await expectFailOpen(await hook("claude_code", "PreToolUse", edit(), { COMITY_API_URL: "http://127.0.0.1:9" }), /cannot reach the API/);
  });
  it("when the server is slower than the 400 ms budget: the budget ends the wait (its hook.log line says so)", async () => {
    server.reply = () => ({ body: ALLOW, delayMs: 3000 });
    const r = await hook("claude_code", "PreToolUse", edit());
    await expectFailOpen(r, /no answer within 400 ms/);
  });
  it("on an answer over 1 MiB, announced or streamed, without reading it all", async () => {
    const huge = { decision: "warn", reason: "w", inject_context: "x".repeat(2 * 1024 * 1024), conflicts: [], session_id: "s", index_version: 1 };
    server.reply = () => ({ body: huge });
    await expectFailOpen(await hook("claude_code", "PreToolUse", edit()), /answer over 1048576 bytes/);
  });

  it("on HTTP 500", async () => {
    server.reply = () => ({ status: 500, body: { error: "boom" } });
    await expectFailOpen(await hook("claude_code", "PreToolUse", edit()), /HTTP 500/);
  });
  it("on an answer that is not JSON", async () => {
    server.reply = () => ({ raw: "<html>oops</html>" });
    await expectFailOpen(await hook("claude_code", "PreToolUse", edit()), /not JSON/);
  });
  it("on an answer of the wrong shape", async () => {
    server.reply = () => ({ body: { decision: "maybe" } });
    await expectFailOpen(await hook("claude_code", "PreToolUse", edit()), /documented shape/);
  });
  it("on malformed stdin", async () => {
    await expectFailOpen(await hook("claude_code", "PreToolUse", "{not json"), /not a JSON object/);
  });
  it("on 10 MB of stdin", async () => {
    await expectFailOpen(await hook("claude_code", "PreToolUse", JSON.stringify({ ...edit(), big: "x".repeat(10 * 1024 * 1024) })), /stdin over/);
  });
  it("in a folder that is not a repo", async () => {
    const plain = path.join(sb.dir, "plain");
    fs.mkdirSync(plain);
    await expectFailOpen(await hook("claude_code", "UserPromptSubmit", { ...claude("UserPromptSubmit", { prompt: "hi" }), cwd: plain }), /not in a git repo/);
  });
  it("in a repo without a remote", async () => {
    const lonely = initRepo(sb, "lonely");
    await expectFailOpen(await hook("claude_code", "UserPromptSubmit", { ...claude("UserPromptSubmit", { prompt: "hi" }), cwd: lonely }), /no repo with a remote/);
  });
});

// One session's hooks at once, and dedupe keys across turns (issue: hardening, items 2, 3 and 6).
const claudeC = (event: string, extra: Record<string, unknown> = {}) => claude(event, { session_id: "sess-c", ...extra });
const hookC = (event: string, payload: unknown) => hook("claude_code", event, payload);
// A denial's context waits for the session's next event that shows context (Claude Code shows none beside a deny).
const denyWith = (text: string) => ({ body: { decision: "block", reason: "denied", inject_context: text, conflicts: [], session_id: "s", index_version: 1 } });

describe("comity hook: one session's hooks at once", () => {
  it("keeps every queued warning and every touched file of 20 concurrent PreToolUse hooks", async () => {
    server.reply = (req) => (req.body["event"] === "pre_edit" ? denyWith(`warning for ${(req.body["paths"] as string[])[0]}`) : { body: ALLOW });
    const files = Array.from({ length: 20 }, (_, i) => `src/f${String(i).padStart(2, "0")}.ts`);
    const results = await Promise.all(files.map((f, i) => hookC("PreToolUse", claudeC("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, f) }, tool_use_id: `t${i}` }))));
    const denied = `${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "denied" } })}\n`;
    expect(results.map((r) => r.stdout)).toEqual(files.map(() => denied)); // the context beside each denial: queued
    expect(readHookLog(configDir)).toEqual([]);
    // The edits run (a stop sends only the files the working tree changed); the next PostToolUse delivers all 20
    // warnings, and the turn's stop sends all 20 files.
    for (const f of files) sb.write(path.relative(sb.dir, path.join(repo, f)), "export const x = 1;\n");
    const post = await hookC("PostToolUse", claudeC("PostToolUse", { tool_name: "Read", tool_input: {}, tool_use_id: "r" }));
    const stop = await hookC("Stop", claudeC("Stop", { stop_hook_active: false, last_assistant_message: "done" }));
    expect(stop.status).toBe(0);
    const sent = server.requests.find((q) => q.body["event"] === "stop")?.body["status"] as { files: string[] };
    expect(sent.files).toEqual(files);
    expect(post.stdout).toBe(""); // a Read is not an edit: nothing to deliver there
    const post2 = await hookC("PostToolUse", claudeC("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/f00.ts") }, tool_response: {}, tool_use_id: "t0" }));
    const context = (JSON.parse(post2.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    for (const f of files) expect(context).toContain(`warning for ${f}`);
  }, 60_000);

  it("queues at most 6,000 characters per session, the newest warnings first", async () => {
    let n = 0;
    server.reply = (req) => (req.body["event"] === "pre_edit" ? denyWith(`${String(++n).padStart(3, "0")} ${"x".repeat(996)}`) : { body: ALLOW });
    for (let i = 0; i < 9; i++) await hookC("PreToolUse", claudeC("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, `src/g${i}.ts`) }, tool_use_id: `g${i}` }));
    const state = fs.readdirSync(path.join(configDir, "sessions")).filter((f) => f.endsWith(".json"));
    expect(state).toHaveLength(1);
    const queued = (JSON.parse(fs.readFileSync(path.join(configDir, "sessions", state[0] as string), "utf8")) as { queued: string[] }).queued;
    expect(queued.reduce((c, q) => c + q.length, 0)).toBeLessThanOrEqual(6000);
    expect(queued.map((q) => q.slice(0, 3))).toEqual(["004", "005", "006", "007", "008", "009"]); // oldest dropped, order kept
  });
});

describe("comity hook: dedupe keys", () => {
  it("gives a redelivered event its first key, and two events with the same payload in different turns two keys", async () => {
    const stop = claudeC("Stop", { stop_hook_active: false, last_assistant_message: "Done." });
    const prompt = claudeC("UserPromptSubmit", { prompt: "go on" }); // Claude Code before prompt_id
    await hookC("UserPromptSubmit", prompt);
    await hookC("Stop", stop);
    await hookC("Stop", stop); // the host delivering the same Stop again, at once
    await hookC("UserPromptSubmit", prompt); // the same prompt typed again: a new turn
    await hookC("Stop", stop);
    const keys = server.requests.map((q) => `${String(q.body["event"])}:${String(q.body["dedupe_key"])}`);
    const [p1, s1, s1again, p2, s2] = keys;
    expect(s1again).toBe(s1);
    expect(p2).not.toBe(p1);
    expect(s2).not.toBe(s1);
    // Where the host sends its own ids, they decide: one tool call, one key per event, whatever the timing.
    const pre = (id: string) => claudeC("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "a.ts") }, tool_use_id: id });
    await hookC("PreToolUse", pre("u1"));
    await hookC("PreToolUse", pre("u1"));
    await hookC("PreToolUse", pre("u2"));
    const [a, b, c] = server.requests.slice(-3).map((q) => q.body["dedupe_key"]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    // The turn's later tool calls of that file change nothing the session keeps: its file is not written again
    // (each write renames a new file over it).
    const file = path.join(configDir, "sessions", `${createHash("sha256").update("sess-c").digest("hex").slice(0, 40)}.json`);
    const ino = fs.statSync(file).ino;
    await hookC("PreToolUse", pre("u3"));
    await hookC("PreToolUse", pre("u4"));
    expect(server.requests.slice(-2).map((q) => q.body["dedupe_key"])).toHaveLength(2);
    expect(fs.statSync(file).ino).toBe(ino);
    // And a prompt typed again after them is a new turn, as after a Stop.
    await hookC("UserPromptSubmit", prompt);
    await hookC("Stop", stop);
    expect(server.requests.at(-1)?.body["dedupe_key"]).not.toBe(s2);
  });
});
