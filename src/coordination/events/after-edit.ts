import { coveredInRepo, describeGroup, groupChanges, namesOf, publicNamesOfGroup, reachOfGroup } from "../change-groups.js";
import { code, describeSession } from "../coordination-text.js";
import { ACTIVE_OTHER, activeOtherParams, type Coordination, type Outcome, SESSION_COLS, type SessionRow, type Wanted } from "../coordination.js";
import { breakingUsedIn } from "./before-edit.js";
import { deliverQueued } from "./deliver-queued.js";
import { breakingInformed, breakingWanted, crossRepoInformed, crossRepoWanted, overlapBody } from "../messages.js";
import { CHANGE_COLS, type ChangeRow, othersChanges, reconcileChanges } from "../rows/change-rows.js";
import { recordConflicts } from "../rows/conflict-rows.js";
import { holdersOf } from "../rows/holder-rows.js";
import { familyReps } from "../rows/session-rows.js";
import { insertRows, uniqueRows, uniqueSorted } from "../rows/sql-rows.js";
import { expandImports, packageUseReaches, filesUsing, importTarget, stemSuffixes } from "../uses-symbol.js";
import type { EvaluateRequest } from "../wire.js";
import { editCollision } from "../edit-collision.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { packageKey, packageOfImport } from "../../packages/package-of-import.js";
import { marks } from "../../store/database.js";

