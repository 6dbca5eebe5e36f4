import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { runBuiltCli, runBuiltCliAsync } from "../helpers/run-cli.js";

let sb: Sandbox;
let server: RecordingServer;
let root: string;
let home: string;
beforeEach(async () => {
  sb = createSandbox();
  home = sb.env["HOME"] as string;
  server = await startRecordingServer();
  // A stand-in of the API: health is open, sessions need the token "good".
  server.reply = (req) => {
    if (req.url === "/v1/health") return { body: { ok: true } };
    if (req.url === "/v1/sessions") return req.headers.authorization === "Bearer good" ? { body: { sessions: [] } } : { status: 401, body: { error: "unauthorized" } };
    return { status: 404, body: {} };
  };
  root = initRepo(sb, "proj");
  sb.git(root, "remote", "add", "origin", "git@github.com:acme/proj.git");
  fs.mkdirSync(path.join(home, ".claude"));
  fs.mkdirSync(path.join(home, ".codex"));
});
afterEach(async () => {
  await server.close();
  sb.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({ ...sb.env, COMITY_API_URL: server.url, COMITY_TOKEN: "good", COMITY_CONFIG_DIR: path.join(sb.dir, "cfg"), ...extra });
const doctor = (extra: Record<string, string> = {}, ...args: string[]) => runBuiltCliAsync(["doctor", ...args], { cwd: root, env: env(extra) });
const install = () => expect(runBuiltCli(["init", "--tool", "claude_code", "--tool", "codex"], { cwd: root, env: env() }).status).toBe(0);
type Report = { ok: boolean; checks: Array<{ id: string; status: string; detail: string }> };
const json = async (extra: Record<string, string> = {}) => {
  const r = await doctor(extra, "--json");
  return { status: r.status, report: JSON.parse(r.stdout) as Report };
};
const check = (rep: Report, id: string) => rep.checks.find((c) => c.id === id);

describe("comity doctor", () => {
  it("all green: hooks current, API answers and takes the token, config writable, repo with a remote", async () => {
    install();
    const { status, report } = await json();
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ["hooks.claude_code", "ok"],
      ["hooks.codex", "ok"],
      ["hooks.compozy", "skip"],
      ["hooks.copilot", "skip"],
      ["hooks.cursor", "skip"],
      ["hooks.omp", "skip"],
      ["mcp", "ok"],
      ["config_dir", "ok"],
      ["symbols_parser", "ok"],
      ["daemon", "ok"],
      ["hook_client", "ok"],
      ["api", "ok"],
      ["api.token", "ok"],
      ["repo:.", "ok"],
      ["hook_log", "ok"],
    ]);
    expect(report.ok).toBe(true);
    expect(status).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual(["/v1/health", "/v1/sessions"]);
    expect(check(report, "symbols_parser")?.detail).toContain("native");
    expect(check(report, "hook_client")?.detail).toMatch(/^native \(.*bin\/comity-hook\): command hooks reach the daemon without starting Node$/);
    expect(check(report, "symbols_parser")?.detail).toBe("native: files are parsed by Comity's native parser (built on this machine)");
    expect(check((await json({ COMITY_FLAT_PARSER: "wasm" })).report, "symbols_parser")).toMatchObject({
      status: "ok",
      detail: expect.stringContaining("web-tree-sitter, chosen by COMITY_FLAT_PARSER=wasm"),
    });
    const text = await doctor();
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("everything needed works");
    expect(text.stdout).not.toContain("\u001b["); // not a TTY: no colour
  });

  it("no API: the embedded store, made, opened and named; COMITY_API_URL=off: coordination off, said as a warning", async () => {
    install();
    const local = await json({ COMITY_API_URL: "", COMITY_TOKEN: "" });
    expect(check(local.report, "api")).toBeUndefined();
    expect(check(local.report, "coordination")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/embedded store .*coordination\.sqlite \(no server; policy first_contact; 0 active sessions\)/),
    });
    expect(local.status).toBe(0);
    const off = await json({ COMITY_API_URL: "off" });
    expect(check(off.report, "coordination")).toMatchObject({ status: "warn", detail: expect.stringContaining("COMITY_API_URL=off") });
    expect(server.requests).toEqual([]);
  });

  it("API down, token rejected, token missing: each a failure with exit 1", async () => {
    install();
    const down = await json({ COMITY_API_URL: "http://127.0.0.1:9" });
    expect(down.status).toBe(1);
    expect(check(down.report, "api")).toMatchObject({ status: "fail", detail: expect.stringContaining("does not answer") });
    const bad = await json({ COMITY_TOKEN: "wrong" });
    expect(bad.status).toBe(1);
    expect(check(bad.report, "api.token")).toMatchObject({ status: "fail", detail: "the API rejects COMITY_TOKEN (HTTP 401)" });
    const noToken = await json({ COMITY_TOKEN: "" });
    expect(check(noToken.report, "api.token")?.status).toBe("fail");
  });

  it("never prints the user name and password of an API URL", async () => {
    install();
    const withUser = server.url.replace("http://", "http://alice:s3cret@");
    for (const extra of [{ COMITY_API_URL: withUser }, { COMITY_API_URL: "http://alice:s3cret@127.0.0.1:9" }]) {
      const r = await doctor(extra);
      expect(r.stdout).toContain("http://***@127.0.0.1:");
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/alice|s3cret/);
    }
    const login = runBuiltCli(["login", "--url", "http://alice:s3cret@127.0.0.1:7373", "--token", "cmt_x"], { cwd: root, env: env() });
    expect(login.status).toBe(0);
    expect(login.stdout).toContain("saved http://***@127.0.0.1:7373 ");
    expect(login.stdout).not.toMatch(/alice|s3cret/);
    expect(login.stderr).toContain("stays in your shell's history");
    expect(login.stderr).toContain("--token-stdin");
    const piped = runBuiltCli(["login", "--url", "http://127.0.0.1:7373", "--token-stdin"], { cwd: root, env: env(), input: "cmt_x\n" });
    expect(piped.stderr).toBe("");
  });

  it("missing hooks: a host present without Comity's hooks fails; a host absent is skipped", async () => {
    fs.rmSync(path.join(home, ".codex"), { recursive: true });
    const { status, report } = await json();
    expect(status).toBe(1);
    expect(check(report, "hooks.claude_code")).toMatchObject({ status: "fail", detail: "not installed (run comity init)" });
    expect(check(report, "hooks.codex")?.status).toBe("skip");
    const text = await doctor();
    expect(text.stdout).toMatch(/FAIL {2}claude_code hooks +not installed/);
  });

  it("outdated hooks (written before ExitPlanMode) show update available until init runs again", async () => {
    const file = path.join(root, ".claude/settings.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(
      file,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash", hooks: [{ type: "command", command: "comity hook --tool claude_code --event PreToolUse", timeout: 5 }] }] },
      }),
    );
    const before = await json();
    expect(check(before.report, "hooks.claude_code")).toMatchObject({ status: "fail", detail: expect.stringContaining("update available") });
    install();
    expect(check((await json()).report, "hooks.claude_code")?.status).toBe("ok");
  });

  it("reports repos without a remote, an unwritable config folder and recent fail-open lines", async () => {
    // User-level hooks: found from any project.
    expect(runBuiltCli(["init", "--user", "--tool", "claude_code", "--tool", "codex"], { cwd: root, env: env() }).status).toBe(0);
    initRepo(sb, "proj/vendor/local");
    const cfg = path.join(sb.dir, "cfg");
    fs.mkdirSync(cfg, { recursive: true });
    const now = new Date().toISOString();
    fs.writeFileSync(
      path.join(cfg, "hook.log"),
      `2020-01-01T00:00:00.000Z\tfail-open\tclaude_code\tStop\told one\n${now}\tfail-open\tclaude_code\tPreToolUse\tno answer within 400 ms\n${now}\tfail-open\tcodex\tStop\tno answer within 1500 ms\n`,
    );
    const outside = await runBuiltCliAsync(["doctor", "--json", "."], { cwd: path.join(root, "vendor/local"), env: env() });
    const rep = JSON.parse(outside.stdout) as Report;
    expect(check(rep, "repo:.")).toMatchObject({ status: "warn", detail: expect.stringContaining("no remote") });
    expect(check(rep, "hook_log")).toMatchObject({ status: "warn", detail: expect.stringContaining("2 fail-open in the last 24 hours (2x no answer within 1500 ms); last: ") });
    // Every line is counted, each reason shown as written: the parts add up to the total.
    const more = ["HTTP 502", "HTTP 503", "stdin is not a JSON object", "empty stdin", "unknown --tool 'x'", "not in a git repo", "no repo with a remote"];
    fs.appendFileSync(path.join(cfg, "hook.log"), more.map((r) => `${now}\tfail-open\tclaude_code\tStop\t${r}\n`).join(""));
    const many = check(JSON.parse((await runBuiltCliAsync(["doctor", "--json", "."], { cwd: path.join(root, "vendor/local"), env: env() })).stdout) as Report, "hook_log")?.detail ?? "";
    expect(many).toMatch(/^9 fail-open in the last 24 hours \(2x HTTP 503; 2x no answer within 1500 ms; 1x empty stdin; 1x no repo with a remote; 3x for 3 other reasons\); last: /);
    expect(many).not.toMatch(/\bN\b/);
    expect(outside.status).toBe(0); // warnings alone need no fixing
    // A config folder that cannot be created (under a file: even root cannot).
    const ro = await json({ COMITY_CONFIG_DIR: path.join(cfg, "hook.log", "sub") });
    expect(check(ro.report, "config_dir")).toMatchObject({ status: "fail", detail: expect.stringContaining("is not writable (ENOTDIR)") });
    expect(ro.status).toBe(1);
  });
});
