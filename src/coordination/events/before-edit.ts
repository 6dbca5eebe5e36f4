import { coveredInRepo, groupChanges, namesOf, reachOfGroup } from "../change-groups.js";
import { type Coordination, type Outcome, QUIET, type Wanted } from "../coordination.js";
import { deliverQueued } from "./deliver-queued.js";
import { breakingInformed, breakingWanted, crossRepoInformed, crossRepoWanted, joinedBody, overlapBody } from "../messages.js";
import { editCollision } from "../edit-collision.js";
import { othersChanges, packageChanges } from "../rows/change-rows.js";
import { lineOf, markTold, recordConflicts, refOf, sortByChange, untold } from "../rows/conflict-rows.js";
import { holdersOf } from "../rows/holder-rows.js";
import { minutesLeft, reservationsMeeting } from "../reservations.js";
import { code, describeSession, quoted } from "../coordination-text.js";
import { insertRows, nextNumber, uniqueRows, uniqueSorted } from "../rows/sql-rows.js";
import { expandImports, packageUseReaches, filesUsing, importTarget } from "../uses-symbol.js";
import { packageOfImport } from "../../packages/package-of-import.js";
import { marks } from "../../store/database.js";

/** `pre_edit` / `pre_shell`: who else holds or changed these files, which in-flight breaking changes they use. */
export async function beforeEdit(c: Coordination, paths: string[]): Promise<Outcome> {
  if (paths.length === 0) return QUIET;
  const pathSet = new Set(paths);
  const hints = (c.request.uses ?? []).filter((u) => pathSet.has(u.path));
  await insertRows(
    c.sql,
    "INSERT INTO session_uses (session_id, path, name, module, target, updated_at, package) VALUES",
    uniqueRows(
      expandImports(hints.map((u) => ({ path: u.path, name: u.name, module: u.module ?? null }))).map((u) => [
        c.session.id,
        u.path,
        u.name,
        u.module ?? "",
        importTarget(u.path, u.module ?? ""),
        c.now,
        packageOfImport(u.path, u.module ?? ""),
      ]),
    ),
    "ON CONFLICT (session_id, path, name, module) DO NOTHING",
  );

  const holders = await holdersOf(c, paths);
  const theirChanges = groupChanges(await othersChanges(c, { paths }));
  // Where this edit lands in each file (what the hook could tell; a shell command's files: not known).
  const mine = new Map((c.request.edits ?? []).map((e) => [e.path, e] as const));
  const kinds = holders.map((h) => editCollision(mine.get(h.path), { base: h.base ?? null, ranges: h.ranges ?? null }));
  const wanted: Wanted[] = holders.map((h, i) => ({
    kind: kinds[i] as "edit_conflict" | "file_overlap",
    role: "affected",
    session: c.session,
    other: h,
    subject: h.path,
    body: overlapBody(
      c,
      h,
      theirChanges.filter((g) => g.path === h.path && g.author.id === h.id),
      kinds[i] as "edit_conflict" | "file_overlap",
      mine.get(h.path),
    ),
    paths: [h.path],
    changeAt: Number(h.since),
  }));
  // Other sessions' reservations of these files: exclusive ones deny as the policy says, shared ones are told.
  const reserved = await reservationsMeeting(c, paths);
  wanted.push(
    ...reserved.map(({ reservation: r, paths: met }) => ({
      kind: Number(r.exclusive) === 1 ? ("reserved" as const) : ("reserved_shared" as const),
      role: "affected" as const,
      session: c.session,
      other: r,
      subject: `RSV-${r.number}`,
      body: reservedBody(c, r, met),
      paths: met,
      changeAt: Number(r.created_at),
    })),
  );
  wanted.push(...(await breakingUsedIn(c, paths)));
  const rows = await recordConflicts(c, wanted);
  // recordConflicts answers in the order asked: the first rows are the holders' overlaps, one each, then the
  // reservations met. The block policy denies an edit that meets lines another session holds, not one apart from
  // them, and every edit of a file another session reserved exclusively.
  const heldRows = [
    ...rows.slice(0, holders.length).filter((_, i) => Number(holders[i]?.held) === 1 && kinds[i] === "edit_conflict"),
    ...rows.slice(holders.length, holders.length + reserved.length).filter((r) => r.kind === "reserved"),
  ];

  // What this edit must tell: its new and untold conflicts, and those queued earlier that concern these files.
  const queued = (await untold(c)).filter((r) => r.role === "affected" && (JSON.parse(r.paths) as string[]).some((p) => pathSet.has(p)));
  const toTell = sortByChange([...rows, ...queued].filter((r) => r.role === "affected" && r.told_at === null && r.withdrawn_at === null));
  // A file_overlap (edits apart, merging cleanly) and a shared reservation are told as context, never denied.
  const denying = toTell.filter((r) => r.kind !== "file_overlap" && r.kind !== "reserved_shared");
  const blocked = c.policy === "block" && heldRows.length > 0;
  // first_contact and block deny once what this session was not told; block also denies a held file every time.
  // (an edit whose answer came too late went on: it is recorded as allowed, and what it meets is told next time)
  if (c.unheard !== true && (blocked || (denying.length > 0 && c.policy !== "advisory"))) {
    await markTold(c, toTell);
    const shown = sortByChange(blocked ? [...heldRows, ...toTell] : toTell);
    const advice = blocked
      ? "Your team's policy (block) denies editing lines another active session holds, or files it reserved: coordinate with it, or wait until its turn or its reservation ends."
      : "Comity denied this edit once so that you read this first. If you still need the change, retry the same change: it will be allowed. Otherwise reach the other session with the command on its line (comity who <file> says who holds a file), or keep to other files.";
    return {
      decision: "block",
      reason: `Comity — coordination conflict before this edit:\n${shown.map(lineOf).join("\n")}\n${advice}`,
      inject_context: null,
      conflicts: shown.map((r) => refOf(r, "block")),
      intent: null,
    };
  }

  // Allowed: the session now holds the files (where in them, when known), and whoever held them first hears that it
  // joined.
  const number = await nextNumber(c, "next_intent");
  await c.sql.run("INSERT INTO intents (team_id, number, session_id, repo_id, event, created_at) VALUES (?, ?, ?, ?, ?, ?)", [c.teamId, number, c.session.id, c.repoId, "edit", c.now]);
  await insertRows(
    c.sql,
    "INSERT INTO intent_paths (team_id, intent_number, repo_id, path, base, ranges) VALUES",
    paths.map((p) => {
      const e = mine.get(p);
      return [c.teamId, number, c.repoId, p, e?.base ?? null, e?.ranges == null ? null : JSON.stringify(e.ranges)];
    }),
  );
  await recordConflicts(
    c,
    holders.map((h, i) => ({
      kind: kinds[i] as "edit_conflict" | "file_overlap",
      role: "informed" as const,
      session: h,
      other: c.session,
      subject: h.path,
      body: joinedBody(c, h, kinds[i] as "edit_conflict" | "file_overlap", mine.get(h.path)),
      paths: [h.path],
      changeAt: c.now,
    })),
  );
  // The reserver hears that its reservation was met and the edit went on (after the denial, or a shared one).
  await recordConflicts(
    c,
    reserved.map(({ reservation: r, paths: met }) => ({
      kind: Number(r.exclusive) === 1 ? ("reserved" as const) : ("reserved_shared" as const),
      role: "informed" as const,
      session: r,
      other: c.session,
      subject: `RSV-${r.number}`,
      body: `${describeSession(c.session)} is editing ${met.map((p) => code(p)).join(", ")}, inside your reservation RSV-${r.number} (${code(r.pattern)}).`,
      paths: met,
      changeAt: c.now,
    })),
  );
  const intent = { number, ref: `INT-${number}`, status: "active" as const };
  const delivered = await deliverQueued(c, "## Comity — coordination warning", toTell);
  return { ...delivered, intent };
}

