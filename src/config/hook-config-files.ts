import type { InitHost } from "../init/host-configs.js";

/**
 * Where `comity init` writes each host's hook config, relative to a repo (or, with `--user`, to the home folder),
 * and the host's own program name (how `init` finds it on PATH).
 */
export const HOOK_CONFIG_FILES: Readonly<Record<InitHost, { readonly dir: string; readonly file: string; readonly binary: string }>> = {
  // With --http, Claude Code's hooks go to `.claude/settings.local.json` instead (CLAUDE_HTTP_SETTINGS).
  claude_code: { dir: ".claude", file: "settings.json", binary: "claude" },
  codex: { dir: ".codex", file: "hooks.json", binary: "codex" },
  cursor: { dir: ".cursor", file: "hooks.json", binary: "cursor" },
  // A file of Comity's own among the repo's hook files (Copilot CLI reads every .github/hooks/*.json).
  copilot: { dir: ".github/hooks", file: "comity.json", binary: "copilot" },
  // CompozyOS's workspace overlay (`$COMPOZY_HOME/config.toml` with --user); Comity's block between markers.
  compozy: { dir: ".compozy", file: "config.toml", binary: "compozy" },
  // Not a settings file: Comity's extension, written whole.
  omp: { dir: ".omp/extensions", file: "comity.ts", binary: "omp" },
};

/** Where Copilot CLI reads a user's own hook files (relative to the home folder), beside the repo's `.github/hooks/`. */
export const COPILOT_USER_HOOKS = ".copilot/hooks";

/**
 * Claude Code's settings file for `comity init --http`: the user's own (Claude Code keeps it out of git), since its
 * hooks carry the daemon's port and secret, which are this user's alone.
 */
export const CLAUDE_HTTP_SETTINGS = "settings.local.json";

/** The project-relative MCP configs `comity init` writes Comity's server into (`src/init/mcp-configs.ts`). */
export const PROJECT_MCP_FILES: readonly string[] = [".mcp.json", ".cursor/mcp.json", ".codex/config.toml"];

const OWN = new Set([...Object.values(HOOK_CONFIG_FILES).map((h) => `${h.dir}/${h.file}`), `${HOOK_CONFIG_FILES.claude_code.dir}/${CLAUDE_HTTP_SETTINGS}`, ...PROJECT_MCP_FILES]);

/**
 * Whether a repo-relative path is a hook config that `comity init` writes: Comity's own doing, never an agent's work.
 * Such a file is no session's change, no collision and no briefing line (after `init --each`, every repo and each of
 * its worktrees has one, and each would otherwise read as the same uncommitted change).
 */
export function isHookConfigFile(repoPath: string): boolean {
  return OWN.has(repoPath);
}
