import * as path from "node:path";
import * as fs from "node:fs";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { ALLOW, startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

let sb: Sandbox;
let server: RecordingServer;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  sb = createSandbox();
  server = await startRecordingServer();
  repo = repoWithRemote(sb, "checkout");
  env = { ...sb.env, COMITY_API_URL: server.url, COMITY_TOKEN: "tok", COMITY_CONFIG_DIR: path.join(sb.dir, "..", "cfg") };
});
afterEach(async () => {
  await server.close();
  sb.cleanup();
});

// Each family's patch type, with only the fields it accepts (docs/hooks.md, CompozyOS):
// CompozyOS decodes patches strictly, so an extra field is an error.
const obj = (properties: Record<string, object>) => ({ type: "object", additionalProperties: false, properties });
const DENY = { deny: { type: "boolean" }, deny_reason: { type: "string" } };
const BLOCKS = { type: "array", items: { type: "object", required: ["kind", "text"], properties: { kind: { type: "string" }, text: { type: "string" } } } };
const PATCH_TYPES: Record<string, object> = {
  session: obj({ session_name: { type: "string" }, session_type: { type: "string" }, agent_name: { type: "string" }, workspace_id: { type: "string" }, workspace: { type: "string" }, ...DENY }),
  "input.pre_submit": obj({ message: { type: "string" }, context_blocks: BLOCKS, ...DENY }),
  "prompt.post_assemble": obj({ prompt: { type: "string" }, context_blocks: BLOCKS, ...DENY }),
  "tool.pre_call": obj({ tool_name: { type: "string" }, tool_namespace: { type: "string" }, read_only: { type: "boolean" }, tool_input: { type: "object" }, ...DENY }),
  "tool.post": obj({ title: { type: "string" }, tool_result: {}, error: {} }),
  "context.compaction": obj({ labels: { type: "object" } }),
  observation: obj({}),
};
const ajv = new Ajv({ strict: false });
const familyOf = (event: string) =>
  event.startsWith("session.") ? "session" : event.startsWith("tool.post") ? "tool.post" : event.startsWith("context.") ? "context.compaction" : event in PATCH_TYPES ? event : "observation";
const expectValidPatch = (event: string, stdout: string) => {
  const patch: unknown = stdout.trim() === "" ? {} : JSON.parse(stdout);
  const validate = ajv.compile(PATCH_TYPES[familyOf(event)] as object);
  expect(validate(patch), `${event}: ${stdout} ${JSON.stringify(validate.errors)}`).toBe(true);
  return patch as Record<string, any>;
};

const payload = (event: string, extra: Record<string, unknown> = {}) => ({
  event,
  timestamp: "2026-11-30T04:00:00Z",
  session_id: "sess_9f4a",
  agent_name: "coder",
  workspace_id: "ws_checkout",
  workspace: repo,
  turn_id: "turn_42",
  ...extra,
});
const hook = (event: string, body: unknown) => runBuiltCliAsync(["hook", "--tool", "compozy", "--event", event], { cwd: sb.dir, env, input: JSON.stringify(body) });

describe("comity hook: CompozyOS", () => {
  it("maps every event family, and every patch holds only fields of its patch type", async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["session.post_create", {}],
      ["input.pre_submit", { message: "rename parseConfig", attachments: [], mentions: [], context_blocks: [] }],
      ["prompt.post_assemble", { prompt: "rename parseConfig", input_class: "user", context_blocks: [{ kind: "workspace", text: "Repository: checkout" }] }],
      ["tool.pre_call", { tool_call_id: "t1", tool_name: "edit_file", read_only: false, tool_input: { path: path.join(repo, "src/config.ts") } }],
      ["tool.pre_call", { tool_call_id: "t2", tool_name: "shell.exec", read_only: false, tool_input: { command: "echo hi > out.txt" } }],
      ["tool.post_call", { tool_call_id: "t1", tool_name: "edit_file", read_only: false, tool_input: { path: path.join(repo, "src/config.ts") }, tool_result: "ok" }],
      ["tool.pre_call", { tool_call_id: "t3", tool_name: "read_file", read_only: true, tool_input: { path: "src/config.ts" } }],
      ["tool.post_error", { tool_call_id: "t3", tool_name: "read_file", error: "nope" }],
      ["message.start", { role: "assistant" }],
      ["context.post_compact", { compaction_id: "c1", trigger: "agent", status: "completed", summary: "kept" }],
      ["subagent.settled", { subagent_id: "s1", status: "done" }],
      ["session.pre_stop", {}],
      ["session.post_stop", {}],
    ];
    for (const [event, extra] of cases) {
      const r = await hook(event, payload(event, extra));
      expect(r.status).toBe(0);
      expectValidPatch(event, r.stdout);
    }
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    expect(bodies.map((b) => b["event"])).toEqual(["session_start", "prompt", "prompt", "pre_edit", "pre_shell", "post_edit", "stop", "session_end"]);
    for (const b of bodies) expect(b["session"]).toMatchObject({ external_id: "sess_9f4a", tool: "compozy" });
    expect(bodies[1]?.["prompt_excerpt"]).toBe("rename parseConfig");
    expect(bodies[3]?.["paths"]).toEqual(["src/config.ts"]);
    expect(bodies[4]?.["shell"]).toMatchObject({ paths: ["out.txt"] });
  });

  it("denies a tool call, and brings context (the session-start briefing first) as a context block on the next prompt", async () => {
    server.reply = (q) =>
      q.body["event"] === "session_start"
        ? { body: { ...ALLOW, inject_context: "Briefing: session B works on src/config.ts." } }
        : q.body["event"] === "pre_edit"
          ? { body: { ...ALLOW, decision: "block", reason: "src/config.ts is held by session B" } }
          : { body: ALLOW };
    const start = await hook("session.post_create", payload("session.post_create"));
    expect(expectValidPatch("session.post_create", start.stdout)).toEqual({});
    const deny = await hook("tool.pre_call", payload("tool.pre_call", { tool_call_id: "t1", tool_name: "write_file", read_only: false, tool_input: { path: "src/config.ts" } }));
    expect(expectValidPatch("tool.pre_call", deny.stdout)).toEqual({ deny: true, deny_reason: "src/config.ts is held by session B" });
    const prompt = await hook("prompt.post_assemble", payload("prompt.post_assemble", { prompt: "go on", context_blocks: [{ kind: "workspace", text: "Repository: checkout" }] }));
    const patch = expectValidPatch("prompt.post_assemble", prompt.stdout);
    expect(patch["context_blocks"][0]).toEqual({ kind: "workspace", text: "Repository: checkout" });
    expect(patch["context_blocks"][1]).toMatchObject({ kind: "comity", text: expect.stringContaining("Briefing: session B works on src/config.ts.") });
    const next = await hook("input.pre_submit", payload("input.pre_submit", { message: "and now?", context_blocks: [] }));
    expect(expectValidPatch("input.pre_submit", next.stdout)).toEqual({}); // delivered once
  });

  it("fails open with an empty patch on a bad payload", async () => {
    const r = await runBuiltCliAsync(["hook", "--tool", "compozy", "--event", "tool.pre_call"], { cwd: sb.dir, env, input: "{broken" });
    expect(r).toMatchObject({ status: 0, stdout: "" });
    expect(fs.readFileSync(path.join(sb.dir, "..", "cfg", "hook.log"), "utf8")).toContain("fail-open");
  });
});
