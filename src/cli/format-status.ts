import { ago, describeSession, HOST_NAMES, oneLine, quoted, shortSessionId } from "../coordination/coordination-text.js";
import type { StatusReport } from "../coordination/read-status.js";
import { alignColumns } from "./align-columns.js";

/**
 * `comity status` for a terminal: where coordination happens, a table of the active sessions, what each holds
 * and changed, then the open collisions. Colour only when `colour` (a TTY without NO_COLOR). What other sessions
 * sent (labels, branches, paths, names) is shown as one line of data each, without control characters.
 */
export function formatStatus(report: StatusReport, options: { now: number; colour: boolean }): string {
  const { now } = options;
  const paint = (code: string, s: string): string => (options.colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const bold = (s: string) => paint("1", s);
  const dim = (s: string) => paint("2", s);
  const red = (s: string) => paint("31", s);
  const yellow = (s: string) => paint("33", s);
  const out: string[] = [];
  if (report.mode === "off") return "Coordination is off (COMITY_API_URL=off): hooks give session-start briefings only.\n";
  out.push(`${bold("Coordination")}: ${report.mode === "embedded" ? `this machine (embedded store ${report.source})` : `team API ${report.source}`}`);
  const untold = report.conflicts.filter((c) => !c.told).length;
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  out.push(
    `${plural(report.sessions.length, "active session")}, ${plural(report.conflicts.length, "open conflict")}${untold > 0 ? ` (${untold} not told yet)` : ""}${report.repos === null ? "" : `, in ${plural(report.repos.length, "repo")} asked about`}`,
  );
  if (report.sessions.length === 0) return `${out.join("\n")}\n`;

  const names = new Map(report.sessions.map((s) => [s.session_id, nameOf(s)]));
  const rows = report.sessions.map((s) => {
    const breaking = s.changes.filter((c) => c.compatibility === "breaking").length;
    return [
      names.get(s.session_id) ?? "?",
      HOST_NAMES[s.tool] ?? oneLine(s.tool, 32),
      s.branch === null ? "-" : oneLine(s.branch, 60),
      folderOf(s),
      ago(Date.parse(s.started_at), now),
      ago(Date.parse(s.last_seen_at), now),
      String(new Set([...s.intents.flatMap((i) => i.paths), ...s.files]).size),
      s.changes.length === 0 ? "-" : `${s.changes.length}${breaking > 0 ? ` (${breaking} breaking)` : ""}`,
      s.queued === 0 ? "-" : String(s.queued),
    ];
  });
  const head = ["SESSION", "HOST", "BRANCH", "FOLDER", "SINCE", "LAST SEEN", "FILES", "CHANGED", "QUEUED"];
  out.push("", ...table(head, rows, bold));
  for (const s of report.sessions) {
    const held = [...new Set(s.intents.flatMap((i) => i.paths))].sort();
    const lines: string[] = [];
    if (held.length > 0) lines.push(`  holds   ${list(held, 8)}`);
    const other = s.files.filter((f) => !held.includes(f));
    if (other.length > 0) lines.push(`  touched ${list(other, 8)}`);
    // (a report of an older server has no reservations)
    for (const r of s.reservations ?? [])
      lines.push(
        `  reserved ${oneLine(r.pattern)} (${r.ref}, ${r.exclusive ? "exclusive" : "shared"}, until ${r.expires_at})${r.reason === null || r.reason === "" ? "" : `: ${quoted(r.reason, 200)}`}`,
      );
    for (const c of s.changes.slice(0, 8)) {
      const tag = c.compatibility === "breaking" ? red("breaking") : c.compatibility === "compatible" ? "compatible" : dim("internal");
      lines.push(`  changed ${oneLine(c.qualified_name)} in ${oneLine(c.path)} (${oneLine(c.change, 32)}, ${tag}${c.state === "committed" ? ", committed" : ""})`);
    }
    if (s.changes.length > 8) lines.push(`          and ${s.changes.length - 8} more changes`);
    for (const m of s.messages ?? []) lines.push(`  message from ${oneLine(m.from, 120)}, ${ago(Date.parse(m.at), now)}: ${quoted(m.text, 200)} (${m.delivered ? "given" : "not given yet"})`);
    if (lines.length > 0) out.push("", `${bold(names.get(s.session_id) ?? "?")} ${dim(describeSession(s))}`, ...lines);
  }
  if (report.conflicts.length > 0) {
    const crows = report.conflicts.map((c) => [
      c.ref,
      c.kind,
      oneLine(c.subject, 60),
      names.get(c.session_id) ?? c.session_id.slice(0, 8),
      names.get(c.other_session_id) ?? c.other_session_id.slice(0, 8),
      c.told ? "yes" : yellow("not yet"),
    ]);
    out.push("", bold("Open conflicts"), ...table(["REF", "KIND", "SUBJECT", "AFFECTS", "WITH", "TOLD"], crows, bold));
  }
  return `${out.join("\n")}\n`;
}

/** A session's short name: its label and id (`alice 0192f0c4`), a subagent's marked. */
function nameOf(s: StatusReport["sessions"][number]): string {
  const id = shortSessionId(s.external_id);
  const label = s.label !== null && s.label !== "" ? `${oneLine(s.label, 40)} ` : "";
  return `${label}${id}${s.parent_external_id !== null ? " (subagent)" : ""}`;
}

/** At most `max` items (each one line of data: another session's text never moves the terminal), then how many more. */
function list(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).map((i) => oneLine(i));
  return items.length > max ? `${shown.join(", ")} and ${items.length - max} more` : shown.join(", ");
}

/** A table with its head in bold. */
function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>, bold: (s: string) => string): string[] {
  const [first, ...rest] = alignColumns([head, ...rows]);
  return [bold(first ?? ""), ...rest];
}

/** Where a session works, for a person to find it: its working tree's folder, and its folder in it. */
function folderOf(s: StatusReport["sessions"][number]): string {
  const inside = s.cwd_path !== null && s.cwd_path !== "." ? s.cwd_path : null;
  if (s.worktree != null) return oneLine(inside === null ? s.worktree : `${s.worktree} (${inside})`, 80);
  return s.cwd_path === null ? "-" : oneLine(s.cwd_path, 60);
}
