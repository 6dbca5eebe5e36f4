import { charLength } from "../briefing/merge-briefings.js";
import type { HostId } from "./hosts.js";

/** Added context per event is capped at this many characters. */
export const MAX_CONTEXT_CHARS = 6000;

/** What the hook decided for one event, across its repos. */
export interface HookVerdict {
  /** A reason to block the tool call, when an answer said `block`. */
  readonly block: string | null;
  /** Text for the agent's context: warnings, briefings, notices. */
  readonly context: string | null;
}

export interface Rendered {
  /** What to print (empty: nothing). */
  readonly stdout: string;
  /** Context the host cannot take at this event: queued for the next one that can. */
  readonly queue: string | null;
  /** Whether queued context was delivered (and the queue must be emptied). */
  readonly deliveredQueue: boolean;
}

/**
 * Events at which each host shows `additionalContext`. Claude Code (2.1.x) and Codex both take it at `PreToolUse`,
 * placed beside the tool's result: a warning about the file an edit is about to change reaches the model with that
 * edit's result, not one tool call later.
 */
function acceptsContext(_host: HostId, nativeEvent: string): boolean {
  return ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"].includes(nativeEvent);
}

/** The first `max` characters (code points) of a text, with a marker when cut. */
export function capContext(text: string, max = MAX_CONTEXT_CHARS): string {
  if (charLength(text) <= max) return text;
  const marker = "\n… (context cut at 6,000 characters)";
  let out = "";
  let n = 0;
  for (const ch of text) {
    if (n + 1 + charLength(marker) > max) break;
    out += ch;
    n++;
  }
  return out + marker;
}

/** What the agent should read now: queued context first, then this event's, capped; null when there is none. */
function pendingContext(queued: readonly string[], verdict: HookVerdict): string | null {
  const parts = [...queued, ...(verdict.context === null ? [] : [verdict.context])].filter((p) => p.trim() !== "");
  return parts.length === 0 ? null : capContext(parts.join("\n\n"));
}

/**
 * The host's native answer (Claude Code and Codex): a block becomes the
 * `PreToolUse` deny; context becomes `additionalContext` where the host
 * accepts it at this event, else it is queued for the next event that does;
 * never a native "allow"; nothing to say prints nothing, except Codex `Stop`,
 * which always gets valid JSON.
 */
export function renderForHost(host: HostId, nativeEvent: string, verdict: HookVerdict, queued: readonly string[], payload: Readonly<Record<string, unknown>> = {}): Rendered {
  if (host === "compozy") return renderForCompozy(nativeEvent, verdict, queued, payload);
  if (host === "cursor") return renderForCursor(nativeEvent, verdict, queued);
  if (host === "omp") return renderForOmp(nativeEvent, verdict, queued);
  if (host === "copilot") return renderForCopilot(nativeEvent, verdict, queued);
  if (verdict.block !== null && nativeEvent === "PreToolUse") {
    return {
      stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: verdict.block } })}\n`,
      queue: verdict.context,
      deliveredQueue: false,
    };
  }
  const codexStop = host === "codex" && nativeEvent === "Stop";
  if (!acceptsContext(host, nativeEvent)) {
    return { stdout: codexStop ? "{}\n" : "", queue: verdict.context, deliveredQueue: false };
  }
  const text = pendingContext(queued, verdict);
  if (text === null) return { stdout: "", queue: null, deliveredQueue: false };
  return {
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: nativeEvent, additionalContext: text } })}\n`,
    queue: null,
    deliveredQueue: queued.length > 0,
  };
}

/**
 * Cursor's answers (docs/hooks.md, Cursor): each event has its own keys. A block is
 * `{decision: "deny", reason}` on preToolUse and `{permission: "deny",
 * user_message, agent_message}` on beforeShellExecution; context reaches the
 * agent only at sessionStart (`additional_context`): Cursor has no way to add
 * it later in a conversation, so later context is not queued (it would only
 * surface in the next conversation, about a state long gone).
 */
