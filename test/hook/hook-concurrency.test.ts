import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
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

const claude = (event: string, extra: Record<string, unknown> = {}) => ({ session_id: "sess-c", transcript_path: "/tmp/t.jsonl", cwd: repo, hook_event_name: event, ...extra });
const hook = (event: string, payload: unknown) => runBuiltCliAsync(["hook", "--tool", "claude_code", "--event", event], { cwd: repo, env, input: JSON.stringify(payload) });
const warn = (text: string) => ({ body: { decision: "warn", reason: "w", inject_context: text, conflicts: [], session_id: "s", index_version: 1 } });

describe("comity hook: one session's hooks at once", () => {
  it("keeps every queued warning and every touched file of 20 concurrent PreToolUse hooks", async () => {
    server.reply = (req) => (req.body["event"] === "pre_edit" ? warn(`warning for ${(req.body["paths"] as string[])[0]}`) : { body: { decision: "allow", reason: null, inject_context: null, session_id: "s", index_version: 1 } });
    const files = Array.from({ length: 20 }, (_, i) => `src/f${String(i).padStart(2, "0")}.ts`);
    const results = await Promise.all(files.map((f, i) => hook("PreToolUse", claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, f) }, tool_use_id: `t${i}` }))));
    expect(results.map((r) => r.stdout)).toEqual(files.map(() => "")); // Claude Code reads PreToolUse context only with the result: queued
    expect(readHookLog(configDir)).toEqual([]);
    // The next PostToolUse delivers all 20, and the turn's stop sends all 20 files.
    const post = await hook("PostToolUse", claude("PostToolUse", { tool_name: "Read", tool_input: {}, tool_use_id: "r" }));
    const stop = await hook("Stop", claude("Stop", { stop_hook_active: false, last_assistant_message: "done" }));
    expect(stop.status).toBe(0);
    const sent = server.requests.find((q) => q.body["event"] === "stop")?.body["status"] as { files: string[] };
    expect(sent.files).toEqual(files);
    expect(post.stdout).toBe(""); // a Read is not an edit: nothing to deliver there
    const post2 = await hook("PostToolUse", claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/f00.ts") }, tool_response: {}, tool_use_id: "t0" }));
    const context = (JSON.parse(post2.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    for (const f of files) expect(context).toContain(`warning for ${f}`);
  }, 60_000);

  it("queues at most 6,000 characters per session, the newest warnings first", async () => {
    let n = 0;
    server.reply = (req) => (req.body["event"] === "pre_edit" ? warn(`${String(++n).padStart(3, "0")} ${"x".repeat(996)}`) : { body: { decision: "allow", reason: null, inject_context: null, session_id: "s", index_version: 1 } });
    for (let i = 0; i < 9; i++) await hook("PreToolUse", claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, `src/g${i}.ts`) }, tool_use_id: `g${i}` }));
    const state = fs.readdirSync(path.join(configDir, "sessions")).filter((f) => f.endsWith(".json"));
    expect(state).toHaveLength(1);
    const queued = (JSON.parse(fs.readFileSync(path.join(configDir, "sessions", state[0] as string), "utf8")) as { queued: string[] }).queued;
    expect(queued.reduce((c, q) => c + q.length, 0)).toBeLessThanOrEqual(6000);
    expect(queued.map((q) => q.slice(0, 3))).toEqual(["004", "005", "006", "007", "008", "009"]); // oldest dropped, order kept
  });
});

describe("comity hook: dedupe keys", () => {
  it("gives a redelivered event its first key, and two events with the same payload in different turns two keys", async () => {
    const stop = claude("Stop", { stop_hook_active: false, last_assistant_message: "Done." });
    const prompt = claude("UserPromptSubmit", { prompt: "go on" }); // Claude Code before prompt_id
    await hook("UserPromptSubmit", prompt);
    await hook("Stop", stop);
    await hook("Stop", stop); // the host delivering the same Stop again, at once
    await hook("UserPromptSubmit", prompt); // the same prompt typed again: a new turn
    await hook("Stop", stop);
    const keys = server.requests.map((q) => `${String(q.body["event"])}:${String(q.body["dedupe_key"])}`);
    const [p1, s1, s1again, p2, s2] = keys;
    expect(s1again).toBe(s1);
    expect(p2).not.toBe(p1);
    expect(s2).not.toBe(s1);
    // Where the host sends its own ids, they decide: one tool call, one key per event, whatever the timing.
    const pre = (id: string) => claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(repo, "a.ts") }, tool_use_id: id });
    await hook("PreToolUse", pre("u1"));
    await hook("PreToolUse", pre("u1"));
    await hook("PreToolUse", pre("u2"));
    const [a, b, c] = server.requests.slice(-3).map((q) => q.body["dedupe_key"]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});
