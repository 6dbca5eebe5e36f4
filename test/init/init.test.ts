import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { comityHooks, CLAUDE_PRE_MATCHER, CODEX_MATCHER, isComityHookCommand, isComityHookEntry } from "../../src/init/host-configs.js";
import { hooksAreCurrent, mergeHooks } from "../../src/init/merge-hooks.js";
import { CODEX_MCP_ENV_VARS } from "../../src/init/mcp-configs.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { HOOK_CLIENT, hookClientProblem, runBuiltCli } from "../helpers/run-cli.js";

let sb: Sandbox;
let home: string;
let bin: string;
beforeEach(() => {
  sb = createSandbox();
  home = path.join(sb.dir, "home");
  bin = path.join(sb.dir, "bin");
  fs.mkdirSync(home);
  fs.mkdirSync(bin);
});
afterEach(() => sb.cleanup());

// PATH holds the fake binaries and a folder with only node and git in it: a real `comity` installed beside node (npm
// link, a global install) must not answer the "is comity on PATH" questions these tests ask.
const env = () => ({ ...process.env, HOME: home, PATH: `${bin}${path.delimiter}${toolsDir()}` });
function toolsDir(): string {
  const dir = path.join(sb.dir, "tools");
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir);
    fs.symlinkSync(process.execPath, path.join(dir, "node"));
    const git = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    if (git !== "") fs.symlinkSync(git, path.join(dir, "git"));
  }
  return dir;
}
const init = (cwd: string, ...args: string[]) => runBuiltCli(["init", ...args], { cwd, env: env() });
const readJson = (f: string) =>
  JSON.parse(fs.readFileSync(f, "utf8")) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string; timeout: number }> }>> } & Record<string, unknown>;
const fakeBinary = (name: string) => {
  fs.writeFileSync(path.join(bin, name), "#!/bin/sh\n", { mode: 0o755 });
};

