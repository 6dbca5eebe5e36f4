/** How coordination answers read: short markdown for an agent's context, plain names for people. */

export interface SessionLabel {
  readonly tool: string;
  readonly external_id: string;
  readonly branch: string | null;
}

/** "codex session 0192f0c4 (branch `main`)". */
export function describeSession(s: SessionLabel): string {
  const id = s.external_id.length > 12 ? s.external_id.slice(0, 8) : s.external_id;
  return `${s.tool} session ${id}${s.branch === null ? "" : ` (branch \`${s.branch}\`)`}`;
}

/** "just now", "4 min ago", "3 h ago", "2 days ago". */
export function ago(thenMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - thenMs) / 1000));
  if (s < 60) return "just now";
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

/** At most `max` items, then "and N more". */
export function listSome(items: readonly string[], max: number, quote = true): string {
  const shown = items.slice(0, max).map((i) => (quote ? `\`${i}\`` : i));
  return items.length > max ? `${shown.join(", ")} and ${items.length - max} more` : shown.join(", ");
}

/** The last segment of a qualified name (`Calc.add` → `add`): what a call site names. */
export function simpleName(qualified: string): string {
  const i = qualified.lastIndexOf(".");
  return i === -1 ? qualified : qualified.slice(i + 1);
}
