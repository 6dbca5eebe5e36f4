import * as fs from "node:fs";
import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";

/** Leaves at most `keep` files in a folder (of a cache), removing the least recently written (never `justWritten`). */
export function pruneFolder(folder: string, keep: number, justWritten: string): void {
  const names = fs.readdirSync(folder);
  if (names.length <= keep) return;
  const files: Array<{ file: string; mtimeMs: number }> = [];
  for (const n of names) {
    const f = path.join(folder, n);
    if (f === justWritten) continue;
    try {
      files.push({ file: f, mtimeMs: fs.statSync(f).mtimeMs });
    } catch {
      // gone already
    }
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs || compareStrings(a.file, b.file));
  for (const f of files.slice(0, names.length - keep)) fs.rmSync(f.file, { force: true });
}