describe("comity init: Claude Code and Codex", () => {
  it("fresh install: writes both files with the contract's matchers and timeouts", () => {
    const root = initRepo(sb, "proj");
    fs.mkdirSync(path.join(root, "src"));
    fakeBinary("claude");
    fakeBinary("codex");
    fakeBinary("comity");
    const r = init(path.join(root, "src"));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("hooks written (new file)");
    expect(r.stdout).toContain("/hooks"); // Codex's trust step is said
    expect(r.stdout).not.toContain("not on PATH");
    const claude = readJson(path.join(root, ".claude/settings.json"));
    expect(Object.keys(claude.hooks).sort()).toEqual(["PostToolUse", "PreToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]);
    expect(claude.hooks["PreToolUse"]).toEqual([{ matcher: CLAUDE_PRE_MATCHER, hooks: [{ type: "command", command: "comity hook --tool claude_code --event PreToolUse", timeout: 5 }] }]);
    expect(claude.hooks["PostToolUse"]?.[0]?.matcher).toBe("Edit|Write|MultiEdit|NotebookEdit|Bash");
    expect(claude.hooks["PostToolUse"]?.[0]?.hooks[0]?.timeout).toBe(10);
    expect(claude.hooks["SessionStart"]?.[0]).toEqual({ hooks: [{ type: "command", command: "comity hook --tool claude_code --event SessionStart", timeout: 5 }] });
    const codex = readJson(path.join(root, ".codex/hooks.json"));
    expect(Object.keys(codex.hooks).sort()).toEqual(["PostToolUse", "PreToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]);
    // Codex clamps a SessionEnd hook's timeout to 3 s (and warns at every start past it).
    expect(codex.hooks["SessionEnd"]?.[0]?.hooks[0]).toEqual({ type: "command", command: "comity hook --tool codex --event SessionEnd", timeout: 3 });
    expect(codex.hooks["PreToolUse"]?.[0]?.matcher).toBe("apply_patch|Edit|Write|Bash");
    expect(codex.hooks["Stop"]?.[0]?.hooks[0]?.command).toBe("comity hook --tool codex --event Stop");
  });

  it("merges into a settings file with other hooks and settings, keeps a backup, and a second run is a no-op", () => {
    const root = initRepo(sb, "proj");
    const file = path.join(root, ".claude/settings.json");
    fs.mkdirSync(path.dirname(file));
    const mine = {
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./audit.sh", timeout: 3 }] }],
        Notification: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
      },
    };
    fs.writeFileSync(file, JSON.stringify(mine, null, 4));
    const r = init(root, "--tool", "claude_code");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/backup in \/\S+\/\.claude\/settings\.json\.comity-\d{8}T\d{6}Z\.bak/);
    // A session already running read the file before: it is told to restart.
    expect(r.stdout).toContain("Claude Code sessions already running keep the hooks they started with: restart them");
    const backups = fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith(".bak"));
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(path.join(path.dirname(file), backups[0] as string), "utf8")).toBe(JSON.stringify(mine, null, 4));
    const merged = readJson(file);
    expect(merged["permissions"]).toEqual(mine.permissions);
    expect(merged.hooks["Notification"]).toEqual(mine.hooks.Notification);
    expect(merged.hooks["PreToolUse"]?.[0]).toEqual(mine.hooks.PreToolUse[0]);
    expect(merged.hooks["PreToolUse"]?.[1]?.matcher).toBe(CLAUDE_PRE_MATCHER);
    expect(fs.existsSync(path.join(root, ".codex"))).toBe(false);
    // The second run: nothing written, no new backup, same bytes.
    const bytes = fs.readFileSync(file, "utf8");
    const again = init(root, "--tool", "claude_code");
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(".claude/settings.json: up to date");
    expect(again.stdout).not.toContain("restart them");
    expect(fs.readFileSync(file, "utf8")).toBe(bytes);
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith(".bak"))).toHaveLength(1);
  });

  it("updates hooks written by an older Comity (no ExitPlanMode) in place of adding a second set", () => {
    const root = initRepo(sb, "proj");
    const file = path.join(root, ".claude/settings.json");
    fs.mkdirSync(path.dirname(file));
    const old = {
      hooks: {
        PreToolUse: [
          {
            matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash",
            hooks: [
              { type: "command", command: "npx comity hook --tool claude_code --event PreToolUse", timeout: 5 },
              { type: "command", command: "./lint.sh" },
            ],
          },
        ],
      },
    };
    fs.writeFileSync(file, JSON.stringify(old));
    expect(hooksAreCurrent(old, comityHooks("claude_code", "comity hook"))).toBe(false);
    expect(init(root, "--tool", "claude_code").status).toBe(0);
    const merged = readJson(file);
    const commands = Object.values(merged.hooks).flatMap((gs) => gs.flatMap((g) => g.hooks.map((h) => h.command)));
    expect(commands.filter((c) => c.includes("--event PreToolUse"))).toEqual(["comity hook --tool claude_code --event PreToolUse"]);
    expect(merged.hooks["PreToolUse"]?.[0]).toEqual({ matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash", hooks: [{ type: "command", command: "./lint.sh" }] });
    expect(hooksAreCurrent(merged, comityHooks("claude_code", "comity hook"))).toBe(true);
  });

  it("Cursor: flat entries under its own event names, one evaluation per tool call, version kept, idempotent", () => {
    const root = initRepo(sb, "proj");
    const file = path.join(root, ".cursor/hooks.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: "./format.sh" }] } }));
    expect(init(root).status).toBe(0); // detected by its folder
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as { version: number; hooks: Record<string, Array<Record<string, unknown>>> };
    expect(doc.version).toBe(1);
    expect(Object.keys(doc.hooks).sort()).toEqual(["afterFileEdit", "afterShellExecution", "beforeShellExecution", "beforeSubmitPrompt", "preToolUse", "sessionEnd", "sessionStart", "stop"]);
    expect(doc.hooks["afterFileEdit"]).toEqual([{ command: "./format.sh" }, { type: "command", command: "comity hook --tool cursor --event afterFileEdit", timeout: 10 }]);
    expect(doc.hooks["preToolUse"]).toEqual([{ type: "command", command: "comity hook --tool cursor --event preToolUse", timeout: 5, matcher: "Write|Delete" }]);
    expect(doc.hooks["postToolUse"]).toBeUndefined();
    const bytes = fs.readFileSync(file, "utf8");
    expect(init(root, "--tool", "cursor").stdout).toContain("up to date");
    expect(fs.readFileSync(file, "utf8")).toBe(bytes);
    const fresh = initRepo(sb, "fresh");
    expect(init(fresh, "--tool", "cursor").status).toBe(0);
    expect((JSON.parse(fs.readFileSync(path.join(fresh, ".cursor/hooks.json"), "utf8")) as { version: number }).version).toBe(1);
  });

  it("Copilot CLI: a file of Comity's own in .github/hooks, both shells, idempotent, and doctor sees it", () => {
    const root = initRepo(sb, "proj");
    fs.mkdirSync(path.join(root, ".github/hooks"), { recursive: true });
    fs.writeFileSync(path.join(root, ".github/hooks/lint.json"), JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "./lint.sh" }] } }));
    expect(init(root).status).toBe(0); // detected by .github/hooks
    const file = path.join(root, ".github/hooks/comity.json");
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as { version: number; hooks: Record<string, unknown[]> };
    expect(doc.version).toBe(1);
    expect(Object.keys(doc.hooks).sort()).toEqual(["agentStop", "postToolUse", "preToolUse", "sessionEnd", "sessionStart", "userPromptSubmitted"]);
    expect(doc.hooks["preToolUse"]).toEqual([{ type: "command", bash: "comity hook --tool copilot --event preToolUse", powershell: "comity hook --tool copilot --event preToolUse", timeoutSec: 5 }]);
    expect(JSON.parse(fs.readFileSync(path.join(root, ".github/hooks/lint.json"), "utf8"))).toEqual({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "./lint.sh" }] } });
    const bytes = fs.readFileSync(file, "utf8");
    expect(init(root, "--tool", "copilot").stdout).toContain("up to date");
    expect(fs.readFileSync(file, "utf8")).toBe(bytes);
    const doctor = runBuiltCli(["doctor", "--json"], { cwd: root, env: { ...env(), COMITY_API_URL: "" } });
    expect((JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string }> }).checks.find((c) => c.id === "hooks.copilot")?.status).toBe("ok");
  });

  it("Copilot CLI with --user: a file of Comity's own in ~/.copilot/hooks, which doctor counts in any repo", () => {
    const root = initRepo(sb, "proj");
    const r = init(root, "--tool", "copilot", "--user");
    expect(r.status).toBe(0);
    const file = path.join(home, ".copilot/hooks/comity.json");
    expect(r.stdout).toContain(`${file}: hooks written (new file)`);
    const doc = JSON.parse(fs.readFileSync(file, "utf8")) as { version: number; hooks: Record<string, unknown[]> };
    expect(doc.version).toBe(1);
    expect(doc.hooks["preToolUse"]).toEqual([{ type: "command", bash: "comity hook --tool copilot --event preToolUse", powershell: "comity hook --tool copilot --event preToolUse", timeoutSec: 5 }]);
    expect(fs.existsSync(path.join(root, ".github/hooks/comity.json"))).toBe(false);
    const doctor = runBuiltCli(["doctor", "--json"], { cwd: root, env: { ...env(), COMITY_API_URL: "" } });
    expect((JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string }> }).checks.find((c) => c.id === "hooks.copilot")?.status).toBe("ok");
  });

  it("omp: installs the extension in .omp/extensions, idempotent, and doctor tells current from outdated", () => {
    const root = initRepo(sb, "proj");
    expect(init(root, "--tool", "omp").stdout).toContain(".omp/extensions/comity.ts: hooks written (new file)");
    const file = path.join(root, ".omp/extensions/comity.ts");
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain('const COMMAND: string[] = ["comity","hook"];');
    expect(text).toContain('"session_start","before_agent_start","tool_call","tool_result","session_stop","session_shutdown"');
    expect(init(root, "--tool", "omp").stdout).toContain("up to date");
    // Comity's MCP server, in omp's own MCP config.
    expect(JSON.parse(fs.readFileSync(path.join(root, ".omp/mcp.json"), "utf8"))).toEqual({ mcpServers: { comity: { command: "comity", args: ["mcp", "--host", "omp"] } } });
    const doctorOmp = () =>
      (JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: root, env: { ...env(), COMITY_API_URL: "" } }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks.find(
        (c) => c.id === "hooks.omp",
      );
    expect(doctorOmp()?.status).toBe("ok");
    fs.writeFileSync(file, text.replace("600", "900"));
    expect(doctorOmp()?.detail).toContain("update available");
    expect(init(root, "--tool", "omp", "--user").stdout).toContain("installed per project");
  });

  it("CompozyOS: sync [[hooks.declarations]] between markers in .compozy/config.toml, the user's TOML kept byte for byte", () => {
    const root = initRepo(sb, "proj");
    const file = path.join(root, ".compozy/config.toml");
    fs.mkdirSync(path.dirname(file));
    const mine = '# my settings\n[defaults]\nagent = "coder" # the usual\n\n[[hooks.declarations]]\nname = "audit"\nevent = "tool.post_call"\ncommand = "./audit"\n';
    fs.writeFileSync(file, mine);
    expect(init(root).status).toBe(0); // detected by .compozy/
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith(mine)).toBe(true);
    const doc = parseToml(text) as { hooks: { declarations: Array<Record<string, unknown>> } };
    const ours = doc.hooks.declarations.filter((d) => String(d["name"]).startsWith("comity-"));
    expect(ours.map((d) => [d["event"], d["mode"], d["timeout"], d["command"], (d["args"] as string[]).join(" ")])).toEqual([
      ["session.post_create", "sync", "5s", "comity", "hook --tool compozy --event session.post_create"],
      ["input.pre_submit", "sync", "5s", "comity", "hook --tool compozy --event input.pre_submit"],
      ["tool.pre_call", "sync", "5s", "comity", "hook --tool compozy --event tool.pre_call"],
      ["tool.post_call", "sync", "10s", "comity", "hook --tool compozy --event tool.post_call"],
      ["session.pre_stop", "sync", "10s", "comity", "hook --tool compozy --event session.pre_stop"],
      ["session.post_stop", "sync", "10s", "comity", "hook --tool compozy --event session.post_stop"],
    ]);
    expect(doc.hooks.declarations[0]?.["name"]).toBe("audit");
    expect(init(root, "--tool", "compozy").stdout).toContain("up to date");
    const doctor = () =>
      (JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: root, env: { ...env(), COMITY_API_URL: "" } }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks.find(
        (c) => c.id === "hooks.compozy",
      );
    expect(doctor()?.status).toBe("ok");
    // Another command: the block is replaced in place, not added twice.
    expect(init(root, "--tool", "compozy", "--command", "/opt/bin/comity").status).toBe(0);
    const again = fs.readFileSync(file, "utf8");
    expect(again.split("# >>> comity hooks").length).toBe(2);
    expect(again).toContain('command = "/opt/bin/comity"');
    expect(doctor()?.status).toBe("ok");
    fs.writeFileSync(file, again.replace('timeout = "10s"', 'timeout = "3s"'));
    expect(doctor()?.detail).toContain("update available");
    fs.writeFileSync(file, "[defaults\n");
    const bad = init(root, "--tool", "compozy");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("is not valid TOML (left as it is)");
    expect(fs.readFileSync(file, "utf8")).toBe("[defaults\n");
  });

  it("--dry-run prints the diff and writes nothing", () => {
    const root = initRepo(sb, "proj");
    const r = init(root, "--tool", "claude_code", "--tool", "codex", "--dry-run");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\+\+\+ \/\S+\/\.claude\/settings\.json/);
    expect(r.stdout).toMatch(/\+\+\+ \/\S+\/\.codex\/hooks\.json/);
    expect(r.stdout).toContain('+        "matcher": "Edit|Write|MultiEdit|NotebookEdit|Bash|ExitPlanMode"');
    expect(fs.existsSync(path.join(root, ".claude"))).toBe(false);
    expect(fs.existsSync(path.join(root, ".codex"))).toBe(false);
  });

  it("--user writes the user's files; detection by config folder; no host found is exit 1", () => {
    const root = initRepo(sb, "proj");
    expect(init(root).status).toBe(1);
    fs.mkdirSync(path.join(home, ".codex"));
    const r = init(root, "--user");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`${path.join(home, ".codex/hooks.json")}: hooks written`);
    expect(r.stdout).toContain("not on PATH"); // no comity binary in this PATH
    expect(readJson(path.join(home, ".codex/hooks.json")).hooks["PreToolUse"]?.[0]?.matcher).toBe(CODEX_MATCHER);
    expect(fs.existsSync(path.join(home, ".claude"))).toBe(false);
    expect(fs.existsSync(path.join(root, ".codex"))).toBe(false);
  });

  it("leaves a file that is not JSON or has an odd shape as it is, with a message and exit 1", () => {
    const root = initRepo(sb, "proj");
    fs.mkdirSync(path.join(root, ".claude"));
    fs.writeFileSync(path.join(root, ".claude/settings.json"), "{ // comment\n}");
    fs.mkdirSync(path.join(root, ".codex"));
    fs.writeFileSync(path.join(root, ".codex/hooks.json"), JSON.stringify({ hooks: { PreToolUse: "nope" } }));
    const r = init(root, "--tool", "claude_code", "--tool", "codex");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("is not valid JSON (left as it is)");
    expect(r.stderr).toContain('"hooks.PreToolUse" is not a list');
    expect(fs.readFileSync(path.join(root, ".claude/settings.json"), "utf8")).toBe("{ // comment\n}");
    expect(init(root, "--tool", "pi").stderr).toContain("not supported by this version");
  });
});

