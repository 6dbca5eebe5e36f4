import { describe, expect, it } from "vitest";
import { claudeManagedSettingsPath, claudePolicyCheck, urlMatches } from "../../src/doctor/claude-policy.js";
import { claudeHttpHooks, ENV_HEADER, envHeaderTemplate, HTTP_HOOK_ENV } from "../../src/daemon/daemon-http.js";
import { comityHooks } from "../../src/init/host-configs.js";

// What Claude Code's own settings let Comity's hooks do, read as an administrator or a user may have set them.

const managed = "/etc/claude-code/managed-settings.json";
const http = { hooks: comityHooks("claude_code", "comity-hook", claudeHttpHooks({ port: 24123, secret: "a".repeat(64) })) };
const command = { hooks: comityHooks("claude_code", "comity-hook") };
const local = (doc: unknown) => [{ file: "/repo/.claude/settings.local.json", doc }];

describe("Claude Code's settings and Comity's hooks", () => {
  it("says nothing where no setting concerns them", () => {
    expect(claudePolicyCheck({ file: managed, doc: null }, local(command))).toBeNull();
    expect(claudePolicyCheck({ file: managed, doc: { allowedHttpHookUrls: [] } }, local(command))).toBeNull();
  });

  it("fails where every hook is off, or only the administrator's run", () => {
    expect(claudePolicyCheck({ file: managed, doc: null }, [{ file: "/home/u/.claude/settings.json", doc: { disableAllHooks: true } }])).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("disableAllHooks is set in /home/u/.claude/settings.json"),
    });
    expect(claudePolicyCheck({ file: managed, doc: { allowManagedHooksOnly: true } }, local(command))).toMatchObject({ status: "fail", detail: expect.stringContaining("allowManagedHooksOnly") });
  });

  it("fails where the http hooks' URL matches no allowed pattern, and passes where one matches", () => {
    expect(claudePolicyCheck({ file: managed, doc: { allowedHttpHookUrls: ["https://hooks.example.com/*"] } }, local(http))).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^http:\/\/127\.0\.0\.1:24123\/v1\/hook\/claude_code\/\w+ \(in \/repo\/\.claude\/settings\.local\.json\) matches no pattern of allowedHttpHookUrls/),
    });
    expect(claudePolicyCheck({ file: managed, doc: { allowedHttpHookUrls: ["http://127.0.0.1:*"] } }, local(http))).toMatchObject({ status: "ok" });
    expect(claudePolicyCheck({ file: managed, doc: null }, local(http))).toMatchObject({ status: "ok" });
  });

  it("warns where hooks that forward the team server's URL and token (an earlier init's) would send them blank", () => {
    const hooks = claudeHttpHooks({ port: 24123, secret: "a".repeat(64) });
    const forwarding = Object.fromEntries(
      Object.entries(hooks).map(([event, h]) => [event, { ...h, headers: { ...h.headers, [ENV_HEADER]: envHeaderTemplate() }, allowedEnvVars: [...HTTP_HOOK_ENV] }]),
    );
    const old = { hooks: comityHooks("claude_code", "comity-hook", forwarding) };
    expect(claudePolicyCheck({ file: managed, doc: { httpHookAllowedEnvVars: ["TMUX_PANE"] } }, local(old))).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("leaves out COMITY_AGENT_NAME, COMITY_API_URL, COMITY_TOKEN"),
    });
    expect(claudePolicyCheck({ file: managed, doc: { httpHookAllowedEnvVars: ["COMITY_AGENT_NAME", "COMITY_API_URL", "COMITY_TOKEN"] } }, local(old))).toMatchObject({ status: "ok" });
    // The hooks init writes now forward none: the list cannot blank them.
    expect(claudePolicyCheck({ file: managed, doc: { httpHookAllowedEnvVars: [] } }, local(http))).toMatchObject({ status: "ok" });
  });

  it("matches patterns with * as any run of characters, the rest literal", () => {
    expect(urlMatches("http://127.0.0.1:*", "http://127.0.0.1:24123/v1/hook/claude_code/Stop")).toBe(true);
    expect(urlMatches("http://127.0.0.1:*/v1/*", "http://127.0.0.1:24123/v1/hook")).toBe(true);
    expect(urlMatches("http://127.0.0.1:2412", "http://127.0.0.1:24123/x")).toBe(false);
    expect(urlMatches("http://127.0.0.1?x", "http://127.0.0.1?x")).toBe(true);
    expect(urlMatches("http://127.0.0.1?x", "http://127.0.0.1Zx")).toBe(false);
  });

  it("knows where each platform keeps the managed settings", () => {
    expect(claudeManagedSettingsPath("linux")).toBe("/etc/claude-code/managed-settings.json");
    expect(claudeManagedSettingsPath("darwin")).toBe("/Library/Application Support/ClaudeCode/managed-settings.json");
  });
});