/** In-flight breaking changes of other sessions that this session's files among `paths` use (by their imports). */
export async function breakingUsedIn(c: Coordination, paths: readonly string[]): Promise<Wanted[]> {
  if (paths.length === 0) return [];
  const uses = await c.sql.all<{ path: string; name: string; module: string; package: string | null }>(
    `SELECT path, name, module, package FROM session_uses WHERE session_id = ? AND path IN (${marks(paths)})`,
    [c.session.id, ...paths],
  );
  if (uses.length === 0) return []; // files that import nothing use nobody's change
  const out: Wanted[] = [];
  // Across packages: breaking changes, in any repo of the team, to what these files import from a package.
  for (const g of groupChanges(await packageChanges(c, uniqueSorted(uses.flatMap((u) => (u.package === null ? [] : [u.package])))))) {
    for (const { shown, names } of reachOfGroup(g)) {
      const users = uniqueSorted(uses.filter((u) => u.package === g.package && names.some((name) => packageUseReaches(u, name, g.path)) && !coveredInRepo(c.session, g, u)).map((u) => u.path));
      // The author hears, at its next prompt, whom its change reaches now that this session's use is known.
      if (users.length > 0) out.push(crossRepoWanted(c.session, g, shown, users), crossRepoInformed(g.author, g, shown, c.session, users));
    }
  }
  const groups = groupChanges(await othersChanges(c, { breaking: true }));
  if (groups.length === 0) return out;
  const imports = uses.map((u) => ({ path: u.path, name: u.name, module: u.module === "" ? null : u.module }));
  for (const g of groups) {
    const users = filesUsing(imports, g.path, namesOf(g));
    if (users.length === 0) continue;
    out.push(breakingWanted(c.session, g, users), breakingInformed(g.author, g, c.session, users));
  }
  return out;
}

/** What an edit of reserved files is told: whose reservation, of what, until when, and why. */
function reservedBody(c: Coordination, r: Awaited<ReturnType<typeof reservationsMeeting>>[number]["reservation"], met: readonly string[]): string {
  const exclusive = Number(r.exclusive) === 1;
  const files = met.map((p) => code(p)).join(", ");
  const why = r.reason === null || r.reason === "" ? "" : `: ${quoted(r.reason, 300)}`;
  const advice = exclusive ? "Ask it before you edit there, or keep to other files." : "It shares the files: both can go on; say what you change there.";
  return `${files} ${met.length === 1 ? "is" : "are"} reserved by ${describeSession(r)} (RSV-${r.number}, ${code(r.pattern)}, ${exclusive ? "exclusive" : "shared"}, for ${minutesLeft(Number(r.expires_at), c.now)})${why}. ${advice}`;
}
