/** The hosts `comity init` can wire in this version. */
export type InitHost = "claude_code" | "codex" | "compozy" | "copilot" | "cursor" | "omp";
export const INIT_HOSTS: readonly InitHost[] = ["claude_code", "codex", "compozy", "copilot", "cursor", "omp"];

/** One command hook as Claude Code and Codex write it (timeout in seconds). */
export interface CommandHook {
  readonly type: "command";
  readonly command: string;
  readonly timeout: number;
}

/** Claude Code's HTTP hook (`comity init --http`): the event posted to the daemon (timeout in seconds). */
export interface HttpHook {
  readonly type: "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The variables Claude Code may fill into the headers (`init --http` writes none; earlier builds did). */
  readonly allowedEnvVars?: readonly string[];
  readonly timeout: number;
}

/** A matcher group: `{ matcher?, hooks: [...] }`. */
export interface HookGroup {
  readonly matcher?: string;
  readonly hooks: readonly (CommandHook | HttpHook)[];
}

/** Cursor's flat entry: the command itself, with an optional matcher (seconds). */
export interface FlatHook extends CommandHook {
  readonly matcher?: string;
}

/** Copilot CLI's entry: a command per shell, `timeoutSec`. */
export interface CopilotHook {
  readonly type: "command";
  readonly bash: string;
  readonly powershell: string;
  readonly timeoutSec: number;
}

/** Event name → the entries Comity wants there (groups for Claude Code and Codex, flat entries for Cursor and Copilot). */
export type HookTable = Readonly<Record<string, ReadonlyArray<HookGroup | FlatHook | CopilotHook>>>;

/** Edit and shell tools of Claude Code; `ExitPlanMode` only before a tool (it carries the plan). */
export const CLAUDE_PRE_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash|ExitPlanMode";
export const CLAUDE_POST_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash";
export const CODEX_MATCHER = "apply_patch|Edit|Write|Bash";
/** Cursor's edit tools; its shell commands come through beforeShellExecution instead (one evaluation per command). */
export const CURSOR_EDIT_MATCHER = "Write|Delete";

/**
 * The hooks Comity installs for a host, with the contract's timeouts: 5 s
 * before a tool and at session start and prompt time (the CLI gives the API
 * 400 ms and 1.5 s), 10 s after a tool and at stop and session end. Codex's
 * SessionEnd gets 3 s, the most Codex gives that event (0.171 clamps a longer
 * one, with a warning at every start). Cursor takes flat entries under its own
 * event names.
 */
