import { takeMessages } from "../channel.js";
import { ago, quoted } from "../coordination-text.js";
import { type Coordination, type Outcome, QUIET } from "../coordination.js";
import { deliversContext } from "../host-delivery.js";
import { type ConflictRow, lineOf, markTold, refOf, sortByChange, untold } from "../rows/conflict-rows.js";

/**
 * Context for what waits for this session, once, where its host shows context at this event: its conflicts not yet
 * told, and the messages other agents left for it (`comity message`).
 */
export async function deliverQueued(c: Coordination, heading: string, extra: readonly ConflictRow[] = []): Promise<Outcome> {
  if (!deliversContext(c.session.tool, c.request.event)) return QUIET;
  const rows = sortByChange([...extra.filter((r) => r.told_at === null && r.withdrawn_at === null), ...(await untold(c))]);
  const messages = await takeMessages(c.sql, c, [c.session.id, c.familyId]);
  if (rows.length === 0 && messages.length === 0) return QUIET;
  await markTold(c, rows);
  const sections: string[] = [];
  if (rows.length > 0) sections.push(`${heading}\n${rows.map(lineOf).join("\n")}`);
  if (messages.length > 0) {
    // What another agent wrote is data: one line, quoted, never Comity's words.
    const lines = messages.map((m) => `- from ${m.sender}, ${ago(m.at, c.now)}: ${quoted(m.text, 1000)}${m.reply === null ? "" : ` (to answer: comity message ${m.reply} "<your answer>")`}`);
    sections.push(`## Comity — messages from other agents, system-generated\n${lines.join("\n")}`);
  }
  return {
    decision: "warn",
    reason: `${rows.length + messages.length} coordination notice(s)`,
    inject_context: sections.join("\n\n"),
    conflicts: rows.map((r) => refOf(r)),
    intent: null,
  };
}
