import { type Coordination, type Outcome, QUIET } from "../coordination.js";
import { deliversContext } from "../host-delivery.js";
import { type ConflictRow, lineOf, markTold, refOf, sortByChange, untold } from "../rows/conflict-rows.js";

/** Context for the queued conflicts of this session, once, where its host shows context at this event. */
export async function deliverQueued(c: Coordination, heading: string, extra: readonly ConflictRow[] = []): Promise<Outcome> {
  if (!deliversContext(c.session.tool, c.request.event)) return QUIET;
  const rows = sortByChange([...extra.filter((r) => r.told_at === null && r.withdrawn_at === null), ...(await untold(c))]);
  if (rows.length === 0) return QUIET;
  await markTold(c, rows);
  return {
    decision: "warn",
    reason: `${rows.length} coordination notice(s)`,
    inject_context: `${heading}\n${rows.map(lineOf).join("\n")}`,
    conflicts: rows.map((r) => refOf(r)),
    intent: null,
  };
}

