import type { PackageInfo } from "../packages/discover-packages.js";
import type { PathChange } from "../snapshot/snapshot.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";

/** What the local briefing of one repo is written from. */
export interface LocalBriefingInput {
  readonly branch: string | null;
  readonly head_sha: string | null;
  readonly base_ref: string | null;
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly changes: ReadonlyArray<PathChange & { readonly symbols?: readonly SymbolChange[] | null }>;
  readonly packages: readonly PackageInfo[];
}

const LETTER: Readonly<Record<PathChange["change"], string>> = { added: "A", modified: "M", deleted: "D", type_changed: "T", mode_changed: "X" };

/**
 * A few lines for an agent about one repo, from what the engine knows:
 * branch and how far HEAD is from its base, uncommitted changes (count and
 * the top paths), the symbols changed in them (breaking first), and the
 * packages they touch. Pure; deterministic.
 *
 * @example
 * buildLocalBriefing(report); // "- On feature/login, 2 commits ahead of origin/main, 1 behind\n- 3 uncommitted changes: ..."
 */
export function buildLocalBriefing(r: LocalBriefingInput, options: { topPaths?: number; topSymbols?: number } = {}): string {
  const lines: string[] = [];
  const base = r.base_ref === null ? null : r.base_ref.replace(/^refs\/(remotes|heads)\//, "");
  const where = r.head_sha === null ? "on an unborn branch" : r.branch === null ? `at a detached HEAD (${r.head_sha.slice(0, 10)})` : `on ${r.branch}`;
  const relation =
    base === null || r.ahead === null || r.behind === null || (r.branch !== null && r.base_ref === `refs/heads/${r.branch}`)
      ? ""
      : r.ahead === 0 && r.behind === 0
        ? `, even with ${base}`
        : `, ${r.ahead} commit${r.ahead === 1 ? "" : "s"} ahead of ${base}${r.behind > 0 ? `, ${r.behind} behind` : ""}`;
  lines.push(`- Working ${where}${relation}`);

  const n = r.changes.length;
  if (n === 0) {
    lines.push("- No uncommitted changes");
  } else {
    const top = options.topPaths ?? 5;
    const shown = r.changes.slice(0, top).map((c) => `${c.path} (${LETTER[c.change]})`);
    lines.push(`- ${n} uncommitted change${n === 1 ? "" : "s"}: ${shown.join(", ")}${n > top ? `, and ${n - top} more` : ""}`);
  }

  const symbolChanges = r.changes.flatMap((c) => (c.symbols ?? []).map((s) => ({ ...s, path: c.path })));
  const order = { breaking: 0, compatible: 1, internal: 2 } as const;
  const notable = symbolChanges.filter((s) => s.compatibility !== "internal").sort((a, b) => order[a.compatibility] - order[b.compatibility]);
  const topSymbols = options.topSymbols ?? 8;
  for (const s of notable.slice(0, topSymbols)) {
    const why = s.reasons.filter((x) => x.verdict === s.compatibility).map((x) => x.code)[0] ?? s.change.toUpperCase();
    const label = s.compatibility === "breaking" ? "Breaking" : "Compatible";
    lines.push(`- ${label}: ${s.kind} ${s.renamed_from === null ? s.qualified_name : `${s.renamed_from} -> ${s.qualified_name}`} in ${s.path} (${why})`);
  }
  if (notable.length > topSymbols) lines.push(`- ${notable.length - topSymbols} more public symbol changes`);
  const internal = symbolChanges.length - notable.length;
  if (internal > 0) lines.push(`- ${internal} internal symbol change${internal === 1 ? "" : "s"} (bodies, private or unexported code)`);

  const touched = r.packages.filter((p) => r.changes.some((c) => p.path === "." || c.path === p.path || c.path.startsWith(`${p.path}/`)));
  // The root package of a workspace is touched by everything: name it only when it is the only one.
  const specific = touched.length > 1 ? touched.filter((p) => p.path !== ".") : touched;
  if (specific.length > 0) lines.push(`- Packages touched: ${specific.map((p) => `${p.name} (${p.path})`).join(", ")}`);
  return `${lines.join("\n")}\n`;
}
