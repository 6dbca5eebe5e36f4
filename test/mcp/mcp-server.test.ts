import * as fs from "node:fs";
import * as path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComityMcpServer } from "../../src/mcp/mcp-server.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { commit, createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { BIN, runBuiltCli } from "../helpers/run-cli.js";
import { type RunningServe, startServe } from "../helpers/serve-fixture.js";

let sb: Sandbox;
let cfg: string;
let app: string;
let other: string;
/** The team server's URL and token, in served mode. */
let served: { url: string; token: string } | null = null;

const envOf = (label: string): NodeJS.ProcessEnv => ({
  ...sb.env,
  COMITY_CONFIG_DIR: cfg,
  COMITY_AGENT_NAME: label,
  ...(served === null ? {} : { COMITY_API_URL: served.url, COMITY_TOKEN: served.token }),
});

/** One Claude Code hook event, through the built CLI, as a session of `label` in `cwd`. */
function hook(label: string, session: string, cwd: string, event: string, extra: Record<string, unknown> = {}): string {
  const input = JSON.stringify({ session_id: session, transcript_path: "/t", cwd, hook_event_name: event, ...extra });
  const r = runBuiltCli(["hook", "--tool", "claude_code", "--event", event], { cwd, env: envOf(label), input });
  expect(r.status).toBe(0);
  return r.stdout;
}

/** An edit by a session, as Claude Code runs it: PreToolUse, the write, PostToolUse. */
function edit(label: string, session: string, cwd: string, file: string, from: string, to: string): string {
  const abs = path.join(cwd, file);
  const toolInput = { file_path: abs, old_string: from, new_string: to };
  const pre = hook(label, session, cwd, "PreToolUse", { tool_name: "Edit", tool_input: toolInput, tool_use_id: `${session}-${Date.now()}` });
  fs.writeFileSync(abs, fs.readFileSync(abs, "utf8").replace(from, to));
  hook(label, session, cwd, "PostToolUse", { tool_name: "Edit", tool_input: toolInput, tool_response: {}, tool_use_id: `${session}-post` });
  return pre;
}

