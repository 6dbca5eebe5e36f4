/** The hosts `comity init` can wire in this version. */
export type InitHost = "claude_code" | "codex" | "cursor";
export const INIT_HOSTS: readonly InitHost[] = ["claude_code", "codex", "cursor"];

/** One command hook as Claude Code and Codex write it (timeout in seconds). */
export interface CommandHook {
  readonly type: "command";
  readonly command: string;
  readonly timeout: number;
}

/** A matcher group: `{ matcher?, hooks: [...] }`. */
export interface HookGroup {
  readonly matcher?: string;
  readonly hooks: readonly CommandHook[];
}

/** Cursor's flat entry: the command itself, with an optional matcher (seconds). */
export interface FlatHook extends CommandHook {
  readonly matcher?: string;
}

/** Event name → the entries Comity wants there (groups for Claude Code and Codex, flat entries for Cursor). */
export type HookTable = Readonly<Record<string, ReadonlyArray<HookGroup | FlatHook>>>;

/** Edit and shell tools of Claude Code; `ExitPlanMode` only before a tool (it carries the plan). */
export const CLAUDE_PRE_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash|ExitPlanMode";
export const CLAUDE_POST_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash";
export const CODEX_MATCHER = "apply_patch|Edit|Write|Bash";
/** Cursor's edit tools; its shell commands come through beforeShellExecution instead (one evaluation per command). */
export const CURSOR_EDIT_MATCHER = "Write|Delete";

/**
 * The hooks Comity installs for a host, with the contract's timeouts: 5 s
 * before a tool and at session start and prompt time (the CLI gives the API
 * 400 ms and 1.5 s), 10 s after a tool and at stop and session end. Codex has
 * no SessionEnd event (hosts.md, quirk 7), so none is written for it. Cursor
 * takes flat entries under its own event names.
 */
export function comityHooks(host: InitHost, command: string): HookTable {
  const hook = (event: string, timeout: number): CommandHook => ({ type: "command", command: `${command} hook --tool ${host} --event ${event}`, timeout });
  if (host === "claude_code") {
    return {
      PreToolUse: [{ matcher: CLAUDE_PRE_MATCHER, hooks: [hook("PreToolUse", 5)] }],
      PostToolUse: [{ matcher: CLAUDE_POST_MATCHER, hooks: [hook("PostToolUse", 10)] }],
      SessionStart: [{ hooks: [hook("SessionStart", 5)] }],
      UserPromptSubmit: [{ hooks: [hook("UserPromptSubmit", 5)] }],
      Stop: [{ hooks: [hook("Stop", 10)] }],
      SessionEnd: [{ hooks: [hook("SessionEnd", 10)] }],
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
  };
}

/** A hook command that runs `comity hook` (any Comity version, any spelling of the binary). */
export function isComityHookCommand(command: unknown): boolean {
  return typeof command === "string" && /(^|[\s/\\"'])comity(\.js|\.cmd|\.mjs)?["']?\s+hook(\s|$)/.test(command);
}
