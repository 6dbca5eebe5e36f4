import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCli, runBuiltCliAsync } from "../helpers/run-cli.js";

// What a newcomer meets first: help, option errors, a typo in a hook's command, a workspace root that is gone.

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let configDir: string;
beforeEach(() => {
  sb = createSandbox();
  configDir = path.join(sb.dir, "..", "cfg");
  env = { ...sb.env, COMITY_CONFIG_DIR: configDir };
});
afterEach(() => sb.cleanup());

describe("what a newcomer trips over", () => {
  it("comity hook --help prints the hook's usage (tools, events, environment) and logs nothing", () => {
    for (const flag of ["--help", "-h"]) {
      const r = runBuiltCli(["hook", flag], { cwd: sb.dir, env });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^usage: comity hook --tool <claude_code\|codex\|cursor\|copilot\|omp\|compozy> --event <NativeEvent>/);
      expect(r.stdout).toContain("COMITY_API_URL");
      expect(r.stdout).toContain("UserPromptSubmit");
    }
    expect(readHookLog(configDir)).toEqual([]);
  });

  it("an unknown --tool fails open with a hook.log line naming it, and comity doctor flags the config that names it", async () => {
    const repo = repoWithRemote(sb, "api");
    const payload = JSON.stringify({ session_id: "s", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Edit", tool_input: { file_path: path.join(repo, "src/config.ts") } });
    const r = await runBuiltCliAsync(["hook", "--tool", "claud_code", "--event", "PreToolUse"], { cwd: repo, env, input: payload });
    expect(r).toMatchObject({ status: 0, stdout: "" });
    expect(readHookLog(configDir)).toEqual([expect.stringMatching(/\tfail-open\tclaud_code\tPreToolUse\tunknown --tool 'claud_code' \(known: claude_code, codex, cursor, copilot, omp, compozy\)/)]);

    expect(runBuiltCli(["init", "--tool", "claude_code"], { cwd: repo, env }).status).toBe(0);
    const settings = path.join(repo, ".claude/settings.json");
    fs.writeFileSync(settings, fs.readFileSync(settings, "utf8").replace("--tool claude_code --event PreToolUse", "--tool claud_code --event PreToolUse"));
    const doctor = JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: repo, env }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> };
    expect(doctor.checks.find((c) => c.id === "hooks.claude_code")).toMatchObject({ status: "fail", detail: expect.stringContaining("unknown --tool 'claud_code'") });
  });

  it("a mistyped command gets the nearest one, and comity --help points at status --web and init --each", () => {
    const typo = runBuiltCli(["statsu"], { cwd: sb.dir, env });
    expect(typo.status).toBe(2);
    expect(typo.stderr.split("\n")[0]).toBe("comity: unknown command 'statsu' (did you mean 'status'?)");
    expect(runBuiltCli(["analyse"], { cwd: sb.dir, env }).stderr.split("\n")[0]).toBe("comity: unknown command 'analyse' (did you mean 'analyze'?)");
    expect(runBuiltCli(["frobnicate"], { cwd: sb.dir, env }).stderr.split("\n")[0]).toBe("comity: unknown command 'frobnicate'");
    const help = runBuiltCli(["--help"], { cwd: sb.dir, env }).stdout;
    expect(help).toMatch(/status \[DIR\] \[--json \| --web\]/);
    expect(help).toMatch(/init .*--each/);
  });

  it("option errors are said in Comity's voice, with the command's usage, exit 2", () => {
    const cases: Array<[string[], string, string]> = [
      [["analyze", "--jsno"], "comity analyze: unknown option --jsno", "usage: comity analyze"],
      [["analyze", "--max-repos"], "comity analyze: option --max-repos needs a value", "usage: comity analyze"],
      [["doctor", "--json=yes"], "comity doctor: option --json takes no value", "usage: comity doctor"],
      [["status", "--verbose"], "comity status: unknown option --verbose", "usage: comity status"],
      [["serve", "token", "list", "--teem", "x"], "comity serve: unknown option --teem", "usage: comity serve"],
    ];
    for (const [args, first, usage] of cases) {
      const r = runBuiltCli(args, { cwd: sb.dir, env });
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr.split("\n")[0], args.join(" ")).toBe(first);
      expect(r.stderr, args.join(" ")).toContain(usage);
      expect(r.stderr).not.toMatch(/Unknown option|ERR_PARSE_ARGS|To specify a positional/);
    }
  });

  it("a Cursor multi-root workspace with a root that is gone: the other roots are briefed, the missing one is a hook.log line", async () => {
    const repo = repoWithRemote(sb, "api");
    const gone = path.join(sb.dir, "deleted-root");
    const payload = JSON.stringify({ conversation_id: "c1", generation_id: "g1", hook_event_name: "sessionStart", workspace_roots: [gone, repo], cursor_version: "1.7" });
    const r = await runBuiltCliAsync(["hook", "--tool", "cursor", "--event", "sessionStart"], { cwd: sb.dir, env: { ...env, COMITY_API_URL: "off" }, input: payload });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ additional_context: expect.stringContaining("- Working on main") });
    expect(readHookLog(configDir)).toEqual([expect.stringContaining(`workspace root ${gone} skipped`)]);
  });
});