export function comityHooks(host: Exclude<InitHost, "omp" | "compozy">, hookCommand: string, claudeHttp: Readonly<Record<string, HttpHook>> = {}): HookTable {
  const hook = (event: string, timeout: number): CommandHook => ({ type: "command", command: `${hookCommand} --tool ${host} --event ${event}`, timeout });
  if (host === "claude_code") {
    // With `init --http`, the events of every tool call are posted to the daemon; the others stay commands, which
    // start the daemon when it is not running (SessionStart, each prompt).
    const claude = (event: string, timeout: number): CommandHook | HttpHook => claudeHttp[event] ?? hook(event, timeout);
    return {
      PreToolUse: [{ matcher: CLAUDE_PRE_MATCHER, hooks: [claude("PreToolUse", 5)] }],
      PostToolUse: [{ matcher: CLAUDE_POST_MATCHER, hooks: [claude("PostToolUse", 10)] }],
      SessionStart: [{ hooks: [claude("SessionStart", 5)] }],
      UserPromptSubmit: [{ hooks: [claude("UserPromptSubmit", 5)] }],
      Stop: [{ hooks: [claude("Stop", 10)] }],
      SessionEnd: [{ hooks: [claude("SessionEnd", 10)] }],
    };
  }
  if (host === "copilot") {
    // Copilot CLI acts on a preToolUse deny only, but the other events tell the API what the session does.
    const entry = (event: string, timeoutSec: number): CopilotHook => {
      const line = `${hookCommand} --tool copilot --event ${event}`;
      return { type: "command", bash: line, powershell: line, timeoutSec };
    };
    return {
      sessionStart: [entry("sessionStart", 5)],
      userPromptSubmitted: [entry("userPromptSubmitted", 5)],
      preToolUse: [entry("preToolUse", 5)],
      postToolUse: [entry("postToolUse", 10)],
      agentStop: [entry("agentStop", 10)],
      sessionEnd: [entry("sessionEnd", 10)],
    };
  }
  if (host === "cursor") {
    // preToolUse only for edits and beforeShellExecution for commands, afterFileEdit and afterShellExecution
    // after them: each tool call is evaluated once (postToolUse would repeat the after-events).
    return {
      sessionStart: [hook("sessionStart", 5)],
      beforeSubmitPrompt: [hook("beforeSubmitPrompt", 5)],
      preToolUse: [{ ...hook("preToolUse", 5), matcher: CURSOR_EDIT_MATCHER }],
      beforeShellExecution: [hook("beforeShellExecution", 5)],
      afterFileEdit: [hook("afterFileEdit", 10)],
      afterShellExecution: [hook("afterShellExecution", 10)],
      stop: [hook("stop", 10)],
      sessionEnd: [hook("sessionEnd", 10)],
    };
  }
  return {
    PreToolUse: [{ matcher: CODEX_MATCHER, hooks: [hook("PreToolUse", 5)] }],
    PostToolUse: [{ matcher: CODEX_MATCHER, hooks: [hook("PostToolUse", 10)] }],
    SessionStart: [{ hooks: [hook("SessionStart", 5)] }],
    UserPromptSubmit: [{ hooks: [hook("UserPromptSubmit", 5)] }],
    Stop: [{ hooks: [hook("Stop", 10)] }],
    SessionEnd: [{ hooks: [hook("SessionEnd", 3)] }],
  };
}

/**
 * Every hook entry of a settings document, event by event: the hooks of each group (Claude Code's and Codex's shape)
 * and the flat entries that are hooks themselves (Cursor's and Copilot CLI's).
 */
export function hookEntries(doc: unknown): unknown[] {
  const hooks = doc !== null && typeof doc === "object" ? (doc as { hooks?: unknown }).hooks : undefined;
  if (hooks === null || typeof hooks !== "object") return [];
  const out: unknown[] = [];
  for (const groups of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      const inner = g !== null && typeof g === "object" ? (g as { hooks?: unknown }).hooks : undefined;
      out.push(...(Array.isArray(inner) ? inner : [g]));
    }
  }
  return out;
}

/** The command of a hook entry: `command` (Claude Code, Codex, Cursor), else `bash` or `powershell` (Copilot CLI). */
export function entryCommand(entry: unknown): unknown {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return undefined;
  const e = entry as Record<string, unknown>;
  return e["command"] ?? e["bash"] ?? e["powershell"];
}

/** A hook command that runs `comity hook` or the native client `comity-hook` (any Comity version, any spelling). */
export function isComityHookCommand(command: unknown): boolean {
  return typeof command === "string" && (/(^|[\s/\\"'])comity(\.js|\.cjs|\.cmd|\.mjs)?["']?\s+hook(\s|$)/.test(command) || /(^|[\s/\\"'])comity-hook(\.cmd|\.exe)?["']?(\s|$)/.test(command));
}

/**
 * What a hook runs, followed by `--tool T --event E`, for the command `comity init --command` names: itself where it
 * is the native client (`comity-hook`), else its `hook` subcommand.
 */
export function hookCommandOf(command: string): string {
  const first = command.trim().split(/\s+/)[0] ?? "";
  return /(^|[/\\])comity-hook(\.cmd|\.exe)?$/.test(first) ? command.trim() : `${command.trim()} hook`;
}

/** A hook entry of Comity's: one that runs `comity hook`, or Claude Code's HTTP hook to the daemon (`init --http`). */
export function isComityHookEntry(entry: unknown): boolean {
  if (isComityHookCommand(entryCommand(entry))) return true;
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return false;
  const e = entry as Record<string, unknown>;
  return e["type"] === "http" && typeof e["url"] === "string" && /^http:\/\/(127\.0\.0\.1|localhost):\d+\/v1\/hook\//.test(e["url"]);
}
