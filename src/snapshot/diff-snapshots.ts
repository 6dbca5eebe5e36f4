import { compareStrings } from "../errors/diagnostic.js";
import { XXH64_HEX_LENGTH, type PathChange, type Snapshot, type SnapshotEntry } from "./snapshot.js";

/**
 * Compares two snapshots of one repo and returns exactly the paths that
 * changed, sorted: `added`, `deleted`, `modified` (content or symlink
 * target), `type_changed` (file, symlink and folder turning into one
 * another) and `mode_changed` (the executable bit alone). Creating or
 * removing a folder is reported through the files in it, as git does.
 * A file whose stat changed but whose content did not (`touch`) is not
 * reported. Pure.
 *
 * @example
 * diffSnapshots(before, after); // [{ path: "src/a.ts", change: "modified" }]
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): PathChange[] {
  const changes: PathChange[] = [];
  const a = before.entries;
  const b = after.entries;
  let i = 0;
  let j = 0;
  // Both lists are sorted by path: one merge pass.
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    const order = x === undefined ? 1 : y === undefined ? -1 : compareStrings(x.path, y.path);
    if (order < 0 && x !== undefined) {
      if (x.type !== "dir") changes.push({ path: x.path, change: "deleted" });
      i++;
    } else if (order > 0 && y !== undefined) {
      if (y.type !== "dir") changes.push({ path: y.path, change: "added" });
      j++;
    } else if (x !== undefined && y !== undefined) {
      const change = compareEntries(x, y);
      if (change !== null) changes.push({ path: x.path, change });
      i++;
      j++;
    }
  }
  return changes;
}

function compareEntries(x: SnapshotEntry, y: SnapshotEntry): PathChange["change"] | null {
  if (x.type !== y.type) return "type_changed";
  if (x.type === "dir") return null;
  if (!sameContent(x, y)) return "modified";
  if (x.type === "file" && x.executable !== y.executable) return "mode_changed";
  return null;
}

function sameContent(x: SnapshotEntry, y: SnapshotEntry): boolean {
  if (x.hash !== null && y.hash !== null && kindOf(x.hash) === kindOf(y.hash)) return x.hash === y.hash;
  // Hashes of different kinds (or missing) cannot be compared: trust an identical stat, else call it modified.
  return x.size === y.size && x.mtimeMs === y.mtimeMs && x.ctimeMs === y.ctimeMs && x.ino === y.ino;
}

function kindOf(hash: string): "xxh64" | "git" {
  return hash.length === XXH64_HEX_LENGTH ? "xxh64" : "git";
}
