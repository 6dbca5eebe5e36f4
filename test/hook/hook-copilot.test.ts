import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
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
  env = { ...sb.env, COMITY_API_URL: server.url, COMITY_TOKEN: "tok", COMITY_CONFIG_DIR: configDir };
});
afterEach(async () => {
  await server.close();
  sb.cleanup();
});

const hook = (tool: string, event: string, payload: unknown) => runBuiltCliAsync(["hook", "--tool", tool, "--event", event], { cwd: repo, env, input: JSON.stringify(payload) });
// camelCase dialect (docs/hooks.md): sessionId, ms timestamp, cwd, toolName, toolArgs as a JSON string; no event name.
const camel = (extra: Record<string, unknown> = {}) => ({ sessionId: "cp-1", timestamp: 1764470000000, cwd: repo, ...extra });
// PascalCase dialect (VS Code-compatible): hook_event_name, session_id, ISO timestamp, tool_name, tool_input; no transcript_path.
const pascal = (event: string, extra: Record<string, unknown> = {}) => ({ hook_event_name: event, session_id: "cp-2", timestamp: "2026-11-30T04:00:00.000Z", cwd: repo, ...extra });
const logLines = (): string[] => readHookLog(configDir);

describe("comity hook: Copilot CLI", () => {
  it("maps the camelCase dialect's events, with toolArgs as a JSON string and lowercase tools", async () => {
    // Registered under Claude Code's config (`--tool claude_code`): the payload decides.
    await hook("claude_code", "sessionStart", camel({ source: "new" }));
    await hook("copilot", "userPromptSubmitted", camel({ prompt: "add strict mode" }));
    await hook("copilot", "preToolUse", camel({ toolName: "edit", toolArgs: JSON.stringify({ path: "src/config.ts", old_str: "a", new_str: "b" }) }));
    await hook("copilot", "preToolUse", camel({ toolName: "create", toolArgs: JSON.stringify({ path: "src/new.ts", file_text: "x" }) }));
    await hook("copilot", "preToolUse", camel({ toolName: "bash", toolArgs: JSON.stringify({ command: "echo hi > out.txt" }) }));
    fs.writeFileSync(path.join(repo, "out.txt"), "hi\n");
    await hook("copilot", "postToolUse", camel({ toolName: "bash", toolArgs: JSON.stringify({ command: "echo hi > out.txt" }), toolResult: { resultType: "success", textResultForLlm: "" } }));
    await hook("copilot", "preToolUse", camel({ toolName: "view", toolArgs: JSON.stringify({ path: "src/config.ts" }) }));
    await hook("copilot", "agentStop", camel({ transcriptPath: "/t", stopReason: "end_turn" }));
    await hook("copilot", "sessionEnd", camel({ reason: "complete" }));
    expect(logLines()).toEqual([]);
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    expect(bodies.map((b) => b["event"])).toEqual(["session_start", "prompt", "pre_edit", "pre_edit", "pre_shell", "post_edit", "stop", "session_end"]);
    for (const b of bodies) expect(b["session"]).toMatchObject({ external_id: "cp-1", tool: "copilot" });
    expect(bodies[1]?.["prompt_excerpt"]).toBe("add strict mode");
    expect(bodies[2]?.["paths"]).toEqual(["src/config.ts"]);
    expect(bodies[3]?.["paths"]).toEqual(["src/new.ts"]);
    expect(bodies[4]?.["shell"]).toMatchObject({ command: "echo hi > out.txt", paths: ["out.txt"] });
    expect(bodies[5]?.["paths"]).toEqual(["out.txt"]);
  });

  it("maps the PascalCase dialect (tool_input parsed, lowercase tool names)", async () => {
    await hook("claude_code", "PreToolUse", pascal("PreToolUse", { tool_name: "edit", tool_input: { path: path.join(repo, "src/config.ts") } }));
    await hook("claude_code", "UserPromptSubmit", pascal("UserPromptSubmit", { prompt: "go" }));
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    expect(bodies.map((b) => [b["event"], b["session"]["tool"], b["session"]["external_id"]])).toEqual([
      ["pre_edit", "copilot", "cp-2"],
      ["prompt", "copilot", "cp-2"],
    ]);
    expect(bodies[0]?.["paths"]).toEqual(["src/config.ts"]);
  });

  it("answers only with a preToolUse deny; context is never printed (Copilot ignores it)", async () => {
    server.reply = (q) =>
      q.body["event"] === "pre_edit" ? { body: { ...ALLOW, decision: "block", reason: "held by session B" } } : { body: { ...ALLOW, decision: "warn", inject_context: "Session B is active." } };
    const deny = await hook("copilot", "preToolUse", camel({ toolName: "edit", toolArgs: JSON.stringify({ path: "src/config.ts" }) }));
    expect(JSON.parse(deny.stdout)).toEqual({ permissionDecision: "deny", permissionDecisionReason: "held by session B" });
    const denyPascal = await hook("copilot", "PreToolUse", pascal("PreToolUse", { tool_name: "create", tool_input: { path: "src/x.ts" } }));
    expect(JSON.parse(denyPascal.stdout)).toEqual({ permissionDecision: "deny", permissionDecisionReason: "held by session B" });
    for (const [event, payload] of [
      ["sessionStart", camel({ source: "new" })],
      ["userPromptSubmitted", camel({ prompt: "hi" })],
      ["postToolUse", camel({ toolName: "edit", toolArgs: JSON.stringify({ path: "src/config.ts" }) })],
    ] as const) {
      const r = await hook("copilot", event, payload);
      expect(r).toMatchObject({ status: 0, stdout: "" });
    }
  });

  it("steps aside under Claude Code's hooks when the repo's .github/hooks run Comity for Copilot", async () => {
    const p = camel({ toolName: "edit", toolArgs: JSON.stringify({ path: "src/config.ts" }) });
    fs.mkdirSync(path.join(repo, ".github/hooks"), { recursive: true });
    fs.writeFileSync(path.join(repo, ".github/hooks/comity.json"), JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "comity hook --tool copilot --event preToolUse" }] } }));
    expect(await hook("claude_code", "preToolUse", p)).toMatchObject({ status: 0, stdout: "" });
    expect(server.requests).toHaveLength(0);
    await hook("copilot", "preToolUse", p);
    expect(server.requests).toHaveLength(1);
    expect(logLines()).toEqual([]);
  });

  it("survives a toolArgs string that is not JSON (no paths, no crash)", async () => {
    const r = await hook("copilot", "preToolUse", camel({ toolName: "edit", toolArgs: "{oops" }));
    expect(r).toMatchObject({ status: 0, stdout: "" });
  });
});