describe("comity init with the native hook client on PATH", () => {
  it.skipIf(hookClientProblem() !== null)("every host's hooks run comity-hook, doctor counts them current, and the exact command init wrote answers through the daemon", async () => {
    const root = initRepo(sb, "proj");
    for (const d of [".codex", ".cursor", ".github/hooks", ".compozy"]) fs.mkdirSync(path.join(root, d), { recursive: true });
    fakeBinary("claude");
    fakeBinary("comity");
    // As a global install links it: a symlink to the package's bin/comity-hook.
    fs.symlinkSync(HOOK_CLIENT, path.join(bin, "comity-hook"));
    const config = path.join(sb.dir, "cfg");
    const hookEnv: NodeJS.ProcessEnv = { ...env(), COMITY_CONFIG_DIR: config };
    delete hookEnv["COMITY_DAEMON"];
    expect(init(root, "--tool", "claude_code", "--tool", "codex", "--tool", "cursor", "--tool", "copilot", "--tool", "compozy", "--tool", "omp").status).toBe(0);
    const codex = readJson(path.join(root, ".codex/hooks.json"));
    expect(codex.hooks["PreToolUse"]?.[0]?.hooks[0]?.command).toBe("comity-hook --tool codex --event PreToolUse");
    expect(readJson(path.join(root, ".claude/settings.json")).hooks["Stop"]?.[0]?.hooks[0]?.command).toBe("comity-hook --tool claude_code --event Stop");
    expect(fs.readFileSync(path.join(root, ".cursor/hooks.json"), "utf8")).toContain('"command": "comity-hook --tool cursor --event preToolUse"');
    expect(fs.readFileSync(path.join(root, ".github/hooks/comity.json"), "utf8")).toContain('"bash": "comity-hook --tool copilot --event preToolUse"');
    const toml = parseToml(fs.readFileSync(path.join(root, ".compozy/config.toml"), "utf8")) as { hooks: { declarations: Array<Record<string, unknown>> } };
    expect(toml.hooks.declarations[0]).toMatchObject({ command: "comity-hook", args: ["--tool", "compozy", "--event", "session.post_create"] });
    expect(fs.readFileSync(path.join(root, ".omp/extensions/comity.ts"), "utf8")).toContain('const COMMAND: string[] = ["comity-hook"];');
    expect(init(root, "--tool", "claude_code", "--tool", "codex", "--tool", "cursor", "--tool", "copilot", "--tool", "compozy", "--tool", "omp").stdout).not.toContain("hooks written");
    const checks = (JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: root, env: { ...hookEnv, COMITY_API_URL: "" } }).stdout) as { checks: Array<{ id: string; status: string }> }).checks;
    for (const host of ["claude_code", "codex", "cursor", "copilot", "compozy", "omp"]) expect(checks.find((c) => c.id === `hooks.${host}`)?.status, host).toBe("ok");

    // The command as Codex runs it (a shell, the event on stdin), with the daemon running: it answers the event.
    try {
      expect(runBuiltCli(["daemon", "start"], { cwd: root, env: hookEnv }).status).toBe(0);
      const command = codex.hooks["SessionStart"]?.[0]?.hooks[0]?.command ?? "";
      const r = execFileSync("/bin/sh", ["-c", command], {
        cwd: root,
        env: hookEnv,
        input: JSON.stringify({ session_id: "s", cwd: root, hook_event_name: "SessionStart", source: "startup" }),
        encoding: "utf8",
      });
      expect(r).toContain("## proj");
      expect(runBuiltCli(["daemon", "status"], { cwd: root, env: hookEnv }).stdout).toMatch(/1 hook events answered/);
    } finally {
      runBuiltCli(["daemon", "stop"], { cwd: root, env: hookEnv });
      for (let i = 0; i < 100 && fs.existsSync(path.join(config, "daemon.sock.pid")); i++) await new Promise((res) => setTimeout(res, 30));
    }
  });
});

