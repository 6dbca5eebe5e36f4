import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedModel, type ScriptedStep, seenByModel, startScriptedModel } from "../../benchmarks/scripted-model.mjs";
import type { Sandbox } from "../helpers/git-fixture.js";
import { readHookLog } from "../helpers/hook-fixture.js";
import { CLAUDE_BIN, runClaude, twoWorktrees } from "../helpers/real-host.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

// The real Claude Code CLI, headless, with what `comity init` writes (its hooks, and Comity's MCP server in .mcp.json,
// approved in the project's settings): a scripted model calls Comity's tools, and what they answer is read from the
// requests the model received.

const CONFIG = "export function parseConfig(path: string): object {\n  return { path };\n}\n";
const MAIN = 'import { parseConfig } from "./config.js";\n\nexport const cfg = parseConfig("a.json");\n';

let sb: Sandbox;
let main: string;
let wt: string;
let env: NodeJS.ProcessEnv;
let configDir: string;
const models: ScriptedModel[] = [];

beforeEach(() => {
  ({ sb, main, wt, env, configDir } = twoWorktrees({ "src/config.ts": CONFIG, "src/main.ts": MAIN, "src/billing/invoice.ts": "export const total = 0;\n" }));
});
afterEach(async () => {
  for (const m of models.splice(0)) await m.close();
  try {
    process.kill(Number.parseInt(fs.readFileSync(path.join(configDir, "daemon.sock.pid"), "utf8"), 10), "SIGKILL");
  } catch {
    // no daemon
  }
  sb.cleanup();
});

const read = (file: string): string => fs.readFileSync(file, "utf8");

async function model(script: readonly ScriptedStep[]): Promise<ScriptedModel> {
  const m = await startScriptedModel(script);
  models.push(m);
  return m;
}

