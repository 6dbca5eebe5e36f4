import type { HostId } from "./hosts.js";

/**
 * One host event in the vocabulary the pipeline works in (Claude Code's and
 * Codex's event names and tool fields), so that mapping, paths and routing
 * are written once. The host's own event name is kept for rendering.
 */
export interface HostView {
  /** `SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `Stop`, `SessionEnd`, or the host's own name when it has no such meaning. */
  readonly event: string;
  readonly toolName: string;
  readonly toolInput: Record<string, unknown>;
  readonly sessionId: string | null;
  readonly cwd: string | null;
  /** The user's prompt text, on prompt events. */
  readonly prompt: string | null;
  /** The workspace's folders (Cursor's `workspace_roots`, several in a multi-root workspace); else the cwd alone. */
  readonly roots: readonly string[];
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A payload as the pipeline reads it, for the hosts served: Claude Code, Codex, Cursor and Copilot CLI. */
export function hostView(host: HostId, nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  if (host === "cursor") return cursorView(nativeEvent, payload);
  if (host === "copilot") return copilotView(nativeEvent, payload);
  if (host === "compozy") return compozyView(nativeEvent, payload);
  if (host === "omp") return ompView(nativeEvent, payload);
  return claudeView(nativeEvent, payload);
}

/** Copilot CLI's camelCase event names, as the pipeline's. */
const COPILOT_EVENTS: Readonly<Record<string, string>> = {
  sessionStart: "SessionStart",
  userPromptSubmitted: "UserPromptSubmit",
  preToolUse: "PreToolUse",
  postToolUse: "PostToolUse",
  agentStop: "Stop",
  sessionEnd: "SessionEnd",
};

/**
 * Copilot CLI (docs/hooks.md, Copilot CLI) has two dialects, chosen by how the
 * event is spelled in its config: camelCase (`sessionId`, `toolName`,
 * `toolArgs` as a JSON string or an object) and PascalCase, the VS
 * Code-compatible one (`session_id`, `tool_name`, `tool_input`). Tool names
 * are lowercase (`bash`, `edit`, `create`); edits name their file `path`.
 */
function copilotView(nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  const cwd = str(payload["cwd"]);
  let toolInput = obj(payload["tool_input"]);
  const args = payload["toolArgs"];
  if (typeof args === "string") {
    try {
      toolInput = obj(JSON.parse(args));
    } catch {
      toolInput = {};
    }
  } else if (args !== undefined) {
    toolInput = obj(args);
  }
  return {
    event: COPILOT_EVENTS[nativeEvent] ?? nativeEvent,
    toolName: str(payload["toolName"]) ?? str(payload["tool_name"]) ?? "",
    toolInput,
    sessionId: str(payload["sessionId"]) ?? str(payload["session_id"]),
    cwd,
    prompt: str(payload["prompt"]),
    roots: cwd === null ? [] : [cwd],
  };
}

function claudeView(nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  const cwd = str(payload["cwd"]);
  return {
    event: nativeEvent,
    toolName: str(payload["tool_name"]) ?? "",
    toolInput: obj(payload["tool_input"]),
    sessionId: str(payload["session_id"]),
    cwd,
    prompt: str(payload["prompt"]),
    roots: cwd === null ? [] : [cwd],
  };
}

/**
 * Cursor (docs/hooks.md, Cursor): `conversation_id` is the session (`session_id` only
 * on sessionStart/sessionEnd, where it is the same); no common `cwd`, but
 * `workspace_roots[]`; shell commands come as `beforeShellExecution` /
 * `afterShellExecution` with `command`, agent edits as `afterFileEdit` with
 * `file_path`.
 */
function cursorView(nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  const roots = Array.isArray(payload["workspace_roots"]) ? payload["workspace_roots"].filter((r): r is string => typeof r === "string" && r !== "") : [];
  const cwd = str(payload["cwd"]) ?? roots[0] ?? null;
  const base = { sessionId: str(payload["conversation_id"]) ?? str(payload["session_id"]), cwd, prompt: str(payload["prompt"]), roots: roots.length > 0 ? roots : cwd === null ? [] : [cwd] };
  const toolName = str(payload["tool_name"]) ?? "";
  const toolInput = obj(payload["tool_input"]);
  switch (nativeEvent) {
    case "sessionStart":
      return { ...base, event: "SessionStart", toolName: "", toolInput: {} };
    case "beforeSubmitPrompt":
      return { ...base, event: "UserPromptSubmit", toolName: "", toolInput: {} };
    case "preToolUse":
      return { ...base, event: "PreToolUse", toolName, toolInput };
    case "postToolUse":
      return { ...base, event: "PostToolUse", toolName, toolInput };
    case "beforeShellExecution":
      return { ...base, event: "PreToolUse", toolName: "Shell", toolInput: { command: str(payload["command"]) ?? "" } };
    case "afterShellExecution":
      return { ...base, event: "PostToolUse", toolName: "Shell", toolInput: { command: str(payload["command"]) ?? "" } };
    case "afterFileEdit":
      return { ...base, event: "PostToolUse", toolName: "Edit", toolInput: { file_path: str(payload["file_path"]) ?? "" } };
    case "stop":
      return { ...base, event: "Stop", toolName: "", toolInput: {} };
    case "sessionEnd":
      return { ...base, event: "SessionEnd", toolName: "", toolInput: {} };
    default:
      return { ...base, event: nativeEvent, toolName, toolInput };
  }
}

/** CompozyOS events, as the pipeline's (docs/hooks.md, CompozyOS). */
const COMPOZY_EVENTS: Readonly<Record<string, string>> = {
  "session.post_create": "SessionStart",
  "input.pre_submit": "UserPromptSubmit",
  "prompt.post_assemble": "UserPromptSubmit",
  "tool.pre_call": "PreToolUse",
  "tool.post_call": "PostToolUse",
  "session.pre_stop": "Stop",
  "session.post_stop": "SessionEnd",
};

/**
 * A CompozyOS payload: `event` names it, `workspace` is the folder,
 * `session_id` the session; tools come as `tool_name` (or the canonical
 * `tool_id`) with `tool_input`; the prompt is `message` before submission
 * and `prompt` once assembled.
 */
function compozyView(nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  const cwd = str(payload["workspace"]) ?? str(payload["cwd"]);
  return {
    event: COMPOZY_EVENTS[nativeEvent] ?? nativeEvent,
    toolName: compozyTool(str(payload["tool_name"]) ?? str(payload["tool_id"]) ?? ""),
    toolInput: obj(payload["tool_input"]),
    sessionId: str(payload["session_id"]),
    cwd,
    prompt: str(payload["message"]) ?? str(payload["prompt"]),
    roots: cwd === null ? [] : [cwd],
  };
}

/** CompozyOS tool names (`edit_file`, `fs.write`, `shell.exec`, ...) as the pipeline's: edits by verb, shells by name. */
function compozyTool(name: string): string {
  const n = name.toLowerCase();
  if (/(^|[._-])apply_?patch$/.test(n)) return "apply_patch";
  if (/(^|[._-])(shell|bash|exec|terminal|run_command|command)([._-]|$)/.test(n)) return "Bash";
  if (/(^|[._-])delete([._-]|$)/.test(n)) return "Delete";
  if (/(^|[._-])(write|create)([._-]|$)/.test(n)) return "Write";
  if (/(^|[._-])(edit|replace|patch)([._-]|$)/.test(n)) return "Edit";
  return name;
}

/** omp's events, as the pipeline's (the contract's event table). */
const OMP_EVENTS: Readonly<Record<string, string>> = {
  session_start: "SessionStart",
  before_agent_start: "UserPromptSubmit",
  tool_call: "PreToolUse",
  tool_result: "PostToolUse",
  session_stop: "Stop",
  session_shutdown: "SessionEnd",
};

/**
 * omp has no stdin hooks: Comity's omp extension serialises each event as
 * `{hook_event_name, session_id, cwd, tool_name, tool_use_id, tool_input,
 * prompt}`. Its `eval` and `ast_edit` tools count as shell commands (the
 * contract's table).
 */
function ompView(nativeEvent: string, payload: Readonly<Record<string, unknown>>): HostView {
  const base = claudeView(nativeEvent, payload);
  const tool = base.toolName.toLowerCase();
  return { ...base, event: OMP_EVENTS[nativeEvent] ?? nativeEvent, toolName: tool === "eval" || tool === "ast_edit" ? "Bash" : base.toolName };
}
