import type { EventName } from "./wire.js";

/**
 * Whether context the core answers at this event reaches the agent's model
 * (directly, or queued by the hook for the host's next event that shows
 * context): `docs/hooks.md` says Cursor shows context only at session start and
 * Copilot CLI never does, while Claude Code, Codex, omp and CompozyOS show it
 * (Claude Code's and CompozyOS's pre-tool context waits in the hook's queue).
 * A notice is marked told only where it reaches the model; elsewhere it waits
 * for a denial before a related edit.
 */
export function deliversContext(host: string, event: EventName): boolean {
  if (event === "stop" || event === "session_end" || event === "pre_push") return false;
  if (host === "copilot") return false;
  if (host === "cursor") return event === "session_start";
  return true;
}
