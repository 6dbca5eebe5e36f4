import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { CLAUDE_HTTP_SETTINGS, COPILOT_USER_HOOKS, HOOK_CONFIG_FILES } from "../config/hook-config-files.js";
import { comityHooks, hookCommandOf, hookEntries, INIT_HOSTS, isComityHookEntry, type HttpHook, type InitHost } from "./host-configs.js";
import { mergeHooks } from "./merge-hooks.js";
import { ompExtensionSource } from "./omp-extension.js";
import { mergeCompozyConfig } from "./compozy-declarations.js";
import { claudeUserFile, mcpConfigFile, mergeClaudeLocalMcp, mergeMcpConfig } from "./mcp-configs.js";

export interface InitOptions {
  /** The project folder (its `.claude/`, `.codex/`); ignored with `user`. */
  readonly root: string;
  /** The user's home folder (user-level files, and detection). */
  readonly home: string;
  /** Write the user-level files instead of the project's. */
  readonly user?: boolean;
  /** Hosts to wire; default: the hosts detected. */
  readonly tools?: readonly InitHost[];
  /** `PATH`, to find host binaries and `comity` itself. */
  readonly pathEnv?: string;
  /**
   * The command the hooks run: `comity` (whose `hook` subcommand they call), or the native client `comity-hook`.
   * Default: `comity-hook` where it is on `PATH` (the package's install script makes it), else `comity`.
   */
  readonly command?: string;
  /**
   * Claude Code's hooks that go to the daemon over HTTP instead of running a command, by event (`init --http`). With
   * them, a project's Claude Code hooks are written to `.claude/settings.local.json`, the user's own file.
   */
  readonly claudeHttp?: Readonly<Record<string, HttpHook>>;
  /** Also wire Comity's MCP server (`comity mcp`) into each host's MCP config; default true. */
  readonly mcp?: boolean;
  /**
   * With `init --http`: Claude Code's entry for Comity's MCP server on the daemon's HTTP front, for a project root,
   * written in the user's local scope for that project (so no process starts for it).
   */
  readonly claudeMcpHttp?: (root: string) => Readonly<Record<string, unknown>>;
}

export interface InitFile {
  readonly host: InitHost;
  /** What Comity puts in it: its hooks (the default), or its MCP server. */
  readonly kind?: "hooks" | "mcp";
  /** Absolute path of the settings file. */
  readonly file: string;
  /** Its text now (null: it does not exist). */
  readonly before: string | null;
  /** Its text with Comity's hooks (equal to `before` when nothing changes). */
  readonly after: string;
  readonly changed: boolean;
}

export interface InitPlan {
  /** Why each host counts as present (config folders, binaries); empty when not found. */
  readonly detected: Readonly<Record<InitHost, readonly string[]>>;
  readonly hosts: readonly InitHost[];
  readonly files: readonly InitFile[];
  /** What the user must know or do next. */
  readonly notes: readonly string[];
  /** A file that cannot be merged (not JSON, odd shape): left as it is. */
  readonly diagnostics: readonly Diagnostic[];
}

const HOST_FILES = HOOK_CONFIG_FILES;

/**
 * Where a host's hook config goes: the project's or the user's; `local`, Claude Code's project file of the user's own
 * (`.claude/settings.local.json`, where `init --http` writes).
 */
export function hostConfigFile(host: InitHost, options: Pick<InitOptions, "root" | "home" | "user"> & { readonly local?: boolean }): string {
  const h = HOST_FILES[host];
  // Copilot CLI's user-level hooks are the JSON files of ~/.copilot/hooks/ (its repo-level ones, .github/hooks/).
  if (host === "copilot" && options.user === true) return path.join(options.home, COPILOT_USER_HOOKS, h.file);
  const file = host === "claude_code" && options.local === true && options.user !== true ? CLAUDE_HTTP_SETTINGS : h.file;
  return path.join(options.user === true ? options.home : options.root, h.dir, file);
}

/**
 * What `comity init` would write, read-only: the hosts present, and for each
 * wired host its settings file before and after Comity's hooks are merged in.
 */