async function connect(cwd: string, label: string): Promise<Client> {
  const server = createComityMcpServer({ env: envOf(label), cwd, host: "claude_code" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(b);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult): string => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe.each(["embedded", "served"] as const)("comity's MCP server, with the SDK's own client (%s)", (mode) => {
  let serve: RunningServe | null = null;
  beforeAll(async () => {
    sb = createSandbox();
    cfg = path.join(sb.dir, "cfg");
    served = null;
    if (mode === "served") {
      const spec = path.join(sb.dir, "serve.sqlite");
      const made = runBuiltCli(["serve", "token", "create", "--team", "acme", "--db", spec], { cwd: sb.dir, env: { ...sb.env, COMITY_CONFIG_DIR: cfg } });
      expect(made.status, made.stderr).toBe(0);
      serve = await startServe(["--db", spec], { ...sb.env, COMITY_CONFIG_DIR: cfg });
      served = { url: serve.url, token: made.stdout.trim() };
    }
    // Two clones of one repo: ana works in app, bo in app-2.
    app = repoWithRemote(sb, "app");
    other = repoWithRemote(sb, "app-2", "git@github.com:acme/app.git");
    hook("ana", "s-ana-0001", app, "SessionStart", { source: "startup" });
    hook("bo", "s-bo-0002", other, "SessionStart", { source: "startup" });
    // ana makes parseConfig's second parameter required: a breaking change to line 1.
    edit("ana", "s-ana-0001", app, "src/config.ts", "parseConfig(path: string)", "parseConfig(path: string, strict: boolean)");
  });
  afterAll(async () => {
    await serve?.stop();
    sb.cleanup();
  });

  it("lists its tools, each with a description and an input schema", async () => {
    const client = await connect(other, "bo");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["analyze", "check_edit", "impact", "inbox", "release", "reserve", "send_message", "status", "who"]);
    for (const t of tools) {
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type, t.name).toBe("object");
    }
    expect(tools.find((t) => t.name === "check_edit")?.inputSchema.required).toEqual(["path"]);
  });

  it("who and status answer what the hooks know, status marking the caller", async () => {
    const client = await connect(other, "bo");
    const who = await call(client, "who", { path: "src/config.ts" });
    expect(who.isError).toBeFalsy();
    expect(text(who)).toContain('"ana"');
    expect((who.structuredContent as { sessions: Array<{ changed: boolean }> }).sessions).toEqual([expect.objectContaining({ session: "s-ana-0001", changed: true })]);
    const status = await call(client, "status");
    const sessions = (status.structuredContent as { sessions: Array<{ session: string; you: boolean; changes: Array<{ qualified_name: string; compatibility: string }> }> }).sessions;
    expect(sessions.map((s) => [s.session, s.you]).sort()).toEqual([
      ["s-ana-0001", false],
      ["s-bo-0002", true],
    ]);
    expect(sessions.find((s) => s.session === "s-ana-0001")?.changes).toEqual([expect.objectContaining({ qualified_name: "parseConfig", compatibility: "breaking" })]);
  });

  it("check_edit says what the PreToolUse hook then decides, and records nothing", async () => {
    const client = await connect(other, "bo");
    const same = { path: "src/config.ts", old_string: "parseConfig(path: string)", new_string: "parseConfig(p: string)" };
    const first = await call(client, "check_edit", same);
    expect(first.isError, text(first)).toBeFalsy();
    const verdict = first.structuredContent as { verdict: string; message: string | null; as_session: string | null };
    expect(verdict.as_session).toBe("s-bo-0002");
    expect(verdict.verdict).toBe("deny");
    expect(verdict.message).toContain("parseConfig");
    // Asked again: the same answer (the first check recorded no denial).
    expect((await call(client, "check_edit", same)).structuredContent).toEqual(verdict);
    // The hook, asked for real, denies it with the same words.
    const pre = hook("bo", "s-bo-0002", other, "PreToolUse", {
      tool_name: "Edit",
      tool_input: { file_path: path.join(other, same.path), old_string: same.old_string, new_string: same.new_string },
      tool_use_id: "bo-1",
    });
    const decided = JSON.parse(pre) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(decided.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(decided.hookSpecificOutput.permissionDecisionReason).toBe(verdict.message);
    // An edit far from anything is clear.
    fs.writeFileSync(path.join(other, "src/other.ts"), "export const x = 1;\n");
    const clear = await call(client, "check_edit", { path: "src/other.ts", content: "export const x = 2;\n" });
    expect(clear.structuredContent).toMatchObject({ verdict: "clear", message: null });
  });

  it("impact names the change and who made it", async () => {
    const client = await connect(other, "bo");
    const r = await call(client, "impact", { symbol: "parseConfig" });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { changes: unknown[] }).changes).toEqual([
      expect.objectContaining({ session: "s-ana-0001", path: "src/config.ts", qualified_name: "parseConfig", compatibility: "breaking", state: "local" }),
    ]);
    expect(text(r)).toContain('"ana"');
    // Before and after, as the hook said them.
    expect(text(r)).toContain("parseConfig(path) → parseConfig(path, strict)");
  });

  it("a message sent with send_message is read with inbox by the other session", async () => {
    const bo = await connect(other, "bo");
    const sent = await call(bo, "send_message", { to: "ana", text: "I will keep calling parseConfig with one argument until you commit" });
    expect(sent.isError, text(sent)).toBeFalsy();
    const ana = await connect(app, "ana");
    const inbox = await call(ana, "inbox");
    expect(inbox.structuredContent).toMatchObject({
      session: "s-ana-0001",
      messages: [expect.objectContaining({ text: "I will keep calling parseConfig with one argument until you commit", delivered: false })],
    });
    expect(text(inbox)).toContain("(new)");
    // Read by the agent, it is given: its hooks do not give it again, and the next read no longer calls it new.
    expect(hook("ana", "s-ana-0001", app, "UserPromptSubmit", { prompt: "go on" })).not.toContain("until you commit");
    const again = await call(ana, "inbox");
    expect(again.structuredContent).toMatchObject({ messages: [expect.objectContaining({ text: "I will keep calling parseConfig with one argument until you commit", delivered: true })] });
    expect(text(again)).not.toContain("(new)");
    // One not read with inbox is given by the hooks, as before.
    expect((await call(bo, "send_message", { to: "ana", text: "and I rename loadConfig tomorrow" })).isError).toBeFalsy();
    expect(hook("ana", "s-ana-0001", app, "UserPromptSubmit", { prompt: "and now?" })).toContain("and I rename loadConfig tomorrow");
  });

  it("analyze gives the workspace's briefing", async () => {
    const client = await connect(app, "ana");
    const r = await call(client, "analyze", { folder: sb.dir });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toContain("config.ts");
  });

  it("a reservation is honoured by the hooks, shown by who and status, refuses an overlapping exclusive one, and ends at release", async () => {
    const ana = await connect(app, "ana");
    const bo = await connect(other, "bo");
    const got = await call(ana, "reserve", { paths: ["src/"], minutes: 20, reason: "moving the config loader" });
    expect(got.isError, text(got)).toBeFalsy();
    const ref = (got.structuredContent as { reservations: Array<{ ref: string; pattern: string; exclusive: boolean }> }).reservations[0];
    expect(ref).toMatchObject({ pattern: "src/", exclusive: true });
    // who and status say so.
    fs.writeFileSync(path.join(other, "src/new.ts"), "export const n = 1;\n");
    expect(text(await call(bo, "who", { path: "src/new.ts" }))).toMatch(new RegExp(`reserved it \\(${ref?.ref} src/, exclusive, for 20 more minutes: moving the config loader\\)`));
    const sessions = ((await call(bo, "status")).structuredContent as { sessions: Array<{ session: string; reservations: Array<{ ref: string }> }> }).sessions;
    expect(sessions.find((x) => x.session === "s-ana-0001")?.reservations.map((r) => r.ref)).toEqual([ref?.ref]);
    // An exclusive reservation over it is refused, naming it; a shared one elsewhere is granted.
    const refused = await call(bo, "reserve", { paths: ["src/new.ts"] });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`already reserved: \`src/\` (${ref?.ref}, exclusive)`);
    expect((await call(bo, "reserve", { paths: ["docs/**"], mode: "shared", minutes: 5 })).isError).toBeFalsy();
    // bo's edit of a file under it: check_edit and the hook both deny it once, with the reservation.
    const edit = { path: "src/new.ts", old_string: "n = 1", new_string: "n = 2" };
    const checked = (await call(bo, "check_edit", edit)).structuredContent as { verdict: string; message: string };
    expect(checked.verdict).toBe("deny");
    expect(checked.message).toMatch(
      new RegExp(`reserved: \`src/new\\.ts\` is reserved by Claude Code session s-ana-0001 \\("ana"[^)]*\\) \\(${ref?.ref}, \`src/\`, exclusive, for 20 more minutes\\): "moving the config loader"`),
    );
    const toolInput = { file_path: path.join(other, edit.path), old_string: edit.old_string, new_string: edit.new_string };
    const pre = JSON.parse(hook("bo", "s-bo-0002", other, "PreToolUse", { tool_name: "Edit", tool_input: toolInput, tool_use_id: "bo-r1" })) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(pre.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(pre.hookSpecificOutput.permissionDecisionReason).toBe(checked.message);
    // Told once (first_contact): the retry goes through, and ana hears that bo edits inside her reservation.
    expect(hook("bo", "s-bo-0002", other, "PreToolUse", { tool_name: "Edit", tool_input: toolInput, tool_use_id: "bo-r2" })).not.toContain('"deny"');
    expect(hook("ana", "s-ana-0001", app, "UserPromptSubmit", { prompt: "go on" })).toContain(`is editing \`src/new.ts\`, inside your reservation ${ref?.ref} (\`src/\`)`);
    // Released: who no longer names it, and a new file under src/ is clear to edit.
    expect((await call(ana, "release", {})).structuredContent).toMatchObject({ released: [ref?.ref] });
    expect(text(await call(bo, "who", { path: "src/new.ts" }))).not.toContain("reserved it");
    fs.writeFileSync(path.join(other, "src/newer.ts"), "export const m = 1;\n");
    expect((await call(bo, "check_edit", { path: "src/newer.ts", content: "export const m = 2;\n" })).structuredContent).toMatchObject({ verdict: "clear" });
    expect((await call(bo, "release", {})).isError).toBeFalsy();
  });

  // (embedded: the clock is the caller's; a team server keeps its own)
  it.skipIf(mode === "served")("a reservation past its minutes is over", async () => {
    // Made 31 minutes ago for 30: it expired a minute ago.
    const ana = createComityMcpServer({ env: envOf("ana"), cwd: app, host: "claude_code", now: () => Date.now() - 31 * 60_000 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await ana.connect(a);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(b);
    // (the session is seen as active then too: the hooks heard from it since)
    const got = await call(client, "reserve", { paths: ["src/config.ts"], minutes: 30 });
    expect(got.isError, text(got)).toBeFalsy();
    const bo = await connect(other, "bo");
    expect(text(await call(bo, "who", { path: "src/config.ts" }))).not.toContain("reserved it");
  });

  it("bad input is a clear error, and nothing is recorded", async () => {
    const client = await connect(other, "bo");
    const before = runBuiltCli(["status", "--json"], { cwd: other, env: envOf("bo") }).stdout;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["check_edit", { path: "src/config.ts" }, /give old_string and new_string, or content/],
      ["check_edit", { path: "src/config.ts", content: "x", old_string: "a", new_string: "b" }, /not both/],
      ["check_edit", { path: path.join(sb.dir, "..", "elsewhere.ts"), content: "x" }, /in no git repo/],
      ["who", { path: path.join(sb.dir, "..", "nowhere.ts") }, /in no git repo/],
      ["impact", {}, /give a symbol or a path/],
      ["send_message", { to: "nobody-here", text: "hello" }, /no active session is 'nobody-here'/],
      ["reserve", { paths: ["../outside/"] }, /leaves the repo/],
      ["release", { refs: ["RSV-999999"] }, /none of this session's active reservations is RSV-999999/],
    ];
    for (const [name, args, message] of cases) {
      const r = await call(client, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r)).toMatch(message);
    }
    // Input the schema refuses: the SDK's own error.
    const typed = await call(client, "who", { path: 42 });
    expect(typed.isError).toBe(true);
    expect(text(typed)).toMatch(/path/);
    expect(runBuiltCli(["status", "--json"], { cwd: other, env: envOf("bo") }).stdout).toBe(before);
    expect(readHookLog(cfg)).toEqual([]);
  });
});

