import * as fs from "node:fs";
import * as path from "node:path";
import type { EditRanges } from "../coordination/wire.js";
import type { RepoState } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import { parseApplyPatch, patchHunks } from "./apply-patch.js";
import type { Ctx } from "./hook-context.js";

/** A file larger than this gets no ranges (not known: conservative), so that no diff of it holds up a hook. */
const MAX_RANGED_BYTES = 512 * 1024;
/** At most this many files a request get ranges. */
const MAX_RANGED_FILES = 50;

/** A file's base (HEAD's blob of it) and current text: what its ranges are measured between. */
interface Versions {
  /** HEAD's blob id of the file; null for a file HEAD does not have. */
  readonly base: string | null;
  readonly baseText: string | null;
  /** The working tree's text; null when the file is not there (or too large). */
  readonly current: string | null;
}

async function versionsOf(repo: Repo, state: RepoState, repoPath: string): Promise<Versions | null> {
  const { headReader } = await import("../symbols/analyze-file.js");
  const { gitBlobId } = await import("../snapshot/content-hasher.js");
  let current: string | null = null;
  try {
    const abs = path.join(repo.root, repoPath);
    if (fs.statSync(abs).size > MAX_RANGED_BYTES) return null;
    current = fs.readFileSync(abs, "utf8");
  } catch {
    current = null;
  }
  let head: Buffer | null;
  try {
    head = await headReader(repo.commonDir ?? "", state.head_sha)(repoPath);
  } catch {
    return null;
  }
  if (head !== null && head.length > MAX_RANGED_BYTES) return null;
  return { base: head === null ? null : gitBlobId(head), baseText: head === null ? null : head.toString("utf8"), current };
}

/**
 * Before an edit tool runs: for each file it edits, where in the file's base its edit lands (`EditRanges`). Known
 * for an `Edit` (its `old_string`), a `MultiEdit` and an apply_patch update (each hunk's removed lines); not for a
 * whole-file `Write`, a new file, a notebook or anything that cannot be placed (`ranges: null`, which the core takes
 * as touching the whole file).
 */
export async function editsBefore(ctx: Ctx, repo: Repo, state: RepoState, paths: readonly string[]): Promise<EditRanges[]> {
  const { targetRanges } = await import("./edit-ranges.js");
  const input = ctx.toolInput;
  const rel = (p: string): string => path.relative(repo.root, path.resolve(ctx.cwd, p)).split(path.sep).join("/");
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  // What each file's edit replaces, as the tool says.
  const olds = new Map<string, Array<{ old: string; all?: boolean; within?: Array<[number, number]> }>>();
  if (ctx.tool === "apply_patch") {
    const text = str(input["command"]) ?? str(input["input"]) ?? str(input["patch"]) ?? "";
    const updated = new Set(
      parseApplyPatch(text)
        .filter((o) => o.kind === "update" && o.moveTo === null)
        .map((o) => rel(o.path)),
    );
    for (const [p, hunks] of patchHunks(text)) if (updated.has(rel(p))) olds.set(rel(p), hunks);
  } else if (ctx.tool === "Edit" || ctx.tool === "MultiEdit") {
    const target = str(input["file_path"]) ?? str(input["path"]);
    const edits = Array.isArray(input["edits"]) ? (input["edits"] as unknown[]) : [input];
    const list = edits.flatMap((e) => {
      const x = (e ?? {}) as Record<string, unknown>;
      const old = str(x["old_string"]) ?? str(x["old_str"]);
      return old === null ? [] : [{ old, all: x["replace_all"] === true }];
    });
    if (target !== null && list.length === edits.length) olds.set(rel(target), list);
  }
  const out: EditRanges[] = [];
  for (const p of paths.slice(0, MAX_RANGED_FILES)) {
    const edits = olds.get(p);
    const versions = edits === undefined ? null : await versionsOf(repo, state, p);
    if (edits === undefined || versions === null || versions.baseText === null || versions.current === null) {
      out.push({ path: p, base: versions?.base ?? null, ranges: null });
      continue;
    }
    out.push({ path: p, base: versions.base, ranges: targetRanges(versions.baseText, versions.current, edits) });
  }
  return out;
}

/**
 * After a tool ran: for each changed file, the lines of its base it now differs in (the session's changes to it so
 * far, against HEAD). A new or deleted file, or one too large, has no ranges (`null`: the whole file).
 */
export async function editsAfter(repo: Repo, state: RepoState, paths: readonly string[]): Promise<EditRanges[]> {
  const { changedRanges } = await import("./edit-ranges.js");
  const out: EditRanges[] = [];
  for (const p of paths.slice(0, MAX_RANGED_FILES)) {
    const v = await versionsOf(repo, state, p);
    out.push({ path: p, base: v?.base ?? null, ranges: v === null || v.baseText === null || v.current === null ? null : changedRanges(v.baseText, v.current) });
  }
  return out;
}