// Both ways init wires it: `comity mcp` on stdio from the project's .mcp.json, and, with `--http`, the daemon's
// Streamable HTTP endpoint from the project's local entry in ~/.claude.json (which wins over .mcp.json's).
describe.skipIf(!fs.existsSync(CLAUDE_BIN)).each(["stdio", "http"] as const)("the real Claude Code CLI with Comity's MCP server, as comity init wires it (%s)", (style) => {
  it("a reservation made with reserve denies the other session's edit once, naming it; who, check_edit and impact answer what the hooks know; send_message reaches inbox", async () => {
    for (const dir of [main, wt]) {
      const r = await runBuiltCliAsync(["init", "--tool", "claude_code", ...(style === "http" ? ["--http"] : [])], { cwd: dir, env });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(dir, ".mcp.json"), "utf8"))).toEqual({ mcpServers: { comity: { command: "comity", args: ["mcp", "--host", "claude_code"] } } });
    }
    const mcpOverHttp = (): number =>
      (JSON.parse(fs.readFileSync(path.join(String(env["HOME"]), ".claude.json"), "utf8")) as { projects?: Record<string, { mcpServers?: { comity?: { type?: string } } }> }).projects?.[main]
        ?.mcpServers?.comity?.type === "http"
        ? 1
        : 0;
    // alice makes parseConfig's new parameter required, then, once bob is done, reads her inbox.
    let bobDone: () => void = () => undefined;
    const bobFinished = new Promise<void>((resolve) => {
      bobDone = resolve;
    });
    const alice = await model([
      { tool: "mcp__comity__reserve", input: { paths: ["src/billing/"], minutes: 20, reason: "splitting invoices by currency" } },
      { tool: "Edit", input: { file_path: path.join(main, "src/config.ts"), old_string: "parseConfig(path: string)", new_string: "parseConfig(path: string, strict: boolean)" } },
      async () => {
        await bobFinished;
        return { tool: "mcp__comity__inbox", input: {} };
      },
      { text: "alice done" },
    ]);
    const bob = await model([
      { tool: "mcp__comity__who", input: { path: "src/config.ts" } },
      { tool: "mcp__comity__check_edit", input: { path: "src/main.ts", old_string: 'parseConfig("a.json")', new_string: 'parseConfig("b.json")' } },
      { tool: "mcp__comity__impact", input: { symbol: "parseConfig" } },
      { tool: "mcp__comity__send_message", input: { to: "alice", text: "I keep main.ts on the one-argument call until you commit" } },
      { tool: "Edit", input: { file_path: path.join(wt, "src/billing/invoice.ts"), old_string: "total = 0", new_string: "total = 1" } },
      { text: "bob done" },
    ]);
    const runAlice = runClaude({ cwd: main, env: { ...env, COMITY_AGENT_NAME: "alice" }, modelUrl: alice.url });
    await alice.waitForRequests(3);
    const runBob = await runClaude({ cwd: wt, env: { ...env, COMITY_AGENT_NAME: "bob" }, modelUrl: bob.url }).finally(() => bobDone());
    const ranAlice = await runAlice;
    expect(runBob.code, runBob.stderr.slice(-2000)).toBe(0);
    expect(ranAlice.code, ranAlice.stderr.slice(-2000)).toBe(0);

    // Claude Code gives its model a tool's structured content: Comity's sentences are its `summary`.
    const said = (r: { text: string } | undefined): string => {
      try {
        const doc = JSON.parse(r?.text ?? "") as { summary?: unknown };
        return typeof doc.summary === "string" ? doc.summary : (r?.text ?? "");
      } catch {
        return r?.text ?? "";
      }
    };
    const [reserved] = seenByModel(alice.requests).results;
    expect(said(reserved)).toMatch(/^Reserved \(exclusive, for 20 minutes\): src\/billing\/ \(RSV-\d+\)/);
    const [who, check, impact, sent, billing] = seenByModel(bob.requests).results;
    expect(who?.isError, who?.text).toBe(false);
    expect(said(who)).toContain('"alice"');
    expect(said(who)).toContain("changed it");
    // check_edit: the words the PreToolUse hook would deny with, without recording the denial.
    expect(said(check)).toMatch(/Comity would stop this edit once/);
    expect(said(check)).toContain("PARAMETER_ADDED_REQUIRED");
    expect(said(impact)).toMatch(/parseConfig in src\/config\.ts: signature_changed, breaking \(local\)/);
    expect(said(sent)).toContain("Left for Claude Code session");
    // bob's edit in alice's reserved folder: denied once, naming the reservation and its reason.
    expect(billing?.isError).toBe(true);
    expect(billing?.text).toMatch(/reserved: `src\/billing\/invoice\.ts` is reserved by Claude Code session [0-9a-f]{8} \("alice"/);
    expect(billing?.text).toContain('"splitting invoices by currency"');
    expect(read(path.join(wt, "src/billing/invoice.ts"))).toBe("export const total = 0;\n");
    const [, , inbox] = seenByModel(alice.requests).results;
    expect(said(inbox)).toContain("I keep main.ts on the one-argument call until you commit");
    // The tools were offered to the model under Claude Code's MCP names.
    const offered = (bob.requests[0]?.tools ?? []).map((t) => t.name ?? "");
    expect(offered).toEqual(
      expect.arrayContaining(["mcp__comity__who", "mcp__comity__check_edit", "mcp__comity__impact", "mcp__comity__send_message", "mcp__comity__inbox", "mcp__comity__status", "mcp__comity__analyze"]),
    );
    if (style === "http") {
      // Claude Code reached the server on the daemon: every call above was an HTTP request it answered.
      expect(mcpOverHttp()).toBe(1);
      const daemon = JSON.parse((await runBuiltCliAsync(["daemon", "status", "--json"], { cwd: main, env })).stdout) as { mcpRequests?: number };
      expect(daemon.mcpRequests ?? 0).toBeGreaterThanOrEqual(7);
    }
    expect(readHookLog(configDir)).toEqual([]);
  }, 180_000);
});