function renderForCursor(nativeEvent: string, verdict: HookVerdict, queued: readonly string[]): Rendered {
  const json = (v: unknown) => `${JSON.stringify(v)}\n`;
  if (verdict.block !== null && nativeEvent === "preToolUse") return { stdout: json({ decision: "deny", reason: verdict.block }), queue: null, deliveredQueue: false };
  if (verdict.block !== null && nativeEvent === "beforeShellExecution") {
    return { stdout: json({ permission: "deny", user_message: verdict.block, agent_message: verdict.block }), queue: null, deliveredQueue: false };
  }
  if (nativeEvent !== "sessionStart") return { stdout: "", queue: null, deliveredQueue: queued.length > 0 };
  const text = pendingContext(queued, verdict);
  if (text === null) return { stdout: "", queue: null, deliveredQueue: queued.length > 0 };
  return { stdout: json({ additional_context: text }), queue: null, deliveredQueue: queued.length > 0 };
}

/**
 * Copilot CLI's answers (docs/hooks.md, Copilot CLI): it acts only on a
 * `preToolUse` deny (`{permissionDecision: "deny", permissionDecisionReason}`)
 * and ignores context at session start and prompt time, so context is
 * neither printed nor queued.
 */
function renderForCopilot(nativeEvent: string, verdict: HookVerdict, queued: readonly string[]): Rendered {
  if (verdict.block !== null && (nativeEvent === "preToolUse" || nativeEvent === "PreToolUse")) {
    return { stdout: `${JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: verdict.block })}\n`, queue: null, deliveredQueue: queued.length > 0 };
  }
  return { stdout: "", queue: null, deliveredQueue: queued.length > 0 };
}

/** The events whose CompozyOS patch type takes `context_blocks` (input.pre_submit, prompt.post_assemble). */
const COMPOZY_CONTEXT_EVENTS = new Set(["input.pre_submit", "prompt.post_assemble"]);

/**
 * A CompozyOS patch, with only fields the event's patch type accepts (it
 * rejects unknown ones): `{deny, deny_reason}` on tool.pre_call; Comity's
 * context appended to the payload's `context_blocks` on input.pre_submit
 * and prompt.post_assemble; `{}` everywhere else. Context at any other event
 * (the session start briefing included) waits for the next prompt.
 */
function renderForCompozy(nativeEvent: string, verdict: HookVerdict, queued: readonly string[], payload: Readonly<Record<string, unknown>>): Rendered {
  const json = (v: unknown) => `${JSON.stringify(v)}\n`;
  if (verdict.block !== null && nativeEvent === "tool.pre_call") return { stdout: json({ deny: true, deny_reason: verdict.block }), queue: verdict.context, deliveredQueue: false };
  if (!COMPOZY_CONTEXT_EVENTS.has(nativeEvent)) return { stdout: "{}\n", queue: verdict.context, deliveredQueue: false };
  const text = pendingContext(queued, verdict);
  if (text === null) return { stdout: "{}\n", queue: null, deliveredQueue: false };
  const existing = Array.isArray(payload["context_blocks"]) ? payload["context_blocks"] : [];
  return { stdout: json({ context_blocks: [...existing, { kind: "comity", text }] }), queue: null, deliveredQueue: queued.length > 0 };
}

/**
 * omp's handler results, which Comity's extension returns as they are:
 * `{block: true, reason}` on tool_call; `{additionalContext}` on
 * session_start, before_agent_start, tool_call and tool_result. Not on
 * session_stop, where context would make the agent go on.
 */
function renderForOmp(nativeEvent: string, verdict: HookVerdict, queued: readonly string[]): Rendered {
  if (verdict.block !== null && nativeEvent === "tool_call") return { stdout: `${JSON.stringify({ block: true, reason: verdict.block })}\n`, queue: verdict.context, deliveredQueue: false };
  if (!["session_start", "before_agent_start", "tool_call", "tool_result"].includes(nativeEvent)) return { stdout: "", queue: verdict.context, deliveredQueue: false };
  const text = pendingContext(queued, verdict);
  if (text === null) return { stdout: "", queue: null, deliveredQueue: false };
  return { stdout: `${JSON.stringify({ additionalContext: text })}\n`, queue: null, deliveredQueue: queued.length > 0 };
}
