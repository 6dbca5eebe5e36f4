import { groupChanges, groupName, groupWhy, publicNamesOfGroup, stateOf } from "../change-groups.js";
import { ago, code, describeSession, listSome, quoted } from "../coordination-text.js";
import { ACTIVE_OTHER, activeOtherParams, BREAKING_HISTORY_MS, type Coordination, type Outcome, SESSION_COLS, type SessionRow } from "../coordination.js";
import { deliverQueued } from "./deliver-queued.js";
import { CHANGE_COLS, type ChangeRow, packageChanges } from "../rows/change-rows.js";
import { uniqueSorted } from "../rows/sql-rows.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { marks } from "../../store/database.js";
import { isContractKey, packageLabel } from "../../packages/package-of-import.js";

/** `session_start`: who else is active in this repo and on what, the recent breaking changes, and queued notices. */
export async function atSessionStart(c: Coordination): Promise<Outcome> {
  // The packages the repo depends on, as its manifests say now: in-flight breaking changes to them are news.
  const brief = await briefing(c, uniqueSorted(c.request.repo.dependencies ?? []));
  const queued = await deliverQueued(c, "## Comity update — system-generated");
  const text = [brief, queued.inject_context].filter((t): t is string => t !== null).join("\n\n");
  return { ...queued, inject_context: text === "" ? null : text };
}

export async function briefing(c: Coordination, dependencies: readonly string[]): Promise<string | null> {
  const others = await c.sql.all<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions s WHERE ${ACTIVE_OTHER} ORDER BY s.started_at, s.external_id, s.id LIMIT 10`, activeOtherParams(c));
  const lines: string[] = [];
  // Their files and symbols for all of them at once (two statements, not two a session).
  const ids = others.map((o) => o.id);
  const filesOf = new Map<string, string[]>();
  const symbolsOf = new Map<string, { q: string; compatibility: string }[]>();
  if (ids.length > 0) {
    const fileRows = await c.sql.all<{ session_id: string; path: string }>(
      `SELECT session_id, path FROM session_files WHERE session_id IN (${marks(ids)})
       UNION SELECT i.session_id, ip.path FROM intent_paths ip JOIN intents i ON i.team_id = ip.team_id AND i.number = ip.intent_number JOIN sessions s ON s.id = i.session_id
       WHERE i.session_id IN (${marks(ids)}) AND i.released_at IS NULL AND i.created_at >= s.started_at ORDER BY session_id, path`,
      [...ids, ...ids],
    );
    for (const r of fileRows) appendTo(filesOf, r.session_id, r.path);
    const symbolRows = await c.sql.all<{ session_id: string; q: string; compatibility: string }>(
      `SELECT session_id, qualified_name AS q, MIN(compatibility) AS compatibility FROM symbol_changes WHERE session_id IN (${marks(ids)})
       GROUP BY session_id, qualified_name ORDER BY session_id, qualified_name`,
      ids,
    );
    for (const r of symbolRows) appendTo(symbolsOf, r.session_id, { q: r.q, compatibility: r.compatibility });
  }
  for (const o of others) {
    const files = filesOf.get(o.id) ?? [];
    const symbols = symbolsOf.get(o.id) ?? [];
    const parts = [`- ${describeSession(o)}, since ${ago(Number(o.started_at), c.now)}`];
    if (files.length > 0) parts.push(`files ${listSome(files, 8)}`);
    // Breaking first ("breaking" < "compatible" < "internal" is also their alphabetical order).
    const ordered = [...symbols].sort((a, b) => compareStrings(a.compatibility, b.compatibility) || compareStrings(a.q, b.q));
    if (ordered.length > 0)
      parts.push(
        `symbols ${listSome(
          ordered.map((s) => (s.compatibility === "breaking" ? `${code(s.q)} (breaking)` : code(s.q))),
          8,
          false,
        )}`,
      );
    lines.push(parts.join("; ") + (o.status_excerpt ? `. Last status: ${quoted(o.status_excerpt)}` : ""));
  }
  // A breaking change is news while its author is active, or once it is committed: one left behind by a session
  // that ended without committing it is gone with that session.
  const breaking = await c.sql.all<ChangeRow>(
    `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
     WHERE sc.repo_id = ? AND sc.compatibility = 'breaking' AND sc.created_at >= ? AND sc.session_id <> ?
       AND (sc.state = 'committed' OR (s.ended_at IS NULL AND s.last_seen_at >= ?))
     ORDER BY sc.created_at DESC, sc.path, sc.qualified_name LIMIT 20`,
    [c.repoId, c.now - BREAKING_HISTORY_MS, c.session.id, c.now - c.leaseMs],
  );
  // Across packages: in-flight breaking changes, made in other repos, to packages this repo depends on.
  const upstream = groupChanges((await packageChanges(c, dependencies)).filter((x) => x.repo_id !== c.repoId)).filter((g) => publicNamesOfGroup(g).length > 0);
  if (lines.length === 0 && breaking.length === 0 && upstream.length === 0) return null;
  const out = ["## Comity briefing — system-generated"];
  if (lines.length > 0) out.push("Other active sessions in this repo:", ...lines);
  if (breaking.length > 0) {
    out.push(`Breaking changes in the last ${BREAKING_HISTORY_MS / 3_600_000} hours:`);
    for (const g of groupChanges(breaking).reverse().slice(0, 10))
      out.push(`- ${groupName(g)} in ${code(g.path)} by ${describeSession(g.author)}, ${ago(g.at, c.now)}: ${groupWhy(g)} (${stateOf(g)})`);
  }
  if (upstream.length > 0) {
    out.push("Breaking changes in progress in packages this repo depends on:");
    for (const g of upstream.reverse().slice(0, 10)) {
      out.push(
        `- ${listSome(publicNamesOfGroup(g), 4)} of ${isContractKey(g.package ?? "") ? packageLabel(g.package ?? "") : code(packageLabel(g.package ?? ""))} (${code(g.path)}) by ${describeSession(g.author)}, ${ago(g.at, c.now)}: ${groupWhy(g)} (${stateOf(g)})`,
      );
    }
  }
  return out.join("\n");
}

/** Adds `value` to the list at `key` (in place: a list per session may be thousands of files long). */
function appendTo<T>(lists: Map<string, T[]>, key: string, value: T): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}
