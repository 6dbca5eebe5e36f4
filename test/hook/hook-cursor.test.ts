import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { ALLOW, startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

let sb: Sandbox;
let server: RecordingServer;
let api: string;
let web: string;
let env: NodeJS.ProcessEnv;
let configDir: string;

beforeEach(async () => {
  sb = createSandbox();
  server = await startRecordingServer();
  api = repoWithRemote(sb, "api");
  web = initRepo(sb, "web");
  sb.git(web, "remote", "add", "origin", "https://github.com/acme/web.git");
  configDir = path.join(sb.dir, "..", "comity-config");
  env = { ...sb.env, COMITY_API_URL: server.url, COMITY_TOKEN: "tok", COMITY_CONFIG_DIR: configDir };
});
afterEach(async () => {
  await server.close();
  sb.cleanup();
});

// Cursor's common fields (docs/hooks.md): no session_id on most events, no cwd, several workspace roots.
const cursor = (event: string, extra: Record<string, unknown> = {}) => ({
  conversation_id: "conv-1",
  generation_id: "gen-1",
  model: "cursor-fast",
  hook_event_name: event,
  cursor_version: "2.4.0",
  workspace_roots: [api, web],
  user_email: "dev@example.com",
  transcript_path: null,
  ...extra,
});
const hook = (tool: string, event: string, payload: unknown, extraEnv: NodeJS.ProcessEnv = {}) =>
  runBuiltCliAsync(["hook", "--tool", tool, "--event", event], { cwd: sb.dir, env: { ...env, ...extraEnv }, input: JSON.stringify(payload) });
const logLines = (): string[] => readHookLog(configDir);

describe("comity hook: Cursor", () => {
  it("maps every Cursor event, with conversation_id as the session and every workspace root", async () => {
    await hook("cursor", "sessionStart", cursor("sessionStart", { session_id: "conv-1" }));
    await hook("cursor", "beforeSubmitPrompt", cursor("beforeSubmitPrompt", { prompt: "rename parseConfig", attachments: [] }));
    await hook("cursor", "preToolUse", cursor("preToolUse", { tool_name: "Write", tool_input: { file_path: path.join(api, "src/config.ts") }, tool_use_id: "u1", cwd: api }));
    await hook("cursor", "preToolUse", cursor("preToolUse", { tool_name: "Shell", tool_input: { command: "echo x > web.txt" }, tool_use_id: "u2", cwd: web }));
    await hook("cursor", "beforeShellExecution", cursor("beforeShellExecution", { command: "echo y > out.txt", cwd: web }));
    fs.writeFileSync(path.join(web, "out.txt"), "y\n");
    await hook("cursor", "afterShellExecution", cursor("afterShellExecution", { command: "echo y > out.txt", output: "", duration: 3 }));
    fs.writeFileSync(path.join(api, "src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return {};\n}\n");
    await hook("cursor", "afterFileEdit", cursor("afterFileEdit", { file_path: path.join(api, "src/config.ts"), edits: [{ old_string: "a", new_string: "b" }] }));
    await hook("cursor", "postToolUse", cursor("postToolUse", { tool_name: "Write", tool_input: { file_path: path.join(api, "src/config.ts") }, tool_output: "ok", duration: 1, tool_use_id: "u1" }));
    await hook("cursor", "preToolUse", cursor("preToolUse", { tool_name: "Read", tool_input: { file_path: path.join(api, "src/config.ts") }, tool_use_id: "u3" }));
    await hook("cursor", "stop", cursor("stop", { status: "completed", loop_count: 0 }));
    await hook("cursor", "sessionEnd", cursor("sessionEnd", { session_id: "conv-1", reason: "user_close", duration_ms: 10, is_background_agent: false, final_status: "completed" }));
    const seen = server.requests.map((q) => [q.body["event"], (q.body["repo"] as { cwd_path?: string } | undefined)?.cwd_path, (q.body["paths"] as string[] | undefined) ?? null]);
    expect(logLines()).toEqual([]);
    // session_start, prompt, stop and session_end: one request per root's repo; the Read is not sent.
    expect(seen.map((s) => s[0])).toEqual([
      "session_start",
      "session_start",
      "prompt",
      "prompt",
      "pre_edit",
      "pre_shell",
      "pre_shell",
      "post_edit",
      "post_edit",
      "post_edit",
      "stop",
      "stop",
      "session_end",
      "session_end",
    ]);
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    for (const b of bodies) expect(b["session"]).toMatchObject({ external_id: "conv-1", tool: "cursor" });
    expect(bodies[4]?.["paths"]).toEqual(["src/config.ts"]);
    expect(bodies[5]?.["shell"]).toMatchObject({ command: "echo x > web.txt", paths: ["web.txt"] });
    expect(bodies[6]?.["shell"]).toMatchObject({ command: "echo y > out.txt", paths: ["out.txt"] });
    expect(bodies[7]?.["paths"]).toEqual(["out.txt"]); // the snapshots around the shell command
    expect(bodies[8]?.["analysis"][0]).toMatchObject({ path: "src/config.ts", changes: [{ qualified_name: "parseConfig", compatibility: "breaking" }] });
    expect(new Set(bodies.filter((b) => b["event"] === "prompt").map((b) => b["repo"]["remote_fingerprints"][0])).size).toBe(2);
  });

  it("answers in Cursor's keys: deny on preToolUse and beforeShellExecution, context only at sessionStart", async () => {
    server.reply = (q) =>
      q.body["event"] === "session_start"
        ? { body: { ...ALLOW, inject_context: "Session B edits src/config.ts." } }
        : { body: { ...ALLOW, decision: "block", reason: "src/config.ts is held by session B" } };
    const start = await hook("cursor", "sessionStart", cursor("sessionStart", { session_id: "conv-1", workspace_roots: [api] }));
    const started = JSON.parse(start.stdout) as Record<string, string>;
    expect(Object.keys(started)).toEqual(["additional_context"]);
    expect(started["additional_context"]).toContain("Session B edits src/config.ts.");
    const pre = await hook("cursor", "preToolUse", cursor("preToolUse", { tool_name: "Write", tool_input: { file_path: path.join(api, "src/config.ts") }, tool_use_id: "d1" }));
    expect(JSON.parse(pre.stdout)).toEqual({ decision: "deny", reason: "src/config.ts is held by session B" });
    const sh = await hook("cursor", "beforeShellExecution", cursor("beforeShellExecution", { command: "echo z > src/config.ts", cwd: api }));
    expect(JSON.parse(sh.stdout)).toEqual({ permission: "deny", user_message: "src/config.ts is held by session B", agent_message: "src/config.ts is held by session B" });
    server.reply = () => ({ body: { ...ALLOW, decision: "warn", inject_context: "a warning" } });
    const prompt = await hook("cursor", "beforeSubmitPrompt", cursor("beforeSubmitPrompt", { prompt: "go" }));
    expect(prompt.stdout).toBe(""); // Cursor's beforeSubmitPrompt takes no context
  });

  it("detects Cursor under Claude Code's hooks, and steps aside when Cursor's own config runs Comity", async () => {
    const payload = cursor("preToolUse", { tool_name: "Write", tool_input: { file_path: path.join(api, "src/config.ts") }, tool_use_id: "s1" });
    await hook("claude_code", "PreToolUse", payload);
    expect(server.requests.map((q) => q.body["session"])).toEqual([expect.objectContaining({ tool: "cursor", external_id: "conv-1" })]);
    fs.mkdirSync(path.join(api, ".cursor"));
    fs.writeFileSync(path.join(api, ".cursor/hooks.json"), JSON.stringify({ version: 1, hooks: { preToolUse: [{ command: "comity hook --tool cursor --event preToolUse" }] } }));
    const aside = await hook("claude_code", "PreToolUse", payload);
    expect(aside).toMatchObject({ status: 0, stdout: "" });
    expect(server.requests).toHaveLength(1);
    await hook("cursor", "preToolUse", payload);
    expect(server.requests).toHaveLength(2);
    expect(logLines()).toEqual([]);
  });
});
