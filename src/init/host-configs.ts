/** The hosts `comity init` can wire in this version. */
export type InitHost = "claude_code" | "codex";
export const INIT_HOSTS: readonly InitHost[] = ["claude_code", "codex"];

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

/** Event name → the groups Comity wants there. */
export type HookTable = Readonly<Record<string, readonly HookGroup[]>>;

/** Edit and shell tools of Claude Code; `ExitPlanMode` only before a tool (it carries the plan). */
export const CLAUDE_PRE_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash|ExitPlanMode";
export const CLAUDE_POST_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash";
export const CODEX_MATCHER = "apply_patch|Edit|Write|Bash";

/**
 * The hooks Comity installs for a host, with the contract's timeouts: 5 s
 * before a tool and at session start and prompt time (the CLI gives the API
 * 400 ms and 1.5 s), 10 s after a tool and at stop and session end. Codex has
 * no SessionEnd event (hosts.md, quirk 7), so none is written for it.
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
