import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ModelStep, runCodex, type ScriptedModel, type ScriptedStep, seenByModel, startScriptedModel } from "../../benchmarks/scripted-model.mjs";
import type { Sandbox } from "../helpers/git-fixture.js";
import { readHookLog } from "../helpers/hook-fixture.js";
import { CODEX_BIN, twoWorktrees } from "../helpers/real-host.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

// The real Codex CLI (`codex exec`), with what `comity init --tool codex` writes (its hooks, and Comity's MCP server
// in the project's `.codex/config.toml`), against a scripted model on the Responses API. Codex defers MCP tools: its
// model is offered `tool_search` (which Codex runs itself), finds Comity's tools in the `mcp__comity` namespace, then
// calls them there. What each tool answered is read from the requests the scripted model received.

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
  await runBuiltCliAsync(["daemon", "stop"], { cwd: sb.dir, env });
  sb.cleanup();
});

async function model(script: readonly ScriptedStep[]): Promise<ScriptedModel> {
  const m = await startScriptedModel(script, { api: "responses" });
  models.push(m);
  return m;
}

function codex(cwd: string, m: ScriptedModel, who: string) {
  const codexHome = path.join(sb.dir, "..", `codex-home-${who}`);
  fs.mkdirSync(codexHome, { recursive: true });
  return runCodex({ bin: CODEX_BIN, cwd, env: { ...env, COMITY_AGENT_NAME: who }, modelUrl: m.url, codexHome });
}

/** Codex's tool search, which its model calls first to be given the deferred MCP tools. */
const search: ModelStep = { item: { type: "tool_search_call", execution: "client", status: "completed", arguments: { query: "comity reserve who check_edit impact inbox", limit: 10 } } };
/** A call of one of Comity's tools, in the namespace Codex gave them. */
const comity = (name: string, args: Readonly<Record<string, unknown>>): ModelStep => ({ item: { type: "function_call", name, namespace: "mcp__comity", arguments: JSON.stringify(args) } });
const patch = (file: string, from: string, to: string): ModelStep => ({
  tool: "apply_patch",
  input: { patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n` },
});

/** What a tool told the model: Codex gives an MCP tool's structured content as JSON after its wall time; its `summary`. */
function said(r: { text: string } | undefined): string {
  const text = r?.text ?? "";
  const json = text.slice(text.indexOf("{"));
  try {
    const doc = JSON.parse(json) as { summary?: unknown };
    return typeof doc.summary === "string" ? doc.summary : text;
  } catch {
    return text;
  }
}

describe.skipIf(!fs.existsSync(CODEX_BIN))("the real Codex CLI with Comity's MCP server, as comity init wires it", () => {
  it("finds Comity's tools by its tool search; reserve denies the other session's edit once, naming it; who, check_edit and impact answer what the hooks know; send_message reaches inbox", async () => {
    // The test's config folder is one Codex would not pass to the MCP server by itself: init names it in env_vars.
    for (const dir of [main, wt]) {
      const r = await runBuiltCliAsync(["init", "--tool", "codex"], { cwd: dir, env });
      expect(r.status, r.stderr).toBe(0);
      expect(fs.readFileSync(path.join(dir, ".codex", "config.toml"), "utf8")).toContain(
        '[mcp_servers.comity]\ncommand = "comity"\nargs = ["mcp", "--host", "codex"]\nenv_vars = ["COMITY_AGENT_NAME", ',
      );
    }
    let bobDone: () => void = () => undefined;
    const bobFinished = new Promise<void>((resolve) => {
      bobDone = resolve;
    });
    const alice = await model([
      search,
      comity("reserve", { paths: ["src/billing/"], minutes: 20, reason: "splitting invoices by currency" }),
      patch("src/config.ts", "export function parseConfig(path: string): object {", "export function parseConfig(path: string, strict: boolean): object {"),
      async () => {
        await bobFinished;
        return comity("inbox", {});
      },
      { text: "alice done" },
    ]);
    const bob = await model([
      search,
      comity("who", { path: "src/config.ts" }),
      comity("check_edit", { path: "src/main.ts", old_string: 'parseConfig("a.json")', new_string: 'parseConfig("b.json")' }),
      comity("impact", { symbol: "parseConfig" }),
      comity("send_message", { to: "alice", text: "I keep main.ts on the one-argument call until you commit" }),
      patch("src/billing/invoice.ts", "export const total = 0;", "export const total = 1;"),
      { text: "bob done" },
    ]);
    const runAlice = codex(main, alice, "alice");
    await alice.waitForRequests(4);
    const runBob = await codex(wt, bob, "bob").finally(() => bobDone());
    const ranAlice = await runAlice;
    expect(runBob.code, runBob.stderr.slice(-2000)).toBe(0);
    expect(ranAlice.code, ranAlice.stderr.slice(-2000)).toBe(0);

    // The tools are not offered up front: the tool search gave them, in Comity's namespace.
    expect((bob.requests[0]?.tools ?? []).map((t) => t.name ?? "")).not.toContain("who");
    const found = JSON.stringify(bob.requests[1]?.input?.find((i) => i["type"] === "tool_search_output") ?? {});
    for (const tool of ["who", "check_edit", "impact", "reserve", "send_message", "inbox"]) expect(found).toContain(`"name":"${tool}"`);

    const [reserved, changed] = seenByModel(alice.requests).results;
    expect(said(reserved)).toMatch(/^Reserved \(exclusive, for 20 minutes\): src\/billing\/ \(RSV-\d+\)/);
    expect(changed?.isError, changed?.text).toBe(false);
    const [who, check, impact, sent, billing] = seenByModel(bob.requests).results;
    expect(said(who)).toContain('"alice"');
    expect(said(who)).toContain("changed it");
    expect(said(check)).toMatch(/Comity would stop this edit once/);
    expect(said(check)).toContain("PARAMETER_ADDED_REQUIRED");
    expect(said(impact)).toMatch(/parseConfig in src\/config\.ts: signature_changed, breaking \(local\)/);
    expect(said(sent)).toContain("Left for Codex session");
    // bob's patch in alice's reserved folder: denied by the PreToolUse hook, naming the reservation and its reason.
    expect(billing?.isError).toBe(true);
    expect(billing?.text).toMatch(/reserved: `src\/billing\/invoice\.ts` is reserved by Codex session [0-9a-f]{8} \("alice"/);
    expect(billing?.text).toContain('"splitting invoices by currency"');
    expect(fs.readFileSync(path.join(wt, "src/billing/invoice.ts"), "utf8")).toBe("export const total = 0;\n");
    const [, , inbox] = seenByModel(alice.requests).results;
    expect(said(inbox)).toContain("I keep main.ts on the one-argument call until you commit");
    expect(readHookLog(configDir)).toEqual([]);
  }, 180_000);
});
