/** The agents Comity speaks to. */
export type HostId = "claude_code" | "codex" | "cursor" | "copilot" | "omp" | "compozy";

/** The `--tool` names `comity hook` accepts (any case, `-` for `_`); `copilot_cli` and `compozyos` are aliases. */
export const HOOK_TOOLS: readonly HostId[] = ["claude_code", "codex", "cursor", "copilot", "omp", "compozy"];

/** Whether `comity hook --tool NAME` names a host Comity knows (an empty name lets the payload decide). */
export function isKnownTool(name: string): boolean {
  const t = name.toLowerCase().replace(/-/g, "_");
  return t === "" || (HOOK_TOOLS as readonly string[]).includes(t) || t === "copilot_cli" || t === "compozyos";
}

/** The neutral events the coordination API understands. */
export type ComityEvent = "session_start" | "prompt" | "plan" | "pre_edit" | "pre_shell" | "post_edit" | "stop" | "session_end";

/** What Comity makes of one host event. */
export type ToolClass = "edit" | "shell" | "plan" | "other";

/**
 * Which host sent a payload. `--tool` is only a hint for Claude Code, whose
 * hooks Cursor and Copilot CLI also run: the payload decides
 * (docs/hooks.md, "Which host").
 */
export function detectHost(tool: string, payload: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): HostId {
  const t = tool.toLowerCase().replace(/-/g, "_");
  if (t === "omp") return "omp";
  if (t === "compozy" || t === "compozyos") return "compozy";
  if ("cursor_version" in payload || "conversation_id" in payload || (env["CURSOR_VERSION"] ?? "") !== "") return "cursor";
  if ("sessionId" in payload || "toolName" in payload || "toolArgs" in payload) return "copilot";
  if (t === "codex" || "turn_id" in payload) return "codex";
  if (typeof payload["timestamp"] === "string" && /^\d{4}-\d{2}-\d{2}T/.test(payload["timestamp"]) && !("transcript_path" in payload)) return "copilot";
  if (t === "cursor") return "cursor";
  if (t === "copilot" || t === "copilot_cli") return "copilot";
  return "claude_code";
}

/** Host tool names, normalised: `create`/`write` → Write, `edit`/`str_replace_editor` → Edit, shells → Bash. */
export function normalizeTool(name: string): string {
  const n = name.trim();
  const lower = n.toLowerCase();
  if (lower === "create" || lower === "write") return "Write";
  if (lower === "edit" || lower === "str_replace_editor" || lower === "str_replace_based_edit_tool") return "Edit";
  if (lower === "multiedit") return "MultiEdit";
  if (lower === "notebookedit") return "NotebookEdit";
  if (lower === "delete") return "Delete";
  if (["shell", "bash", "powershell", "exec_command", "local_shell", "run_terminal_cmd"].includes(lower)) return "Bash";
  if (lower === "apply_patch") return "apply_patch";
  if (lower === "exitplanmode") return "ExitPlanMode";
  return n;
}

const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit", "Delete", "apply_patch"]);

/** Edit tools change files; shell tools run commands; ExitPlanMode carries a plan; the rest (reads, searches, web) are not sent. */
export function classifyTool(normalized: string): ToolClass {
  if (EDIT_TOOLS.has(normalized)) return "edit";
  if (normalized === "Bash") return "shell";
  if (normalized === "ExitPlanMode") return "plan";
  return "other";
}

/**
 * The Comity event for a native event (Claude Code and Codex names, which
 * Copilot's PascalCase dialect shares), or null when the event is not one
 * Comity acts on. A shell command carrying an apply_patch envelope is an edit.
 */
export function mapEvent(nativeEvent: string, toolClass: ToolClass): ComityEvent | null {
  switch (nativeEvent) {
    case "SessionStart":
      return "session_start";
    case "UserPromptSubmit":
      return "prompt";
    case "PreToolUse":
      return toolClass === "edit" ? "pre_edit" : toolClass === "shell" ? "pre_shell" : toolClass === "plan" ? "plan" : null;
    case "PostToolUse":
      return toolClass === "edit" || toolClass === "shell" ? "post_edit" : null;
    case "Stop":
      return "stop";
    case "SessionEnd":
      return "session_end";
    default:
      return null;
  }
}
