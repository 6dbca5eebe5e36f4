import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { ALLOW, startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { repoWithRemote } from "../helpers/hook-fixture.js";
import { BIN, runBuiltCli } from "../helpers/run-cli.js";

let sb: Sandbox;
let server: RecordingServer;
let repo: string;
let savedEnv: NodeJS.ProcessEnv;

beforeEach(async () => {
  sb = createSandbox();
  server = await startRecordingServer();
  repo = repoWithRemote(sb, "proj");
  // The extension spawns the CLI with omp's environment: this process's.
  savedEnv = { ...process.env };
  Object.assign(process.env, sb.env, { COMITY_API_URL: server.url, COMITY_TOKEN: "tok", COMITY_CONFIG_DIR: path.join(sb.dir, "..", "cfg") });
});
afterEach(async () => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  await server.close();
  sb.cleanup();
});

type Handler = (event: unknown, ctx: unknown) => unknown;
/** A minimal stand-in of omp's extension API: `pi.on(event, handler)`. */
async function loadExtension(command: string): Promise<Map<string, Handler>> {
  const r = runBuiltCli(["init", "--tool", "omp", "--command", command], { cwd: repo, env: { ...process.env } });
  expect(r.status).toBe(0);
  const file = path.join(repo, ".omp/extensions/comity.ts");
  // A fresh copy per load: the module cache would otherwise keep the first command.
  const copy = path.join(repo, `.omp/extensions/comity-${Math.random().toString(36).slice(2)}.ts`);
  fs.copyFileSync(file, copy);
  const mod = (await import(pathToFileURL(copy).href)) as { default: (pi: { on(e: string, h: Handler): void }) => void };
  const handlers = new Map<string, Handler>();
  mod.default({ on: (e, h) => handlers.set(e, h) });
  return handlers;
}

const ctx = () => ({ cwd: repo, sessionManager: { getSessionId: () => "omp-sess-1" }, model: { id: "m1" }, hasUI: false });

describe("comity omp extension", () => {
  it("forwards every event to comity hook --tool omp and returns its answers", async () => {
    process.env["COMITY_OMP_BUDGET_MS"] = "5000"; // a loaded test machine must not turn answers into timeouts
    const h = await loadExtension(`${process.execPath} ${BIN}`);
    expect([...h.keys()]).toEqual(["session_start", "before_agent_start", "tool_call", "tool_result", "session_stop", "session_shutdown"]);
    server.reply = (q) => (q.body["event"] === "pre_edit" ? { body: { ...ALLOW, decision: "block", reason: "held by session B" } } : { body: ALLOW });
    await h.get("session_start")?.({}, ctx());
    await h.get("before_agent_start")?.({ prompt: "rename parseConfig", images: [] }, ctx());
    const blocked = await h.get("tool_call")?.({ toolName: "edit", toolCallId: "tc1", input: { path: path.join(repo, "src/config.ts") } }, ctx());
    expect(blocked).toEqual({ block: true, reason: "held by session B" });
    const shell = await h.get("tool_call")?.({ toolName: "bash", toolCallId: "tc2", input: { command: "echo hi > out.txt" } }, ctx());
    expect(shell).toBeUndefined();
    fs.writeFileSync(path.join(repo, "out.txt"), "hi\n");
    await h.get("tool_result")?.({ toolName: "bash", toolCallId: "tc2", input: { command: "echo hi > out.txt" }, content: [], isError: false }, ctx());
    await h.get("session_stop")?.({}, ctx());
    await h.get("session_shutdown")?.({}, ctx());
    const bodies = server.requests.map((q) => q.body as Record<string, any>);
    expect(bodies.map((b) => b["event"])).toEqual(["session_start", "prompt", "pre_edit", "pre_shell", "post_edit", "stop", "session_end"]);
    for (const b of bodies) expect(b["session"]).toMatchObject({ external_id: "omp-sess-1", tool: "omp" });
    expect(bodies[1]?.["prompt_excerpt"]).toBe("rename parseConfig");
    expect(bodies[4]?.["paths"]).toEqual(["out.txt"]);
  });

  it("gives context as additionalContext", async () => {
    process.env["COMITY_OMP_BUDGET_MS"] = "5000";
    const h = await loadExtension(`${process.execPath} ${BIN}`);
    server.reply = () => ({ body: { ...ALLOW, inject_context: "Session B is on main." } });
    const r = (await h.get("session_start")?.({}, ctx())) as { additionalContext: string };
    expect(r.additionalContext).toContain("Session B is on main.");
  });

  it("never throws and allows: CLI missing, API slower than the 600 ms budget, garbage events", async () => {
    const missing = await loadExtension("/nonexistent/comity");
    for (const [name, handler] of missing) await expect(Promise.resolve(handler({ toolName: "edit", input: {} }, ctx())), name).resolves.toBeUndefined();
    const h = await loadExtension(`${process.execPath} ${BIN}`);
    for (const [, handler] of h) await expect(Promise.resolve(handler(null, null))).resolves.not.toThrow();
    server.reply = () => ({ body: { ...ALLOW, decision: "block", reason: "late" }, delayMs: 3000 });
    const late = await h.get("tool_call")?.({ toolName: "edit", toolCallId: "tc9", input: { path: path.join(repo, "src/config.ts") } }, ctx());
    // The API would have blocked, 3 s later: allowed means the budget decided.
    expect(late).toBeUndefined();
  });
});
