import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ModelStep, runCodex, type ScriptedModel, type ScriptedStep, seenByModel, startScriptedModel } from "../../benchmarks/scripted-model.mjs";
import type { Sandbox } from "../helpers/git-fixture.js";
import { readHookLog } from "../helpers/hook-fixture.js";
import { CODEX_BIN, twoSessions, twoWorktrees } from "../helpers/real-host.js";
import { runBuiltCliAsync } from "../helpers/run-cli.js";

// The real Codex CLI (`codex exec`), with the hooks `comity init` writes (`.codex/hooks.json`, the native client),
// against a scripted model on the Responses API at 127.0.0.1. Two agents at once in a repo and its worktree; what
// each model is sent is read from the requests the scripted model received.

const CONFIG = ["export function parseConfig(path: string): object {", "  return { path };", "}", ""].join("\n");
const MAIN = 'import { parseConfig } from "./config.js";\n\nexport const cfg = parseConfig("a.json");\n';

let sb: Sandbox;
let main: string;
let wt: string;
let env: NodeJS.ProcessEnv;
let configDir: string;
const models: ScriptedModel[] = [];

beforeEach(() => {
  ({ sb, main, wt, env, configDir } = twoWorktrees({ "src/config.ts": CONFIG, "src/main.ts": MAIN }));
});

afterEach(async () => {
  for (const m of models.splice(0)) await m.close();
  await runBuiltCliAsync(["daemon", "stop"], { cwd: sb.dir, env });
  sb.cleanup();
});

async function init(cwd: string): Promise<void> {
  const r = await runBuiltCliAsync(["init", "--tool", "codex"], { cwd, env });
  expect(r.status, r.stderr).toBe(0);
}

async function model(script: readonly ScriptedStep[]): Promise<ScriptedModel> {
  const m = await startScriptedModel(script, { api: "responses" });
  models.push(m);
  return m;
}

/** One Codex session in `cwd`, its own Codex home (sessions, config) under the sandbox. */
function codex(cwd: string, m: ScriptedModel, extraEnv: NodeJS.ProcessEnv = {}) {
  const codexHome = path.join(sb.dir, "..", `codex-home-${path.basename(cwd)}`);
  fs.mkdirSync(codexHome, { recursive: true });
  return runCodex({ bin: CODEX_BIN, cwd, env: { ...env, ...extraEnv }, modelUrl: m.url, codexHome });
}

const patch = (file: string, from: string, to: string): ModelStep => ({
  tool: "apply_patch",
  input: { patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n` },
});

/** A in the repo and B in its worktree at once (twoSessions says how). */
const pair = (a: readonly ModelStep[], b: readonly ModelStep[]) => twoSessions(a, b, model, (who, m) => codex(who === "alice" ? main : wt, m, { COMITY_AGENT_NAME: who }));

describe.skipIf(!fs.existsSync(CODEX_BIN))("the real Codex CLI with the hooks comity init writes", () => {
  it("briefs at session start, denies the second editor of the same lines once naming the holder, and lets its retry through", async () => {
    await init(main);
    await init(wt);
    const bEdit = patch("src/config.ts", "  return { path };", "  return { path, mode: 2 };");
    const seen = await pair([patch("src/config.ts", "  return { path };", "  return { path, mode: 1 };")], [bEdit, bEdit]);
    expect(seen.b.texts.join("\n")).toContain("## app-feature");
    const [denied, retried] = seen.b.results;
    expect(denied?.isError).toBe(true);
    expect(denied?.text).toMatch(/CF-\d+ edit_conflict: `src\/config\.ts` is also being changed by Codex session [0-9a-f]{8} \("alice", branch `main`/);
    expect(retried?.isError).toBe(false);
    expect(fs.readFileSync(path.join(wt, "src/config.ts"), "utf8")).toContain("mode: 2");
    // Both sessions ended through Codex's SessionEnd hook: nobody holds anything now.
    const st = JSON.parse((await runBuiltCliAsync(["status", "--json"], { cwd: main, env })).stdout) as { sessions: unknown[] };
    expect(st.sessions).toEqual([]);
    expect(readHookLog(configDir)).toEqual([]);
  }, 120_000);

  it("denies an edit of a caller of a function the other agent broke, with the change", async () => {
    await init(main);
    await init(wt);
    const seen = await pair(
      [patch("src/config.ts", "export function parseConfig(path: string): object {", "export function parseConfig(path: string, strict: boolean): object {")],
      [patch("src/main.ts", 'export const cfg = parseConfig("a.json");', 'export const cfg = parseConfig("b.json");')],
    );
    const [denied] = seen.b.results;
    expect(denied?.isError).toBe(true);
    expect(denied?.text).toMatch(/CF-\d+ breaking_change/);
    expect(denied?.text).toContain("PARAMETER_ADDED_REQUIRED");
    expect(fs.readFileSync(path.join(wt, "src/main.ts"), "utf8")).toBe(MAIN);
  }, 120_000);

  it("says nothing about an edit nobody else touches", async () => {
    await init(main);
    const m = await model([patch("src/main.ts", 'export const cfg = parseConfig("a.json");', 'export const cfg = parseConfig("b.json");'), { text: "done" }]);
    const run = await codex(main, m);
    expect(run.code, run.stderr).toBe(0);
    const seen = seenByModel(m.requests);
    expect(seen.results.map((r) => r.isError)).toEqual([false]);
    expect(seen.texts.join("\n")).not.toMatch(/CF-\d+|Comity —/);
    expect(readHookLog(configDir)).toEqual([]);
  }, 120_000);

  it("fails open when Comity is not installed where the hooks run", async () => {
    await init(main);
    const m = await model([patch("src/main.ts", 'export const cfg = parseConfig("a.json");', 'export const cfg = parseConfig("b.json");'), { text: "done" }]);
    const run = await codex(main, m, { PATH: sb.env["PATH"] });
    expect(run.code, run.stderr).toBe(0);
    expect(seenByModel(m.requests).results.map((r) => r.isError)).toEqual([false]);
    expect(fs.readFileSync(path.join(main, "src/main.ts"), "utf8")).toContain('"b.json"');
  }, 120_000);
});
