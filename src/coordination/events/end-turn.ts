import type { Coordination } from "../coordination.js";
import { insertRows, uniqueSorted } from "../rows/sql-rows.js";
import type { EvaluateRequest } from "../wire.js";

/** `stop` ends the turn, `session_end` the session: either releases the session's intents. */
export async function endTurn(c: Coordination, request: EvaluateRequest): Promise<void> {
  await c.sql.run("UPDATE intents SET released_at = ? WHERE session_id = ? AND released_at IS NULL", [c.now, c.session.id]);
  await c.sql.run("UPDATE sessions SET turn_ended_at = ? WHERE id = ?", [c.now, c.session.id]);
  if (request.event === "stop" && request.status !== undefined) {
    if (request.status.excerpt !== undefined) await c.sql.run("UPDATE sessions SET status_excerpt = ? WHERE id = ?", [request.status.excerpt, c.session.id]);
    const files = uniqueSorted(request.status.files ?? []);
    await insertRows(
      c.sql,
      "INSERT INTO session_files (session_id, path, updated_at) VALUES",
      files.map((p) => [c.session.id, p, c.now]),
      "ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at",
    );
  }
}