describe("comity init --http: Claude Code's tool calls posted to the daemon", () => {
  it("writes HTTP hooks to the user's own settings.local.json, commands where the daemon must be started, and the daemon answers them", async () => {
    const root = initRepo(sb, "proj");
    fakeBinary("comity");
    const config = path.join(sb.dir, "cfg");
    const daemonEnv: NodeJS.ProcessEnv = { ...process.env, ...env(), COMITY_CONFIG_DIR: config };
    delete daemonEnv["COMITY_DAEMON"];
    const run = (...args: string[]) => runBuiltCli(["init", "--tool", "claude_code", ...args], { cwd: root, env: daemonEnv });
    try {
      const r = run("--http");
      expect(r.status).toBe(0);
      const file = path.join(root, ".claude/settings.local.json");
      expect(r.stdout).toContain(`${file}: hooks written (new file)`);
      expect(fs.existsSync(path.join(root, ".claude/settings.json"))).toBe(false);
      const { port, secret } = JSON.parse(fs.readFileSync(path.join(config, "daemon-http.json"), "utf8")) as { port: number; secret: string };
      expect(r.stdout).toContain(`posted to the daemon on 127.0.0.1:${port}`);
      const hooks = (JSON.parse(fs.readFileSync(file, "utf8")) as { hooks: Record<string, Array<{ hooks: Array<Record<string, unknown>> }>> }).hooks;
      for (const event of ["PreToolUse", "PostToolUse", "Stop"]) {
        const h = hooks[event]?.[0]?.hooks[0];
        expect(h?.["type"]).toBe("http");
        expect(h?.["url"]).toBe(`http://127.0.0.1:${port}/v1/hook/claude_code/${event}`);
        expect(h?.["headers"]).toMatchObject({ Authorization: `Bearer ${secret}` });
      }
      for (const event of ["SessionStart", "UserPromptSubmit", "SessionEnd"]) expect(hooks[event]?.[0]?.hooks[0]?.["command"]).toBe(`comity hook --tool claude_code --event ${event}`);
      expect(hooks["PreToolUse"]?.[0]).toMatchObject({ matcher: CLAUDE_PRE_MATCHER });
      expect(run("--http").stdout).toContain(`${file}: up to date`);
      const doctorSays = () =>
        (JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: root, env: daemonEnv }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks.find(
          (c) => c.id === "hooks.claude_code",
        );
      expect(doctorSays()).toMatchObject({ status: "ok", detail: `installed and current in ${file} (tool calls posted to the daemon over HTTP)` });

      // The daemon it started answers the hook as Claude Code posts it.
      let answered: Response | null = null;
      for (let i = 0; i < 100 && answered === null; i++) {
        answered = await fetch(`http://127.0.0.1:${port}/v1/hook/claude_code/Stop`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}` },
          body: JSON.stringify({ session_id: "s1", cwd: root, hook_event_name: "Stop" }),
        }).catch(() => null);
        if (answered === null) await new Promise((res) => setTimeout(res, 50));
      }
      expect(answered?.status).toBe(200);

      // Commands again without --http: the HTTP entries are Comity's and go; a shared file that holds commands is named.
      const plain = run();
      expect(plain.status).toBe(0);
      expect(readJson(path.join(root, ".claude/settings.json")).hooks["PreToolUse"]?.[0]?.hooks[0]?.command).toBe("comity hook --tool claude_code --event PreToolUse");
      expect(run("--http").stdout).toContain(`${path.join(root, ".claude/settings.json")} holds Comity's command hooks too`);
      expect(doctorSays()).toMatchObject({ status: "warn", detail: expect.stringContaining("Claude Code runs both") });
    } finally {
      runBuiltCli(["daemon", "stop"], { cwd: root, env: daemonEnv });
      // It ends after its answer; the sandbox goes once it no longer writes in its config folder.
      for (let i = 0; i < 100 && fs.existsSync(path.join(config, "daemon.sock.pid")); i++) await new Promise((res) => setTimeout(res, 30));
    }
  });

  it("is refused for hosts that only run commands, and where the daemon is off", () => {
    const root = initRepo(sb, "proj");
    expect(init(root, "--tool", "codex", "--http").status).toBe(2);
    const off = init(root, "--tool", "claude_code", "--http");
    expect(off.status).toBe(1);
    expect(off.stderr).toContain("--http needs the daemon");
  });
});

describe("mergeHooks (pure)", () => {
  const jsonValue = fc.jsonValue({ maxDepth: 3 });
  const hookEntry = fc.oneof(
    fc.record({ type: fc.constant("command"), command: fc.constantFrom("./a.sh", "comity hook --tool claude_code --event Stop", "/usr/bin/comity hook --tool x", "echo comity"), timeout: fc.nat(20) }),
    jsonValue,
  );
  const settings = fc.record({
    other: jsonValue,
    hooks: fc.dictionary(
      fc.constantFrom("PreToolUse", "PostToolUse", "Stop", "Notification", "SessionStart"),
      fc.array(fc.record({ matcher: fc.constantFrom("Bash", "Edit"), hooks: fc.array(hookEntry, { maxLength: 3 }) }), { maxLength: 3 }),
    ),
  });

  it("is idempotent, keeps every non-Comity hook, and holds exactly one Comity set", () => {
    fc.assert(
      fc.property(settings, (s) => {
        const wanted = comityHooks("claude_code", "comity hook");
        const once = mergeHooks(s, wanted);
        expect(mergeHooks(once, wanted)).toEqual(once);
        expect(once["other"]).toEqual(s.other);
        const all = (doc: unknown) => Object.values((doc as { hooks: Record<string, Array<{ hooks: unknown[] }>> }).hooks).flatMap((gs) => gs.flatMap((g) => g.hooks));
        const notOurs = (doc: unknown) => all(doc).filter((h) => !(h !== null && typeof h === "object" && isComityHookCommand((h as { command?: unknown }).command)));
        expect(notOurs(once)).toHaveLength(notOurs(s).length);
        expect(all(once).filter((h) => h !== null && typeof h === "object" && isComityHookCommand((h as { command?: unknown }).command))).toHaveLength(6);
      }),
    );
  });

  it("recognises Comity's hook commands and nothing else", () => {
    for (const c of [
      "comity hook --tool codex --event Stop",
      "npx comity hook",
      "/opt/bin/comity hook --x",
      '"C:\\bin\\comity.cmd" hook --tool codex',
      "comity-hook --tool codex",
      "/usr/bin/comity-hook",
    ])
      expect(isComityHookCommand(c)).toBe(true);
    for (const c of ["./comity-hook.sh", "echo comity", "comity analyze", "mycomity hook", 3, null]) expect(isComityHookCommand(c)).toBe(false);
    expect(isComityHookCommand("/usr/lib/node_modules/comity/bin/comity.cjs hook --tool codex")).toBe(true);
    expect(isComityHookEntry({ type: "http", url: "http://127.0.0.1:21000/v1/hook/claude_code/PreToolUse" })).toBe(true);
    expect(isComityHookEntry({ type: "command", command: "comity hook --tool claude_code" })).toBe(true);
    for (const e of [{ type: "http", url: "https://hooks.example.com/v1/hook/x" }, { type: "http", url: "http://127.0.0.1:3000/audit" }, null]) expect(isComityHookEntry(e)).toBe(false);
  });
});

describe("comity init in a folder that holds repos but is not one", () => {
  it("writes each repo's config by default and says how to choose otherwise; init && doctor passes there", () => {
    const work = path.join(sb.dir, "work");
    const a = initRepo(sb, "work/a");
    const b = initRepo(sb, "work/b");
    fakeBinary("comity");
    const bare = init(work, "--tool", "claude_code");
    expect(bare.status).toBe(0);
    expect(bare.stderr).toContain(`comity init: ${work} is not a git repo; it holds 2 (a, b): writing each repo's own config`);
    expect(bare.stderr).toContain("comity init --here");
    expect(bare.stdout.trim().split("\n")).toEqual([
      `${path.join(a, ".claude/settings.json")}: hooks written (new file)`,
      `${path.join(a, ".mcp.json")}: Comity's MCP server written (new file)`,
      `${path.join(b, ".claude/settings.json")}: hooks written (new file)`,
      `${path.join(b, ".mcp.json")}: Comity's MCP server written (new file)`,
    ]);
    expect(fs.existsSync(path.join(work, ".claude"))).toBe(false);
    // The newcomer's next command, in the same folder: every repo's hooks are current.
    const doctor = runBuiltCli(["doctor", "--json"], { cwd: work, env: env() });
    const check = (JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks.find((c) => c.id === "hooks.claude_code");
    expect(check).toMatchObject({ status: "ok", detail: `installed and current in each of the 2 repos under ${work}` });
    expect(doctor.status).toBe(0);
    // One repo without them: doctor in the folder names it.
    fs.rmSync(path.join(b, ".claude/settings.json"));
    const missing = JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: work, env: env() }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> };
    expect(missing.checks.find((c) => c.id === "hooks.claude_code")).toMatchObject({ status: "fail", detail: expect.stringContaining(`1 of 2 repos under ${work} need it (b)`) });
  });

  it("writes where asked (this folder, each repo), with full paths, and doctor in a repo says where hooks were found that its host does not load", () => {
    const work = path.join(sb.dir, "work");
    const a = initRepo(sb, "work/a");
    const b = initRepo(sb, "work/b");
    fakeBinary("comity");
    const here = init(work, "--tool", "claude_code", "--here");
    expect(here.stdout).toBe(`${path.join(work, ".claude/settings.json")}: hooks written (new file)\n${path.join(work, ".mcp.json")}: Comity's MCP server written (new file)\n`);
    const doctor = JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: a, env: env() }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> };
    expect(doctor.checks.find((c) => c.id === "hooks.claude_code")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`Comity's hooks are in ${path.join(work, ".claude/settings.json")}, which claude_code does not load for ${a}`),
    });

    const each = init(work, "--tool", "claude_code", "--each");
    expect(each.status).toBe(0);
    expect(each.stderr).toBe("");
    expect(each.stdout.trim().split("\n")).toEqual([
      `${path.join(a, ".claude/settings.json")}: hooks written (new file)`,
      `${path.join(a, ".mcp.json")}: Comity's MCP server written (new file)`,
      `${path.join(b, ".claude/settings.json")}: hooks written (new file)`,
      `${path.join(b, ".mcp.json")}: Comity's MCP server written (new file)`,
    ]);
    const after = JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: path.join(b), env: env() }).stdout) as { checks: Array<{ id: string; status: string }> };
    expect(after.checks.find((c) => c.id === "hooks.claude_code")?.status).toBe("ok");
    expect(init(work, "--user", "--each").status).toBe(2);
  });
});