describe("comity mcp, the built CLI on stdio", () => {
  beforeAll(() => {
    sb = createSandbox();
    cfg = path.join(sb.dir, "cfg");
    served = null;
    app = repoWithRemote(sb, "app");
    hook("ana", "s-ana-0001", app, "SessionStart", { source: "startup" });
  });
  afterAll(() => sb.cleanup());

  it("answers a host that starts it as comity init writes it, and ends when the host closes its stdin", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--host", "claude_code"], cwd: app, env: envOf("ana") as Record<string, string>, stderr: "pipe" });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    expect((await client.listTools()).tools).toHaveLength(9);
    const status = await call(client, "status");
    expect(status.structuredContent).toMatchObject({ sessions: [expect.objectContaining({ session: "s-ana-0001", you: true })] });
    await client.close();
  });

  it("comity reserve and release, from an agent's shell: the same claims as the MCP tools", () => {
    const r = runBuiltCli(["reserve", "src/", "--minutes", "15", "--reason", "moving the loader"], { cwd: app, env: envOf("ana") });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Reserved \(exclusive, for 15 minutes\): src\/ \(RSV-\d+\)\./);
    const ref = /RSV-\d+/.exec(r.stdout)?.[0];
    expect(runBuiltCli(["who", "src/config.ts"], { cwd: app, env: envOf("ana") }).stdout).toBeDefined();
    const released = runBuiltCli(["release", ref ?? "RSV-0"], { cwd: app, env: envOf("ana") });
    expect(released.stdout).toBe(`Released ${ref}.\n`);
    // Where no session of the folder is known yet, it says so.
    const elsewhere = repoWithRemote(sb, "fresh");
    const refused = runBuiltCli(["reserve", "src/"], { cwd: elsewhere, env: envOf("ana") });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("no active session of this folder yet");
    expect(runBuiltCli(["reserve"], { cwd: app, env: envOf("ana") }).status).toBe(2);
  });

  it("passes its messages to the daemon where it runs (nothing of the server loaded for a session), and runs the server itself where it does not", async () => {
    const { COMITY_DAEMON: _off, ...withDaemon } = envOf("ana");
    const stdio = async (): Promise<CallToolResult> => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--host", "claude_code"], cwd: app, env: withDaemon as Record<string, string>, stderr: "pipe" });
      const client = new Client({ name: "test", version: "1" });
      await client.connect(transport);
      expect((await client.listTools()).tools).toHaveLength(9);
      const status = await call(client, "status");
      await client.close();
      return status;
    };
    const mcpRequests = (): number => (JSON.parse(runBuiltCli(["daemon", "status", "--json"], { cwd: app, env: withDaemon }).stdout) as { mcpRequests?: number }).mcpRequests ?? 0;
    try {
      // No daemon: the server runs in the process, and answers the same.
      expect((await stdio()).structuredContent).toMatchObject({ sessions: [expect.objectContaining({ session: "s-ana-0001", you: true })] });
      expect(runBuiltCli(["daemon", "start"], { cwd: app, env: withDaemon }).status).toBe(0);
      const before = mcpRequests();
      expect((await stdio()).structuredContent).toMatchObject({ sessions: [expect.objectContaining({ session: "s-ana-0001", you: true })] });
      // initialize, its notification, the list and the call: all answered by the daemon.
      expect(mcpRequests() - before).toBe(4);
      // A daemon stopped (SIGSTOP) takes nothing: the server runs in the process, and answers the same.
      const pid = Number.parseInt(fs.readFileSync(path.join(cfg, "daemon.sock.pid"), "utf8"), 10);
      process.kill(pid, "SIGSTOP");
      try {
        expect((await stdio()).structuredContent).toMatchObject({ sessions: [expect.objectContaining({ session: "s-ana-0001", you: true })] });
      } finally {
        process.kill(pid, "SIGCONT");
      }
      const vim = runBuiltCli(["mcp", "--host", "vim"], { cwd: app, env: withDaemon, input: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n' });
      expect(vim.status).toBe(2);
      expect(vim.stderr).toContain("unknown host 'vim'");
    } finally {
      runBuiltCli(["daemon", "stop"], { cwd: app, env: withDaemon });
    }
    expect(readHookLog(cfg)).toEqual([]);
  });

  it("refuses a host it does not know", () => {
    const r = runBuiltCli(["mcp", "--host", "vim"], { cwd: app, env: envOf("ana") });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown host 'vim'");
  });
});

