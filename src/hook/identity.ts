import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";

/**
 * A salted SHA-256 of this machine's id (`/etc/machine-id`, else the host
 * name): lets the API tell machines apart without ever seeing the raw id.
 */
export function machineIdHash(): string {
  let id = "";
  for (const f of ["/etc/machine-id", "/var/lib/dbus/machine-id"]) {
    try {
      id = fs.readFileSync(f, "utf8").trim();
      if (id !== "") break;
    } catch {
      // try the next
    }
  }
  if (id === "") id = os.hostname();
  return createHash("sha256").update(`comity-machine-id/1\0${id}`).digest("hex");
}

/** JSON with sorted keys: the same value gives the same text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A hash of one host event as delivered: the same delivery twice gives the same hash. */
export function eventHash(host: string, nativeEvent: string, payload: unknown): string {
  return createHash("sha256")
    .update(`${host}\0${nativeEvent}\0${canonicalJson(payload)}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * The session's turn for this event: a prompt starts a new one, unless it is the very event the session saw last
 * (the host delivering the same prompt twice); every other event belongs to the current turn.
 */
export function turnOf(state: { readonly turn?: number; readonly last?: string }, event: string, hash: string): number {
  const turn = state.turn ?? 0;
  return event === "prompt" && state.last !== hash ? turn + 1 : turn;
}

/**
 * The request's dedupe key, from the event's hash ({@link eventHash}: host, native event and the whole payload,
 * which carries the host's own ids where it sends them: `tool_use_id`, `prompt_id`, `turn_id`, `generation_id`,
 * Copilot CLI's `timestamp`), the repo, and the session's turn. A redelivery of one event gives the same key;
 * the same payload in another turn (a second `Stop` saying "Done.", a prompt typed again on a Claude Code
 * without `prompt_id`) does not.
 */
export function dedupeKey(eventHashHex: string, repoKey: string, turn: number): string {
  return createHash("sha256").update(`${eventHashHex}\0${repoKey}\0${turn}`).digest("hex").slice(0, 32);
}
