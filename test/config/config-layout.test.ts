import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_LAYOUT, SYMBOLS_LAYOUT } from "../../src/config/config-layout.js";
import daemonClient from "../../src/daemon/daemon-client.cjs";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCli, runBuiltCliAsync } from "../helpers/run-cli.js";

// Everything Comity writes into its config folder is a store of the layout: a new store gets its place there.

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

/** A top-level name of the config folder, as the layout names it (SQLite's WAL files, a rotated log, settings). */
function storeOf(name: string): string | undefined {
  const names: string[] = Object.values(CONFIG_LAYOUT);
  return names.find((n) => name === n || name.startsWith(`${n}-`) || name.startsWith(`${n}.`) || name === n.replace(/\.sqlite$/, ".settings.json"));
}

describe("the config folder's layout", () => {
  it("names every store once", () => {
    for (const layout of [CONFIG_LAYOUT, SYMBOLS_LAYOUT]) expect(new Set(Object.values(layout)).size).toBe(Object.values(layout).length);
  });

  it("names the daemon's socket as the hook's thin client finds it (a CommonJS module that cannot import the layout)", () => {
    expect(daemonClient.DAEMON_SOCKET_FILE).toBe(CONFIG_LAYOUT.daemon);
  });

  it("holds everything a session's hooks, analyze, symbols, policy and a rotated hook.log write", async () => {
    const config = path.join(sb.dir, "..", "cfg");
    const env = { ...sb.env, COMITY_CONFIG_DIR: config };
    const repo = repoWithRemote(sb, "api");
    const hook = (event: string, payload: object) =>
      runBuiltCliAsync(["hook", "--tool", "claude_code", "--event", event], { cwd: repo, env, input: JSON.stringify({ session_id: "s1", cwd: repo, hook_event_name: event, ...payload }) });
    await hook("SessionStart", { source: "startup" });
    await hook("PreToolUse", { tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "echo x > out.txt" } });
    fs.writeFileSync(path.join(repo, "out.txt"), "x\n");
    fs.writeFileSync(path.join(repo, "src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return {};\n}\n");
    await hook("PostToolUse", { tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "echo x > out.txt" } });
    await hook("PostToolUse", { tool_name: "Edit", tool_use_id: "t2", tool_input: { file_path: path.join(repo, "src/config.ts") } });
    await hook("Stop", {});
    expect(runBuiltCli(["analyze", "."], { cwd: repo, env }).status).toBe(0);
    expect(runBuiltCli(["symbols", "--json", "src/config.ts"], { cwd: repo, env }).status).toBe(0);
    expect(runBuiltCli(["policy", "advisory"], { cwd: repo, env }).status).toBe(0);
    fs.writeFileSync(path.join(config, CONFIG_LAYOUT.hookLog), "x".repeat(1024 * 1024));
    await runBuiltCliAsync(["hook", "--tool", "claude_code", "--event", "PreToolUse"], { cwd: repo, env, input: "not json" });
    const names = fs.readdirSync(config).sort();
    expect(names).toEqual(expect.arrayContaining(["coordination.settings.json", "coordination.sqlite", "discovery", "hook.log", "hook.log.1", "sessions", "snapshots", "symbols"]));
    expect(names.filter((n) => storeOf(n) === undefined)).toEqual([]);
    const symbols = path.join(config, CONFIG_LAYOUT.symbols);
    const known = new Set<string>(Object.values(SYMBOLS_LAYOUT));
    // The symbol cache's own entries are its 256 folders by hash (two hex digits).
    expect(fs.readdirSync(symbols).filter((n) => !known.has(n) && !/^[0-9a-f]{2}$/.test(n))).toEqual([]);
  });
});
