import type { Sql } from "../store/database.js";
import { marks } from "../store/database.js";
import { sessionOf } from "./reservations.js";

/** `POST /v1/inbox`: the messages left for the session `session` (its external id) of the repo; those not given yet are given now. */
export interface InboxRequest {
  readonly repo: { readonly remote_fingerprints: readonly string[] };
  readonly session: string;
}

export interface InboxAnswer {
  /** The latest messages, oldest first; `delivered`: whether the session had been given it before this read. */
  readonly messages: ReadonlyArray<{ readonly from: string; readonly text: string; readonly at: string; readonly delivered: boolean }>;
}

/** How many of a session's latest messages a read shows. */
const SHOWN = 20;

export const INBOX_REQUEST_SCHEMA = {
  $id: "https://comity.dev/schema/inbox-request.json",
  type: "object",
  required: ["repo", "session"],
  properties: {
    repo: {
      type: "object",
      required: ["remote_fingerprints"],
      properties: { remote_fingerprints: { type: "array", maxItems: 32, items: { type: "string", pattern: "^[0-9a-f]{16,128}$" } } },
    },
    session: { type: "string", minLength: 1, maxLength: 512 },
  },
} as const;

/**
 * A session's inbox read by the agent itself (the MCP server's `inbox`): its latest messages, and the ones it had not
 * been given marked given, so that its hooks do not give them again at its next event.
 */
export async function readInbox(sql: Sql, scope: { readonly teamId: string; readonly now: number; readonly leaseMs: number }, request: InboxRequest): Promise<InboxAnswer> {
  const session = await sessionOf(sql, scope, request.repo.remote_fingerprints, request.session);
  const rows = await sql.all<{ id: string; sender: string | null; text: string; created_at: number; delivered_at: number | null }>(
    `SELECT id, sender, text, created_at, delivered_at FROM notices WHERE team_id = ? AND session_id = ? ORDER BY created_at DESC, id DESC LIMIT ${SHOWN}`,
    [scope.teamId, session.id],
  );
  const fresh = rows.filter((r) => r.delivered_at === null).map((r) => r.id);
  if (fresh.length > 0) await sql.run(`UPDATE notices SET delivered_at = ? WHERE team_id = ? AND id IN (${marks(fresh)})`, [scope.now, scope.teamId, ...fresh]);
  return {
    messages: rows.reverse().map((r) => ({ from: r.sender ?? "someone", text: r.text, at: new Date(Number(r.created_at)).toISOString(), delivered: r.delivered_at !== null })),
  };
}
