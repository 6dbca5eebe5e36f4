import { describe, expect, it } from "vitest";
import { HOOK_CONFIG_FILES, isHookConfigFile, PROJECT_MCP_FILES } from "../../src/config/hook-config-files.js";

// The files `comity init` writes are Comity's own doing: no session's change, no collision, no briefing line.
describe("isHookConfigFile", () => {
  it("names every file init writes, Claude Code's settings.local.json of init --http and the MCP configs included, and nothing else", () => {
    for (const h of Object.values(HOOK_CONFIG_FILES)) expect(isHookConfigFile(`${h.dir}/${h.file}`)).toBe(true);
    expect(isHookConfigFile(".claude/settings.local.json")).toBe(true);
    for (const p of PROJECT_MCP_FILES) expect(isHookConfigFile(p)).toBe(true);
    expect(PROJECT_MCP_FILES).toEqual([".mcp.json", ".cursor/mcp.json", ".codex/config.toml"]);
    for (const p of ["settings.json", "src/.claude/settings.json", ".claude/agents/x.md", ".github/hooks/other.json", "src/.mcp.json", ".codex/other.toml"]) expect(isHookConfigFile(p)).toBe(false);
  });
});