describe("Comity's MCP server on the daemon's HTTP front (comity init --http)", () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    sb = createSandbox();
    cfg = path.join(sb.dir, "cfg");
    served = null;
    app = repoWithRemote(sb, "app");
    commit(sb, app, "src/main.ts", 'import { parseConfig } from "./config.js";\n\nexport const cfg = parseConfig("a.json");\n');
    other = repoWithRemote(sb, "app-2", "git@github.com:acme/app.git");
    hook("ana", "s-ana-0001", app, "SessionStart", { source: "startup" });
    hook("bo", "s-bo-0002", other, "SessionStart", { source: "startup" });
    edit("bo", "s-bo-0002", other, "src/config.ts", "parseConfig(path: string)", "parseConfig(path: string, strict: boolean)");
    // The daemon runs here (the suite turns it off elsewhere).
    const { COMITY_DAEMON: _off, ...rest } = envOf("ana");
    env = rest;
  });
  afterAll(() => {
    runBuiltCli(["daemon", "stop"], { cwd: app, env });
    sb.cleanup();
  });

  /** The entry init wrote in the user's Claude Code file, its headers filled as Claude Code fills them from `vars`. */
  function entryAsSent(vars: Readonly<Record<string, string>>): { url: string; headers: Record<string, string> } {
    const doc = JSON.parse(fs.readFileSync(path.join(sb.env["HOME"] ?? "", ".claude.json"), "utf8")) as {
      projects: Record<string, { mcpServers: { comity: { type: string; url: string; headers: Record<string, string> } } }>;
    };
    const entry = doc.projects[app]?.mcpServers.comity;
    expect(entry?.type).toBe("http");
    const fill = (v: string) => v.replace(/\$\{(\w+):-\}/g, (_m, name: string) => vars[name] ?? "");
    return { url: entry?.url ?? "", headers: Object.fromEntries(Object.entries(entry?.headers ?? {}).map(([k, v]) => [k, fill(v)])) };
  }

  it("answers the SDK's Streamable HTTP client with no process started, as the session its headers name; refuses strangers", async () => {
    const r = runBuiltCli(["init", "--tool", "claude_code", "--http"], { cwd: app, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/posted to the daemon on 127\.0\.0\.1:\d+ .*: it (started|restarted|runs)/);
    const { url, headers } = entryAsSent({ COMITY_AGENT_NAME: "ana" });
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    expect((await client.listTools()).tools).toHaveLength(9);
    const status = await call(client, "status");
    expect(status.structuredContent).toMatchObject({ sessions: expect.arrayContaining([expect.objectContaining({ session: "s-ana-0001", you: true })]) });
    // check_edit, run in the daemon: the verdict the hook gives (bo broke parseConfig, which ana's edit calls).
    const check = await call(client, "check_edit", { path: "src/config.ts", old_string: "parseConfig(path: string)", new_string: "parseConfig(p: string)" });
    expect(check.structuredContent).toMatchObject({ verdict: "deny", as_session: "s-ana-0001" });
    // and on a caller of what bo broke, in a file no one else touches
    const caller = await call(client, "check_edit", { path: "src/main.ts", old_string: 'parseConfig("a.json")', new_string: 'parseConfig("b.json")' });
    expect(text(caller)).toMatch(/Comity would stop this edit once/);
    expect(text(caller)).toContain("PARAMETER_ADDED_REQUIRED");
    const reserved = await call(client, "reserve", { paths: ["src/"], minutes: 5 });
    expect(text(reserved)).toMatch(/^Reserved \(exclusive, for 5 minutes\): src\/ \(RSV-\d+\)/);
    await client.close();
    // The daemon answered it (initialize, its notification, the list, two calls): no process was started for it.
    const daemon = JSON.parse(runBuiltCli(["daemon", "status", "--json"], { cwd: app, env }).stdout) as { mcpRequests: number };
    expect(daemon.mcpRequests).toBeGreaterThanOrEqual(4);

    const post = (target: string, h: Record<string, string>, method = "POST") =>
      fetch(target, {
        method,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...h },
        ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) } : {}),
      });
    expect((await post(url, { ...headers, authorization: "Bearer nope" })).status).toBe(401);
    expect((await post(url, { ...headers, origin: "https://evil.example" })).status).toBe(403);
    expect((await post(url, headers, "GET")).status).toBe(405);
    expect((await post(url.replace(/root=[^&]*/, "root=relative"), headers)).status).toBe(400);
    const listed = await post(url, headers);
    expect(listed.status).toBe(200);
    // The tool list, kept after the SDK's first answer, is that answer: the nine tools, with their schemas.
    const list = (await listed.json()) as { id: number; result: { tools: Array<{ name: string; inputSchema: { type: string } }> } };
    expect(list.id).toBe(1);
    expect(list.result.tools.map((t) => t.name).sort()).toEqual(["analyze", "check_edit", "impact", "inbox", "release", "reserve", "send_message", "status", "who"]);
    expect(list.result.tools.every((t) => t.inputSchema.type === "object")).toBe(true);
    expect(readHookLog(cfg)).toEqual([]);
  });

  it("answers for the worktree the session's shell is in: Claude Code keeps one entry for a repo and its worktrees", async () => {
    const wt = path.join(sb.dir, "app-wt");
    sb.git(app, "worktree", "add", "-q", "-b", "side", wt);
    hook("cy", "s-cy-0003", wt, "SessionStart", { source: "startup" });
    const youAre = async (vars: Record<string, string>): Promise<string | undefined> => {
      const { url, headers } = entryAsSent(vars);
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      const client = new Client({ name: "test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      const status = await call(client, "status");
      await client.close();
      return (status.structuredContent as { sessions: Array<{ session: string; you: boolean }> }).sessions.find((s) => s.you)?.session;
    };
    expect(await youAre({ COMITY_AGENT_NAME: "cy", PWD: path.join(wt, "src") })).toBe("s-cy-0003");
    // A shell elsewhere (not a worktree of this repo), or none: the project's root.
    expect(await youAre({ COMITY_AGENT_NAME: "ana", PWD: sb.dir })).toBe("s-ana-0001");
    expect(await youAre({ COMITY_AGENT_NAME: "ana" })).toBe("s-ana-0001");
  });
});