/** `post_edit`: the session's files, symbols, uses and changes; who its breaking changes reach; what it now uses. */
export async function afterEdit(c: Coordination, request: EvaluateRequest): Promise<Outcome> {
  const analyses = request.analysis ?? [];
  // A file the hook found equal to its base (no line differs: a Write of the same bytes, an edit undone) is not being
  // changed by this session, whatever it was before: it is no longer one of its files. Its analysis still runs below,
  // so that a change undone reads as such.
  const unchanged = new Set((request.edits ?? []).filter((e) => Array.isArray(e.ranges) && e.ranges.length === 0).map((e) => e.path));
  for (const p of [...unchanged].sort(compareStrings)) await c.sql.run("DELETE FROM session_files WHERE session_id = ? AND path = ?", [c.session.id, p]);
  const touched = uniqueSorted([...(request.paths ?? []), ...analyses.map((a) => a.path)]).filter((p) => !unchanged.has(p));
  // Files changed without an intent first (a shell command nobody could predict): overlaps found now.
  const unforeseen = await holdersOf(c, touched);
  // Where each file now differs from its base (its lines, when the hook could tell): what another session's edit of
  // it may meet.
  const edited = new Map((request.edits ?? []).map((e) => [e.path, e] as const));
  await insertRows(
    c.sql,
    "INSERT INTO session_files (session_id, path, updated_at, base, ranges) VALUES",
    touched.map((p) => {
      const e = edited.get(p);
      return [c.session.id, p, c.now, e?.base ?? null, e?.ranges == null ? null : JSON.stringify(e.ranges)];
    }),
    "ON CONFLICT (session_id, path) DO UPDATE SET updated_at = excluded.updated_at, base = excluded.base, ranges = excluded.ranges",
  );

  const selfNotes: string[] = [];
  const symbols: unknown[][] = [];
  const myChanged: Array<{ path: string; qualified_name: string }> = [];
  for (const a of analyses) {
    if (a.parse_error === true) {
      const n = await c.sql.run("INSERT INTO session_parse_errors (session_id, path, created_at) VALUES (?, ?, ?) ON CONFLICT (session_id, path) DO NOTHING", [c.session.id, a.path, c.now]);
      if (n > 0) selfNotes.push(`- ${code(a.path)} does not parse now: Comity keeps its symbols as they were, and reports no change of it, until it parses again.`);
    } else {
      await c.sql.run("DELETE FROM session_parse_errors WHERE session_id = ? AND path = ?", [c.session.id, a.path]);
      if (a.symbols !== undefined) {
        await c.sql.run("DELETE FROM file_symbols WHERE repo_id = ? AND path = ?", [c.repoId, a.path]);
        const seen = new Set<string>();
        for (const s of a.symbols) {
          if (seen.has(s.qualified_name)) continue;
          seen.add(s.qualified_name);
          symbols.push([c.repoId, a.path, s.qualified_name, s.name, s.kind, s.exported ? 1 : 0]);
        }
      }
      // A file that parses says all it imports (one that does not only adds to what was known).
      if (a.references !== undefined) await c.sql.run("DELETE FROM session_uses WHERE session_id = ? AND path = ?", [c.session.id, a.path]);
      await reconcileChanges(c, a.path, a.changes ?? [], a.package == null ? null : packageKey(a.package.ecosystem, a.package.name));
      for (const ch of a.changes ?? []) myChanged.push({ path: a.path, qualified_name: ch.qualified_name });
    }
    await insertRows(c.sql, "INSERT INTO session_uses (session_id, path, name, module, target, updated_at, package) VALUES", usesOf(c, a), "ON CONFLICT (session_id, path, name, module) DO NOTHING");
  }
  await insertRows(c.sql, "INSERT INTO file_symbols (repo_id, path, qualified_name, name, kind, exported) VALUES", symbols, "ON CONFLICT (repo_id, path, qualified_name) DO NOTHING");

  const wanted: Wanted[] = [];
  // Files this session changed that another active session holds or changed, unforeseen by an intent.
  const existing = await c.sql.all<{ kind: string; other_session_id: string; subject: string }>(
    `SELECT kind, other_session_id, subject FROM conflicts WHERE team_id = ? AND session_id = ? AND kind IN ('edit_conflict', 'file_overlap', 'symbol_overlap')`,
    [c.teamId, c.familyId],
  );
  const holderReps = await familyReps(
    c,
    unforeseen.map((h) => h.family),
    unforeseen,
  );
  const told = new Set(existing.map((e) => `${e.other_session_id}\u0000${e.kind === "symbol_overlap" ? e.subject.slice(0, e.subject.indexOf("#")) : e.subject}`));
  const untoldHolders = unforeseen.filter((h) => !told.has(`${holderReps.get(h.family) ?? h.id}\u0000${h.path}`));
  if (untoldHolders.length > 0) {
    const theirChanges = await othersChanges(c, { paths: uniqueSorted(untoldHolders.map((u) => u.path)) });
    for (const h of untoldHolders) {
      const same = theirChanges.filter((x) => x.id === h.id && x.path === h.path && myChanged.some((m) => m.path === h.path && m.qualified_name === x.qualified_name));
      if (same.length > 0) {
        for (const g of groupChanges(same)) {
          wanted.push({
            kind: "symbol_overlap",
            role: "affected",
            session: c.session,
            other: h,
            subject: `${g.path}#${g.top}`,
            body: `you and ${describeSession(h)} both changed ${describeGroup(g)} in ${code(g.path)}.`,
            paths: [g.path],
            changeAt: g.at,
          });
        }
      } else {
        const kind = editCollision(edited.get(h.path), { base: h.base ?? null, ranges: h.ranges ?? null });
        wanted.push({
          kind,
          role: "affected",
          session: c.session,
          other: h,
          subject: h.path,
          body: overlapBody(c, h, groupChanges(theirChanges.filter((x) => x.id === h.id && x.path === h.path)), kind, edited.get(h.path)),
          paths: [h.path],
          changeAt: Number(h.since),
        });
      }
    }
  }
  // What this session's analysed files use that another session broke.
  wanted.push(
    ...(await breakingUsedIn(
      c,
      analyses.map((a) => a.path),
    )),
  );
  // This session's breaking changes: every other active session that uses them is told, and so is this one.
  const mine =
    touched.length === 0
      ? []
      : await c.sql.all<ChangeRow>(
          `SELECT ${CHANGE_COLS} FROM symbol_changes sc JOIN sessions s ON s.id = sc.session_id
           WHERE sc.session_id = ? AND sc.compatibility = 'breaking' AND sc.path IN (${marks(touched)})
           ORDER BY sc.created_at, sc.path, sc.qualified_name`,
          [c.session.id, ...touched],
        );
  const myGroups = groupChanges(mine);
  const informed: Wanted[] = [];
  if (myGroups.length > 0) {
    // Only the imports that can name a changed file (their target is one of its stems), through the index; each
    // is then checked exactly. Never every import of every active session.
    const names = uniqueSorted([...myGroups.flatMap(namesOf), "*"]);
    const targets = uniqueSorted(myGroups.flatMap((g) => stemSuffixes(g.path)));
    const users: Array<SessionRow & { path: string; name: string; module: string }> = [];
    for (let i = 0; i < names.length; i += 200) {
      const chunk = names.slice(i, i + 200);
      users.push(
        ...(await c.sql.all<SessionRow & { path: string; name: string; module: string }>(
          `SELECT su.path, su.name, su.module, ${SESSION_COLS} FROM session_uses su CROSS JOIN sessions s
           WHERE su.target IN (${marks(targets)}) AND su.name IN (${marks(chunk)}) AND s.id = su.session_id AND ${ACTIVE_OTHER}`,
          [...targets, ...chunk, ...activeOtherParams(c)],
        )),
      );
    }
    const bySession = new Map<string, { row: SessionRow; imports: Array<{ path: string; name: string; module: string | null }> }>();
    for (const u of users) {
      const e = bySession.get(u.id) ?? { row: u, imports: [] };
      e.imports.push({ path: u.path, name: u.name, module: u.module === "" ? null : u.module });
      bySession.set(u.id, e);
    }
    for (const g of myGroups) {
      for (const id of [...bySession.keys()].sort(compareStrings)) {
        const { row, imports } = bySession.get(id) as { row: SessionRow; imports: Array<{ path: string; name: string; module: string | null }> };
        const callers = filesUsing(imports, g.path, namesOf(g));
        if (callers.length === 0) continue;
        wanted.push(breakingWanted(row, { ...g, author: c.session }, callers));
        informed.push(breakingInformed(c.session, g, row, callers));
      }
    }
  }
  // Across packages: every other active session of the team whose code imports a public name of these changes.
  for (const g of myGroups) {
    const names = g.package === null ? [] : publicNamesOfGroup(g);
    if (names.length === 0) continue;
    const rows = await c.sql.all<SessionRow & { path: string; name: string; module: string }>(
      `SELECT su.path, su.name, su.module, ${SESSION_COLS} FROM session_uses su JOIN sessions s ON s.id = su.session_id
       WHERE su.package = ? AND su.name IN (${marks([...names, "*"])}) AND s.team_id = ? AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?`,
      [g.package, ...names, "*", c.teamId, c.now - c.leaseMs, c.family],
    );
    const bySession = new Map<string, { row: SessionRow; uses: Array<{ path: string; name: string; module: string }> }>();
    for (const r of rows) {
      if (!coveredInRepo(r, { ...g, author: c.session }, r)) bySession.set(r.id, { row: r, uses: [...(bySession.get(r.id)?.uses ?? []), { path: r.path, name: r.name, module: r.module }] });
    }
    for (const id of [...bySession.keys()].sort(compareStrings)) {
      const { row, uses } = bySession.get(id) as { row: SessionRow; uses: Array<{ path: string; name: string; module: string }> };
      for (const { shown, names: reach } of reachOfGroup(g)) {
        const files = uniqueSorted(uses.filter((u) => reach.some((name) => packageUseReaches(u, name, g.path))).map((u) => u.path));
        if (files.length === 0) continue;
        wanted.push(crossRepoWanted(row, { ...g, author: c.session }, shown, files));
        informed.push(crossRepoInformed(c.session, g, shown, row, files));
      }
    }
  }
  await recordConflicts(c, [...wanted, ...informed]);
  const delivered = await deliverQueued(c, "## Comity — coordination warning");
  if (selfNotes.length === 0) return delivered;
  const notes = `## Comity — note\n${selfNotes.join("\n")}`;
  return {
    ...delivered,
    decision: delivered.decision === "allow" ? "warn" : delivered.decision,
    inject_context: delivered.inject_context === null ? notes : `${delivered.inject_context}\n\n${notes}`,
  };
}

function usesOf(c: Coordination, a: NonNullable<EvaluateRequest["analysis"]>[number]): unknown[][] {
  const refs = [...(a.references ?? []), ...(a.new_references ?? [])].filter((r) => (r.kind === "import" || r.kind === "export") && r.module != null && r.module !== "");
  const uses = expandImports(refs.map((r) => ({ path: a.path, name: r.name, module: r.module ?? null })));
  return uniqueRows(uses.map((r) => [c.session.id, a.path, r.name, r.module ?? "", importTarget(a.path, r.module ?? ""), c.now, packageOfImport(a.path, r.module ?? "")]));
}
