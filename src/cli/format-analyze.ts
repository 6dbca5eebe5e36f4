import { alignColumns } from "./align-columns.js";
import type { AnalyzeReport } from "../analyze/analyze-workspace.js";

/** The `--json` document: stable key order (the report is built in it), two-space indent, trailing newline. */
export function formatAnalyzeJson(report: AnalyzeReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** ANSI colours, only when asked (a TTY without NO_COLOR). */
export interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function paint(enabled: boolean): Paint {
  const wrap =
    (code: number) =>
    (s: string): string =>
      enabled ? `\u001b[${code}m${s}\u001b[0m` : s;
  return { red: wrap(31), yellow: wrap(33), dim: wrap(2), bold: wrap(1) };
}

/**
 * What a person scans: one aligned row per repo, then the public symbol
 * changes of each analysed repo (breaking first), diagnostics, and the merged
 * briefing.
 */
export function formatAnalyzeTable(report: AnalyzeReport, dir: string, p: Paint = paint(false)): string {
  if (report.repos.length === 0 && report.diagnostics.length === 0) return `no git repositories under ${dir}\n`;
  const short = (sha: string | null): string => (sha === null ? "-" : sha.slice(0, 10));
  const header = ["ROOT", "KIND", "BRANCH", "HEAD", "BASE", "AHEAD/BEHIND", "CHANGES", "REMOTES", "DIAGNOSTICS"];
  const rows = report.repos.map((r) => [
    r.root,
    r.kind,
    r.branch ?? (r.head_sha === null ? "-" : "(detached)"),
    short(r.head_sha),
    short(r.base_sha),
    r.ahead === null || r.behind === null ? "-" : `+${r.ahead}/-${r.behind}`,
    r.analysed ? String(r.changes.length) : "-",
    r.remote_fingerprints.length === 0 ? "none" : r.remote_fingerprints.map((f) => f.slice(0, 8)).join(","),
    String(r.diagnostics.length),
  ]);
  const [head, ...lines] = alignColumns([header, ...rows]);
  let out = `${p.bold(head ?? "")}\n${lines.map((l) => `${l}\n`).join("")}`;

  const order = { breaking: 0, compatible: 1, internal: 2 } as const;
  for (const r of report.repos) {
    const symbolLines = r.changes
      .flatMap((c) => (c.symbols ?? []).filter((s) => s.compatibility !== "internal").map((s) => ({ ...s, file: c.path })))
      .sort((a, b) => order[a.compatibility] - order[b.compatibility] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    if (symbolLines.length === 0) continue;
    out += `\n${p.bold(r.root)}\n`;
    for (const s of symbolLines) {
      const verdict = s.compatibility === "breaking" ? p.red("breaking  ") : p.yellow("compatible");
      const reasons = s.reasons.map((x) => x.code + (x.conservative ? "?" : "")).join(", ");
      out += `  ${verdict}  ${s.change.padEnd(17)} ${s.kind.padEnd(11)} ${s.qualified_name}  ${p.dim(`${s.file}${reasons === "" ? "" : `: ${reasons}`}`)}\n`;
    }
  }
  const notes = [
    // Each said where it is: the file when it has one (one repo can have several empty manifests), else the repo.
    ...report.repos.flatMap((r) => r.diagnostics.map((d) => `${d.path ?? r.root}: ${d.severity} ${d.code}: ${d.message}`)),
    ...report.diagnostics.map((d) => `${d.path ?? "."}: ${d.severity} ${d.code}: ${d.message}`),
  ];
  if (notes.length > 0) out += `\n${notes.join("\n")}\n`;
  if (report.briefing !== "") out += `\n${p.bold("Briefing")}\n${report.briefing}`;
  return out;
}
