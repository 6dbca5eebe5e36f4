import type { AnalyzeReport } from "../analyze/analyze-workspace.js";

/** The `--json` document: stable key order (the report is built in it), two-space indent, trailing newline. */
export function formatAnalyzeJson(report: AnalyzeReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** A table a person can scan: one row per repo, then its diagnostics, then folder diagnostics. */
export function formatAnalyzeTable(report: AnalyzeReport, dir: string): string {
  if (report.repos.length === 0 && report.diagnostics.length === 0) return `no git repositories under ${dir}\n`;
  const short = (sha: string | null): string => (sha === null ? "-" : sha.slice(0, 10));
  const header = ["ROOT", "KIND", "BRANCH", "HEAD", "BASE", "REMOTES", "DIAGNOSTICS"];
  const rows = report.repos.map((r) => [
    r.root,
    r.kind,
    r.branch ?? (r.head_sha === null ? "-" : "(detached)"),
    short(r.head_sha),
    short(r.base_sha),
    r.remote_fingerprints.length === 0 ? "none" : r.remote_fingerprints.map((f) => f.slice(0, 8)).join(","),
    String(r.diagnostics.length),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    `${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")}\n`;
  let out = line(header) + rows.map(line).join("");
  const notes = [
    ...report.repos.flatMap((r) => r.diagnostics.map((d) => `${r.root}: ${d.severity} ${d.code}: ${d.message}`)),
    ...report.diagnostics.map((d) => `${d.path ?? "."}: ${d.severity} ${d.code}: ${d.message}`),
  ];
  if (notes.length > 0) out += `\n${notes.join("\n")}\n`;
  return out;
}
