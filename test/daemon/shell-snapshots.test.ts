import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nativeChangeWatch } from "../../src/daemon/native-change-watch.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";

// A shell command's snapshot pair in the daemon: a snapshot is reused while the change watch saw nothing under the
// repo, and never when something changed, whether by the command (its changes are the session's) or before it (they
// are not). The same session, played with the daemon and without, leaves the same files to the session.

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe.skipIf(nativeChangeWatch() === null)("a shell command's snapshots in the daemon", () => {
  it("are reused when nothing changed, and every change a command made is the session's, and no other", () => {
    const play = (config: string, daemon: boolean): { files: string[][]; reused: number } => {
      const env: NodeJS.ProcessEnv = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", config) };
      if (daemon) delete env["COMITY_DAEMON"];
      const repo = initRepo(sb, config);
      sb.write(`${config}/src/a.ts`, "export const a = 1;\n");
      sb.write(`${config}/src/b.ts`, "export const b = 1;\n");
      sb.git(repo, "add", "-A");
      sb.git(repo, "commit", "-q", "-m", "code");
      const hook = (event: string, extra: object) => {
        const r = runBuiltCli(["hook", "--tool", "claude_code", "--event", event], { cwd: repo, env, input: JSON.stringify({ session_id: "s1", cwd: repo, hook_event_name: event, ...extra }) });
        expect(r.status).toBe(0);
      };
      let n = 0;
      /** One shell command: its pre hook, what it does, its post hook. */
      const command = (does: () => void) => {
        const call = { tool_name: "Bash", tool_input: { command: "make" }, tool_use_id: `t${++n}` };
        hook("PreToolUse", call);
        does();
        hook("PostToolUse", call);
      };
      const files: string[][] = [];
      const sessionFiles = () => {
        const doc = JSON.parse(runBuiltCli(["status", "--json"], { cwd: repo, env }).stdout) as { sessions: Array<{ files: string[] }> };
        files.push([...(doc.sessions[0]?.files ?? [])].sort());
      };
      try {
        if (daemon) expect(runBuiltCli(["daemon", "start"], { cwd: repo, env }).status).toBe(0);
        hook("SessionStart", { source: "startup" });
        for (let i = 0; i < 3; i++) command(() => undefined); // watched from the first, kept from the second
        command(() => fs.writeFileSync(path.join(repo, "src/a.ts"), "export const a = 2;\n"));
        sessionFiles();
        command(() => undefined);
        command(() => sb.write(`${config}/x/y/z.ts`, "export const z = 1;\n")); // in folders the command made
        sessionFiles();
        // Someone else changes a file between two commands: not the session's.
        fs.writeFileSync(path.join(repo, "src/b.ts"), "export const b = 2;\n");
        command(() => undefined);
        sessionFiles();
        command(() => fs.rmSync(path.join(repo, "src/a.ts")));
        command(() => sb.git(repo, "add", "-A"));
        sessionFiles();
        const status = daemon ? (JSON.parse(runBuiltCli(["daemon", "status", "--json"], { cwd: repo, env }).stdout) as { snapshots: { reused: number } }) : null;
        return { files, reused: status?.snapshots.reused ?? 0 };
      } finally {
        if (daemon) runBuiltCli(["daemon", "stop"], { cwd: repo, env });
      }
    };
    const cold = play("cold", false);
    const warm = play("warm", true);
    expect(cold.files).toEqual([["src/a.ts"], ["src/a.ts", "x/y/z.ts"], ["src/a.ts", "x/y/z.ts"], ["src/a.ts", "x/y/z.ts"]]);
    expect(warm.files).toEqual(cold.files);
    expect(warm.reused).toBeGreaterThanOrEqual(4);
  }, 120_000);
});
