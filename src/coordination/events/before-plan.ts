import { describeGroup, groupChanges, namesOf, stateOf } from "../change-groups.js";
import { code, describeSession } from "../coordination-text.js";
import { type Coordination, type Outcome, QUIET, type Wanted } from "../coordination.js";
import { othersChanges } from "../rows/change-rows.js";
import { lineOf, markTold, recordConflicts, refOf, sortByChange } from "../rows/conflict-rows.js";
import { holdersOf } from "../rows/holder-rows.js";

/** `plan`: the files and exported symbols it names that other sessions hold or changed. */
export async function beforePlan(c: Coordination, text: string): Promise<Outcome> {
  if (text.trim() === "") return QUIET;
  const wanted: Wanted[] = [];
  for (const h of await holdersOf(c, null)) {
    if (!namesFile(text, h.path)) continue;
    wanted.push({
      kind: "plan_overlap",
      role: "affected",
      session: c.session,
      other: h,
      subject: h.path,
      body: `your plan names ${code(h.path)}, which ${describeSession(h)} is changing.`,
      paths: [h.path],
      changeAt: Number(h.since),
    });
  }
  for (const g of groupChanges((await othersChanges(c, {})).filter((x) => x.compatibility !== "internal"))) {
    const names = namesOf(g);
    if (!names.some((n) => namesWord(text, n)) || wanted.some((w) => w.other.id === g.author.id && w.subject === g.path)) continue;
    const how = g.changes.some((x) => x.compatibility === "breaking") ? "incompatibly" : "compatibly";
    wanted.push({
      kind: "plan_overlap",
      role: "affected",
      session: c.session,
      other: g.author,
      subject: `${g.path}#${g.top}`,
      body: `your plan names ${describeGroup(g)} in ${code(g.path)}, which ${describeSession(g.author)} changed ${how} (${stateOf(g)}).`,
      paths: [g.path],
      changeAt: g.at,
    });
  }
  const rows = await recordConflicts(c, wanted);
  const toTell = sortByChange(rows.filter((r) => r.told_at === null && r.withdrawn_at === null));
  if (toTell.length === 0) return QUIET;
  await markTold(c, toTell);
  const text2 = `Comity — your plan meets other sessions' work:\n${toTell.map(lineOf).join("\n")}`;
  if (c.policy === "advisory") return { decision: "warn", reason: `${toTell.length} coordination warning(s)`, inject_context: text2, conflicts: toTell.map((r) => refOf(r)), intent: null };
  return {
    decision: "block",
    reason: `${text2}\nComity stopped the plan once so that you read this first. Adjust the plan, or present the same plan again to go on.`,
    inject_context: null,
    conflicts: toTell.map((r) => refOf(r, "block")),
    intent: null,
  };
}

/** Whether a plan names a file: its repo path, or its file name (`config.ts`) as a word. */
function namesFile(text: string, repoPath: string): boolean {
  if (text.includes(repoPath)) return true;
  const base = repoPath.slice(repoPath.lastIndexOf("/") + 1);
  return base.includes(".") && base.length > 3 && namesWord(text, base);
}

function namesWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^A-Za-z0-9_$])${escaped}($|[^A-Za-z0-9_$])`).test(text);
}
