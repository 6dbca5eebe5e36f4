import * as path from "node:path";
import { SESSION_ENV } from "../config/session-env.js";
import type { InitHost } from "./host-configs.js";

/**
 * Where each host reads the MCP servers it starts, for a project and for the user (`--user`); null where it reads none
 * at that level. Claude Code: the project's `.mcp.json`, the user's `~/.claude.json`; Cursor: `.cursor/mcp.json`;
 * Codex: `config.toml`'s `[mcp_servers]` (the project's `.codex/`, read in a trusted project, or `~/.codex/`);
 * Copilot CLI: `~/.copilot/mcp-config.json` only; omp: `.omp/mcp.json`, `~/.omp/agent/mcp.json`. CompozyOS takes none
 * Comity writes.
 */
export function mcpConfigFile(host: InitHost, options: { readonly root: string; readonly home: string; readonly user?: boolean }): string | null {
  const user = options.user === true;
  switch (host) {
    case "claude_code":
      return user ? path.join(options.home, ".claude.json") : path.join(options.root, ".mcp.json");
    case "cursor":
      return path.join(user ? options.home : options.root, ".cursor", "mcp.json");
    case "codex":
      return path.join(user ? options.home : options.root, ".codex", "config.toml");
    case "copilot":
      return user ? path.join(options.home, ".copilot", "mcp-config.json") : null;
    case "omp":
      // (its own files; it also falls back to a project's .mcp.json, as Claude Code's entry there)
      return user ? path.join(options.home, ".omp", "agent", "mcp.json") : path.join(options.root, ".omp", "mcp.json");
    default:
      return null;
  }
}

/** The server's entry: `comity mcp --host HOST`, by the command the hooks run Comity by. */
export function mcpServerEntry(host: InitHost, command: string): { command: string; args: string[] } {
  return { command, args: ["mcp", "--host", host] };
}

/**
 * What Codex forwards to Comity's MCP server beyond its own short list (HOME, PATH, USER and a few more): the
 * variables that choose where coordination happens (the team server and its token, the config folder), name the
 * agent, and set how git reads its config, as the hooks see them. Without them the server would read this machine's
 * store while the hooks report to the team's server, and find no session of its caller. Unset ones are skipped.
 */
export const CODEX_MCP_ENV_VARS: readonly string[] = [
  ...new Set([...SESSION_ENV, "COMITY_CONFIG_DIR", "COMITY_DAEMON", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM"]),
].sort();

export const CODEX_MCP_BEGIN = "# >>> comity MCP server (written by `comity init`; rerun it to update)";
export const CODEX_MCP_END = "# <<< comity MCP server";

/**
 * A host's MCP config with Comity's server in it, the rest as it was: `mcpServers.comity` in a JSON config (Copilot
 * CLI's with `type` and `tools`), a marked `[mcp_servers.comity]` block in Codex's TOML. Throws where the file cannot
 * be merged (not JSON, a `comity` server of the user's own in the TOML): it is then left as it is.
 */
export function mergeMcpConfig(host: InitHost, before: string | null, command: string): string {
  const entry = mcpServerEntry(host, command);
  if (host === "codex") {
    const list = (xs: readonly string[]) => JSON.stringify(xs).replace(/,/g, ", ");
    const block = [CODEX_MCP_BEGIN, "[mcp_servers.comity]", `command = ${JSON.stringify(entry.command)}`, `args = ${list(entry.args)}`, `env_vars = ${list(CODEX_MCP_ENV_VARS)}`, CODEX_MCP_END].join(
      "\n",
    );
    const text = before ?? "";
    const start = text.indexOf(CODEX_MCP_BEGIN);
    const end = text.indexOf(CODEX_MCP_END);
    if (start >= 0 && end > start) return `${text.slice(0, start)}${block}${text.slice(end + CODEX_MCP_END.length)}`;
    if (/^\s*\[\s*mcp_servers\.("?)comity\1\s*\]/m.test(text)) throw new Error("it declares an MCP server named comity of its own");
    // (at the end: a table header there cannot swallow keys that belong to the file's root table)
    return `${text}${text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n"}${block}\n`;
  }
  return withJsonEntry(before, ["mcpServers", "comity"], host === "copilot" ? { type: "local", ...entry, tools: ["*"] } : entry);
}

/** Claude Code's file of the user's own settings per project (`projects[ROOT].mcpServers`, its "local" scope). */
export function claudeUserFile(home: string): string {
  return path.join(home, ".claude.json");
}

/**
 * Claude Code's user file with Comity's MCP server in one project's local scope (`projects[root].mcpServers.comity`),
 * the rest as it was. Local scope wins over the project's `.mcp.json`: `init --http` points this user's sessions at
 * the daemon's MCP endpoint while the project's file keeps `comity mcp` for everyone else. Throws where the file is
 * not a JSON object, or its `projects` entry is not one.
 */
export function mergeClaudeLocalMcp(before: string | null, root: string, entry: Readonly<Record<string, unknown>>): string {
  return withJsonEntry(before, ["projects", root, "mcpServers", "comity"], entry);
}

/**
 * A JSON config's text with `value` at `keys` (the objects on the way made where missing), the rest as it was; the
 * text itself where nothing changes. Throws, naming it, where the top level or an object on the way is not an object.
 */
function withJsonEntry(before: string | null, keys: readonly string[], value: unknown): string {
  const parsed: unknown = before === null || before.trim() === "" ? {} : JSON.parse(before);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const named = (n: number): string => keys.slice(0, n).reduce((acc, k, i) => (i === 0 ? k : /^[A-Za-z_$][\w$]*$/.test(k) ? `${acc}.${k}` : `${acc}["${k}"]`), "");
  const put = (node: unknown, depth: number): Record<string, unknown> => {
    if (node !== undefined && !isObject(node)) throw new Error(depth === 0 ? "its top level is not an object" : `its ${named(depth)} is not an object`);
    const key = keys[depth] as string;
    const here = node ?? {};
    return { ...here, [key]: depth === keys.length - 1 ? value : put(here[key], depth + 1) };
  };
  const merged = put(parsed, 0);
  if (before !== null && JSON.stringify(merged) === JSON.stringify(parsed)) return before;
  return `${JSON.stringify(merged, null, 2)}\n`;
}
