import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerHookCall } from "../../src/cli/commands/daemon.js";
import { ensureDaemonHttpConfig } from "../../src/daemon/daemon-http.js";
import type { HookCall } from "../../src/daemon/daemon-wire.js";
import type { HookRuntime } from "../../src/hook/hook-input.js";
import { createKeptStores } from "../../src/hook/kept-stores.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

// The daemon keeps the embedded store open between events: what one event wrote the next one reads on the same
// connection, and a store another process moved aside (found unusable) is opened anew, not read through a stale handle.

let sb: Sandbox;
let repo: string;
let configDir: string;
let runtime: HookRuntime;
beforeEach(() => {
  sb = createSandbox();
  repo = initRepo(sb, "app");
  commit(sb, repo, "src/config.ts", "export function parseConfig(path: string): object {\n  return { path };\n}\n");
  configDir = path.join(sb.dir, "..", "comity-config");
  runtime = { stores: createKeptStores() };
});
afterEach(async () => {
  await runtime.stores?.close();
  sb.cleanup();
});

/**
 * A Claude Code PreToolUse on an edit of src/config.ts, answered as the daemon answers it; the denial's reason or null.
 * `http`: as the daemon gets it from an HTTP hook `init --http` writes, with none of the session's variables but the
 * daemon's own (here COMITY_AGENT_NAME=daemon).
 */
async function preEdit(session: string, toolUseId: string, http = false, agentId?: string): Promise<string | null> {
  const stdin = JSON.stringify({
    session_id: session,
    ...(agentId === undefined ? {} : { agent_id: agentId }),
    transcript_path: `/tmp/${session}.jsonl`,
    cwd: repo,
    hook_event_name: "PreToolUse",
    tool_name: "Edit",
    tool_input: { file_path: path.join(repo, "src/config.ts"), old_string: "path", new_string: "p" },
    tool_use_id: toolUseId,
  });
  const env = envOf(http ? "daemon" : session);
  const call: HookCall = { kind: "hook", build: "test", args: ["--tool", "claude_code", "--event", "PreToolUse"], cwd: repo, env, stdin, ...(http ? { envFromSession: true as const } : {}) };
  const answer = await answerHookCall(call, runtime);
  // (what the daemon runs once the answer has gone: the session's state saved)
  answer.after();
  const stdout = answer.stdout;
  if (stdout.trim() === "") return null;
  const h = (JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } }).hookSpecificOutput ?? {};
  return h.permissionDecision === "deny" ? (h.permissionDecisionReason ?? "") : null;
}

function envOf(agentName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...sb.env, COMITY_CONFIG_DIR: configDir, COMITY_AGENT_NAME: agentName })) if (v !== undefined) env[k] = v;
  return env;
}

/** A Claude Code SessionStart, run as the command `init --http` writes for it: with the session's own environment. */
async function sessionStart(session: string): Promise<void> {
  const stdin = JSON.stringify({ session_id: session, transcript_path: `/tmp/${session}.jsonl`, cwd: repo, hook_event_name: "SessionStart", source: "startup" });
  const answer = await answerHookCall({ kind: "hook", build: "test", args: ["--tool", "claude_code", "--event", "SessionStart"], cwd: repo, env: envOf(session), stdin }, runtime);
  answer.after();
}

describe("the daemon's embedded store, kept open", () => {
  it("carries one event's intent to the next, and opens a store moved aside by another process anew", async () => {
    expect(await preEdit("alice", "a1")).toBeNull();
    expect(await preEdit("bob", "b1")).toContain("alice");
    // Another hook process found the store unusable and moved it aside: the next event starts from an empty store.
    const store = path.join(configDir, "coordination.sqlite");
    for (const suffix of ["", "-wal", "-shm"]) if (fs.existsSync(store + suffix)) fs.renameSync(store + suffix, `${store}.aside${suffix}`);
    expect(await preEdit("carol", "c1")).toBeNull();
    expect(fs.existsSync(store)).toBe(true);
    expect(await preEdit("dave", "d1")).toContain("carol");
  });

  it("answers an HTTP hook's event with the variables its session's last command recorded, never the daemon's", async () => {
    // Recorded only where `init --http` made the daemon's HTTP settings: without them, the session's state holds none.
    await sessionStart("alice");
    const states = () =>
      fs
        .readdirSync(path.join(configDir, "sessions"))
        .filter((f) => f.endsWith(".json"))
        .map((f) => JSON.parse(fs.readFileSync(path.join(configDir, "sessions", f), "utf8")) as { env?: unknown });
    expect(states().map((s) => s.env)).toEqual([undefined]);
    await ensureDaemonHttpConfig(configDir);
    await sessionStart("alice");
    expect(states().map((s) => s.env)).toEqual([{ COMITY_AGENT_NAME: "alice" }]);
    expect(await preEdit("alice", "a1", true)).toBeNull();
    const told = await preEdit("bob", "b1");
    expect(told).toContain('("alice"');
    expect(told).not.toContain("daemon");
  });

  it("answers a subagent's HTTP hook event with the variables its parent session recorded", async () => {
    await ensureDaemonHttpConfig(configDir);
    await sessionStart("alice");
    // (a subagent's own state starts empty: its events take the parent's variables)
    expect(await preEdit("alice", "a1", true, "helper")).toBeNull();
    const told = await preEdit("bob", "b1");
    expect(told).toContain('("alice"');
    expect(told).not.toContain("daemon");
  });

  it("answers an HTTP hook's event of a session whose variables were never recorded with none of them, not the daemon's", async () => {
    // (a session that started before this daemon's build: it goes by the machine's name until its next prompt)
    expect(await preEdit("carol", "c1", true)).toBeNull();
    const toDave = await preEdit("dave", "d1");
    expect(toDave).toContain(`("${os.hostname()}"`);
    expect(toDave).not.toContain('("daemon"');
  });
});
