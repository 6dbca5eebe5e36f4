import * as fs from "node:fs";
import * as path from "node:path";
import type { InitFile, InitPlan } from "./plan-init.js";

export interface AppliedFile {
  readonly file: string;
  /** What Comity put in it (see `InitFile.kind`). */
  readonly kind: "hooks" | "mcp";
  readonly written: boolean;
  /** The copy of the file before Comity changed it (null: nothing to keep, or not written). */
  readonly backup: string | null;
}

/**
 * Writes the changed files of a plan: a backup of a file that existed
 * (`<file>.comity-<stamp>.bak`), then the new text through a temporary file
 * and a rename, keeping the file's mode. Unchanged files are not touched.
 */
export function applyInit(plan: InitPlan, options: { now?: () => Date } = {}): AppliedFile[] {
  const stamp = (options.now ?? (() => new Date()))()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return plan.files.map((f) => (f.changed ? write(f, stamp) : { file: f.file, kind: f.kind ?? "hooks", written: false, backup: null }));
}

function write(f: InitFile, stamp: string): AppliedFile {
  fs.mkdirSync(path.dirname(f.file), { recursive: true });
  let backup: string | null = null;
  let mode = 0o644;
  if (f.before !== null) {
    mode = fs.statSync(f.file).mode & 0o7777;
    backup = `${f.file}.comity-${stamp}.bak`;
    fs.copyFileSync(f.file, backup);
  }
  const tmp = `${f.file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, f.after, { mode });
  fs.renameSync(tmp, f.file);
  return { file: f.file, kind: f.kind ?? "hooks", written: true, backup };
}