describe("comity init: Comity's MCP server in each host's MCP config", () => {
  it("writes .mcp.json (approved in the project's settings), Cursor's and Codex's configs, merged with what is there, idempotent", () => {
    const root = initRepo(sb, "proj");
    fakeBinary("comity");
    fs.writeFileSync(path.join(root, ".mcp.json"), `${JSON.stringify({ mcpServers: { db: { command: "db-mcp" } } }, null, 2)}\n`);
    fs.mkdirSync(path.join(root, ".codex"));
    fs.writeFileSync(path.join(root, ".codex/config.toml"), 'model = "o4"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n');
    const r = init(root, "--tool", "claude_code", "--tool", "cursor", "--tool", "codex");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${path.join(root, ".mcp.json")}: Comity's MCP server written, backup in`);
    expect(readJson(path.join(root, ".mcp.json")).mcpServers).toEqual({ db: { command: "db-mcp" }, comity: { command: "comity", args: ["mcp", "--host", "claude_code"] } });
    expect(readJson(path.join(root, ".claude/settings.json"))["enabledMcpjsonServers"]).toEqual(["comity"]);
    expect(readJson(path.join(root, ".cursor/mcp.json")).mcpServers).toEqual({ comity: { command: "comity", args: ["mcp", "--host", "cursor"] } });
    const toml = fs.readFileSync(path.join(root, ".codex/config.toml"), "utf8");
    expect(toml.startsWith('model = "o4"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n')).toBe(true);
    expect(parseToml(toml)).toEqual({ model: "o4", mcp_servers: { db: { command: "db-mcp" }, comity: { command: "comity", args: ["mcp", "--host", "codex"], env_vars: [...CODEX_MCP_ENV_VARS] } } });
    // Codex passes an MCP server a short list of its environment: the server is handed where the hooks coordinate.
    expect(CODEX_MCP_ENV_VARS).toEqual(expect.arrayContaining(["COMITY_API_URL", "COMITY_TOKEN", "COMITY_CONFIG_DIR", "COMITY_AGENT_NAME"]));
    // A second run changes nothing.
    const again = init(root, "--tool", "claude_code", "--tool", "cursor", "--tool", "codex");
    expect(again.stdout).not.toContain("written");
    expect(fs.readFileSync(path.join(root, ".codex/config.toml"), "utf8")).toBe(toml);
    // doctor sees it for each host; without the approval, or without the entry, it says what to run.
    const mcpCheck = () =>
      (JSON.parse(runBuiltCli(["doctor", "--json"], { cwd: root, env: env() }).stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks.find((c) => c.id === "mcp");
    expect(mcpCheck()).toMatchObject({ status: "ok", detail: expect.stringContaining(`claude_code (${path.join(root, ".mcp.json")})`) });
    const settings = readJson(path.join(root, ".claude/settings.json"));
    fs.writeFileSync(path.join(root, ".claude/settings.json"), JSON.stringify({ ...settings, enabledMcpjsonServers: [] }));
    expect(mcpCheck()).toMatchObject({ status: "warn", detail: expect.stringContaining("no settings approve it") });
    fs.writeFileSync(path.join(root, ".claude/settings.json"), JSON.stringify(settings));
    fs.writeFileSync(path.join(root, ".cursor/mcp.json"), "{}");
    expect(mcpCheck()).toMatchObject({ status: "warn", detail: expect.stringMatching(/^cursor has Comity's hooks but not its MCP server: run comity init/) });
  });

  it("with the native hook client, the server is still `comity mcp`; --user writes Copilot CLI's and Claude Code's user files", () => {
    const root = initRepo(sb, "proj");
    fakeBinary("comity");
    fakeBinary("comity-hook");
    fs.writeFileSync(path.join(home, ".claude.json"), `${JSON.stringify({ numStartups: 3, projects: {} })}\n`);
    const r = init(root, "--tool", "claude_code", "--tool", "copilot", "--user");
    expect(r.status, r.stderr).toBe(0);
    expect(readJson(path.join(home, ".claude.json"))).toEqual({ numStartups: 3, projects: {}, mcpServers: { comity: { command: "comity", args: ["mcp", "--host", "claude_code"] } } });
    expect(readJson(path.join(home, ".copilot/mcp-config.json")).mcpServers).toEqual({ comity: { type: "local", command: "comity", args: ["mcp", "--host", "copilot"], tools: ["*"] } });
    // A project's Copilot CLI takes no MCP config: said, not written.
    const project = init(root, "--tool", "copilot");
    expect(project.stdout).toContain("~/.copilot/mcp-config.json");
  });

  it("leaves a config it cannot merge as it is, and says so", () => {
    const root = initRepo(sb, "proj");
    fakeBinary("comity");
    fs.mkdirSync(path.join(root, ".codex"));
    fs.writeFileSync(path.join(root, ".codex/config.toml"), '[mcp_servers.comity]\ncommand = "my-own"\n');
    fs.writeFileSync(path.join(root, ".mcp.json"), "[1, 2]\n");
    const r = init(root, "--tool", "claude_code", "--tool", "codex");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("declares an MCP server named comity of its own");
    expect(r.stderr).toContain("its top level is not an object");
    expect(fs.readFileSync(path.join(root, ".mcp.json"), "utf8")).toBe("[1, 2]\n");
  });
});
