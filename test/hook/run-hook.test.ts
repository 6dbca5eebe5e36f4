import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHook } from "../../src/hook/run-hook.js";
import { readSessionState } from "../../src/hook/session-state.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
let repo: string;
let configDir: string;
beforeEach(() => {
  sb = createSandbox();
  repo = initRepo(sb, "app");
  commit(sb, repo, "src/config.ts", "export function parseConfig(path: string): object {\n  return { path };\n}\n");
  configDir = path.join(sb.dir, "comity-config");
});
afterEach(() => sb.cleanup());

const preEdit = (session: string) =>
  JSON.stringify({
    session_id: session,
    cwd: repo,
    hook_event_name: "PreToolUse",
    tool_name: "Edit",
    tool_input: { file_path: path.join(repo, "src/config.ts"), old_string: "path", new_string: "p" },
  });

describe("runHook", () => {
  it("leaves its session's state to the runtime's defer when it has one, and writes it itself otherwise", async () => {
    const env = { ...sb.env, COMITY_CONFIG_DIR: configDir };
    const later: (() => void)[] = [];
    const out = await runHook({ tool: "claude_code", event: "PreToolUse", stdin: preEdit("s-deferred"), env, cwd: repo, runtime: { defer: (work) => later.push(work) } });
    expect(out.failedOpen).toBeNull();
    // Answered, and nothing of the session written yet: the daemon runs this once the answer has gone.
    expect(later).toHaveLength(1);
    expect(readSessionState(configDir, "s-deferred").touched).toEqual({});
    for (const work of later) work();
    expect(readSessionState(configDir, "s-deferred").touched).toEqual({ [fs.realpathSync(repo)]: ["src/config.ts"] });

    await runHook({ tool: "claude_code", event: "PreToolUse", stdin: preEdit("s-inline"), env, cwd: repo });
    expect(readSessionState(configDir, "s-inline").touched).toEqual({ [fs.realpathSync(repo)]: ["src/config.ts"] });
  });
});
