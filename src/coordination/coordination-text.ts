/** How coordination answers read: short markdown for an agent's context, plain names for people. */

export interface SessionLabel {
  readonly tool: string;
  readonly external_id: string;
  readonly branch: string | null;
  /** `COMITY_AGENT_NAME`, else the machine's host name. */
  readonly label?: string | null;
  /** The session's folder relative to its repo. */
  readonly cwd_path?: string | null;
  /** Its working tree's folder (`~/work/vite-feature`), for a person to find it. */
  readonly worktree?: string | null;
}

/** Host ids as people write them. */
export const HOST_NAMES: Readonly<Record<string, string>> = {
  claude_code: "Claude Code",
  codex: "Codex",
  cursor: "Cursor",
  copilot: "Copilot CLI",
  omp: "omp",
  compozy: "CompozyOS",
};

/**
 * Enough for a person to find the other agent: host, short session id, label, branch, its working tree's folder and
 * its folder in it. `Codex session 0192f0c4 ("alice-laptop", branch `main`, in `~/work/api-feature` at `packages/api`)`.
 */
export function describeSession(s: SessionLabel): string {
  const id = shortSessionId(s.external_id);
  const parts: string[] = [];
  if (s.label != null && s.label !== "") parts.push(quoted(s.label, 64));
  if (s.branch !== null) parts.push(`branch ${code(s.branch, 120)}`);
  const inside = s.cwd_path != null && s.cwd_path !== "" && s.cwd_path !== "." ? s.cwd_path : null;
  if (s.worktree != null && s.worktree !== "") parts.push(`in ${code(s.worktree, 120)}${inside === null ? "" : ` at ${code(inside)}`}`);
  else if (s.cwd_path != null && s.cwd_path !== "") parts.push(inside === null ? "at the repo root" : `in ${code(inside)}`);
  return `${HOST_NAMES[s.tool] ?? oneLine(s.tool, 32)} session ${oneLine(id, 16)}${parts.length === 0 ? "" : ` (${parts.join(", ")})`}`;
}

/**
 * Text that came from another session (a label, a branch, a path, a symbol name, a change's reason, a status
 * excerpt), made one line of data: control and format characters (line breaks, bidirectional overrides) become
 * spaces, runs of spaces one, and the rest is cut at `max` characters with an ellipsis. It can never start a line of
 * its own, so never reads as a heading or an instruction of Comity's.
 */
export function oneLine(text: string, max = 200): string {
  const flat = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join("")}…`;
}

/** {@link oneLine} as inline code (a path, a name, a branch): a backtick inside cannot end it. */
export function code(text: string, max = 200): string {
  return `\`${oneLine(text, max).replace(/`/g, "'")}\``;
}

/** {@link oneLine} in double quotes (a label, a reason, a status excerpt): a quote inside cannot end them. */
export function quoted(text: string, max = 200): string {
  return `"${oneLine(text, max).replace(/"/g, "'")}"`;
}

/** A session id as people are shown it: a long one (a UUID) by its first 8 characters, a short one whole. */
export function shortSessionId(externalId: string): string {
  return externalId.length > 12 ? externalId.slice(0, 8) : externalId;
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
  const shown = items.slice(0, max).map((i) => (quote ? code(i) : oneLine(i)));
  return items.length > max ? `${shown.join(", ")} and ${items.length - max} more` : shown.join(", ");
}

/** The last segment of a qualified name (`Calc.add` → `add`): what a call site names. */
export function simpleName(qualified: string): string {
  const i = qualified.lastIndexOf(".");
  return i === -1 ? qualified : qualified.slice(i + 1);
}