export function planInit(options: InitOptions): InitPlan {
  const detected = Object.fromEntries(INIT_HOSTS.map((h) => [h, detectHost(h, options)])) as Record<InitHost, string[]>;
  const hosts = options.tools !== undefined ? [...new Set(options.tools)].sort() : INIT_HOSTS.filter((h) => detected[h].length > 0);
  // The native client answers from the running daemon without starting Node, and is `comity hook` otherwise.
  const command = options.command ?? (findOnPath("comity-hook", options.pathEnv) !== null ? "comity-hook" : "comity");
  const hookCommand = hookCommandOf(command);
  const files: InitFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const notes: string[] = [];
  for (const host of hosts) {
    if (host === "omp" && options.user === true) {
      notes.push("Comity's omp extension is installed per project (.omp/extensions/): run comity init --tool omp without --user in each project.");
      continue;
    }
    const file = hostConfigFile(host, { ...options, local: options.claudeHttp !== undefined });
    const before = readConfig(file, diagnostics);
    if (before === undefined) continue;
    if (host === "compozy") {
      try {
        const after = mergeCompozyConfig(before, hookCommand);
        files.push({ host, file, before, after, changed: before !== after });
      } catch (error) {
        diagnostics.push(diagnostic("settings_not_toml", "error", file, `${file} is not valid TOML (left as it is): ${(error as Error).message}`));
      }
      continue;
    }
    if (host === "omp") {
      const after = ompExtensionSource(hookCommand);
      files.push({ host, file, before, after, changed: before !== after });
      continue;
    }
    let parsed: unknown;
    try {
      parsed = before === null || before.trim() === "" ? undefined : JSON.parse(before);
    } catch (error) {
      diagnostics.push(diagnostic("settings_not_json", "error", file, `${file} is not valid JSON (left as it is): ${(error as Error).message}`));
      continue;
    }
    let merged: Record<string, unknown>;
    try {
      merged = mergeHooks(parsed, comityHooks(host, hookCommand, host === "claude_code" ? (options.claudeHttp ?? {}) : {}));
      // A project's .mcp.json servers wait for each user's approval (a headless session never gives it): Comity's is
      // approved where its hooks are.
      if (host === "claude_code" && options.user !== true && options.mcp !== false) {
        const approved = Array.isArray(merged["enabledMcpjsonServers"]) ? (merged["enabledMcpjsonServers"] as unknown[]) : [];
        if (!approved.includes("comity")) merged = { ...merged, enabledMcpjsonServers: [...approved, "comity"] };
      }
      // Cursor's hooks.json carries a format version.
      if ((host === "cursor" || host === "copilot") && merged["version"] === undefined) merged = { version: 1, ...merged };
    } catch (error) {
      diagnostics.push(diagnostic("settings_bad_shape", "error", file, `${file}: ${(error as Error).message} (left as it is)`));
      continue;
    }
    const changed = parsed === undefined || JSON.stringify(merged) !== JSON.stringify(parsed);
    files.push({ host, file, before, after: changed ? `${JSON.stringify(merged, null, 2)}\n` : (before ?? ""), changed });
    if (host === "codex" && changed) notes.push("Codex runs a new or changed hook only after you trust it: open /hooks in Codex and review Comity's hooks.");
    // A Claude Code session reads its hooks when it starts: one already running goes on with the old ones.
    if (host === "claude_code" && changed && before !== null) notes.push("Claude Code sessions already running keep the hooks they started with: restart them to use these.");
    if (host === "claude_code" && options.claudeHttp !== undefined) {
      const shared = path.join(options.user === true ? options.home : options.root, HOST_FILES.claude_code.dir, HOST_FILES.claude_code.file);
      if (shared !== file && holdsComityHooks(shared)) {
        notes.push(`${shared} holds Comity's command hooks too: Claude Code would run both. Remove them there (they are the entries running \`comity hook\`), or keep the commands and drop --http.`);
      }
    }
  }
  // Comity's MCP server, in each wired host's MCP config: started as `comity mcp` (the native hook client is hooks only).
  // (`comity-hook` where the hooks run the native client: the server is the `comity` beside it, by name)
  const mcpCommand = /^comity-hook(\.cmd|\.exe)?$/.test(path.basename(command.trim().split(/\s+/)[0] ?? "")) ? "comity" : command.trim();
  for (const host of options.mcp === false ? [] : hosts) {
    const file = mcpConfigFile(host, options);
    if (file === null) {
      if (host === "copilot") notes.push("Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json only: comity init --tool copilot --user adds Comity's there.");
      continue;
    }
    const before = readConfig(file, diagnostics);
    if (before === undefined) continue;
    try {
      const after = mergeMcpConfig(host, before, mcpCommand);
      files.push({ host, kind: "mcp", file, before, after, changed: before !== after });
    } catch (error) {
      diagnostics.push(diagnostic("settings_bad_shape", "error", file, `${file}: ${(error as Error).message} (left as it is; Comity's MCP server not added)`));
    }
  }
  if (options.mcp !== false && options.user !== true && options.claudeMcpHttp !== undefined && hosts.includes("claude_code")) {
    const file = claudeUserFile(options.home);
    const before = readConfig(file, diagnostics);
    if (before !== undefined) {
      try {
        const after = mergeClaudeLocalMcp(before, options.root, options.claudeMcpHttp(options.root));
        files.push({ host: "claude_code", kind: "mcp", file, before, after, changed: before !== after });
      } catch (error) {
        diagnostics.push(diagnostic("settings_bad_shape", "error", file, `${file}: ${(error as Error).message} (left as it is; Comity's MCP server over HTTP not added)`));
      }
    }
  }
  if (command === "comity" && files.length > 0 && findOnPath("comity", options.pathEnv) === null) {
    notes.push("`comity` is not on PATH: the hooks call `comity hook ...`; install the package globally (npm install -g) or pass --command with its full path.");
  }
  return { detected, hosts, files, notes, diagnostics };
}

/** A config file's text, null where it does not exist, undefined (with a diagnostic) where it cannot be read. */
function readConfig(file: string, diagnostics: Diagnostic[]): string | null | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    diagnostics.push(diagnostic("settings_unreadable", "error", file, `cannot read ${file}: ${(error as Error).message}`));
    return undefined;
  }
}

/** Whether a Claude Code settings file holds any hook entry of Comity's. */
function holdsComityHooks(file: string): boolean {
  try {
    return hookEntries(JSON.parse(fs.readFileSync(file, "utf8"))).some(isComityHookEntry);
  } catch {
    return false;
  }
}

function detectHost(host: InitHost, options: InitOptions): string[] {
  const h = HOST_FILES[host];
  const reasons: string[] = [];
  if (isDir(path.join(options.root, h.dir))) reasons.push(`${path.join(options.root, h.dir)}/`);
  if (isDir(path.join(options.home, h.dir))) reasons.push(`~/${h.dir}/`);
  const bin = findOnPath(h.binary, options.pathEnv);
  if (bin !== null) reasons.push(bin);
  return reasons;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The first executable file named `name` on PATH, or null. */
export function findOnPath(name: string, pathEnv: string | undefined): string | null {
  for (const dir of (pathEnv ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
