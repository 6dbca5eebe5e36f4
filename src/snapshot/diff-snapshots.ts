import { compareStrings } from "../errors/diagnostic.js";
import { parseGitIndex } from "../git/read-git-index.js";
import { XXH64_HEX_LENGTH, type IndexBase, type IndexedPath, type PathChange, type Snapshot, type SnapshotEntry } from "./snapshot.js";

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
  // Two snapshots relative to the same index: only what either lists can differ.
  if (before.base !== undefined && after.base !== undefined && before.base.checksum === after.base.checksum) return diffOverIndex(before, before.base, after, after.base);
  return diffFull(expandSnapshot(before), expandSnapshot(after));
}

function diffFull(before: Snapshot, after: Snapshot): PathChange[] {
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

function compareEntries(x: State, y: State): PathChange["change"] | null {
  if (x.type !== y.type) return "type_changed";
  if (x.type === "dir") return null;
  if (!sameContent(x, y)) return "modified";
  if (x.type === "file" && x.executable !== y.executable) return "mode_changed";
  return null;
}

function sameContent(x: State, y: State): boolean {
  if (x.hash !== null && y.hash !== null && kindOf(x.hash) === kindOf(y.hash)) return x.hash === y.hash;
  // Hashes of different kinds (or missing) cannot be compared: trust an identical stat, else call it modified.
  return x.size === y.size && x.mtimeMs === y.mtimeMs && x.ctimeMs === y.ctimeMs && x.ino === y.ino;
}

function kindOf(hash: string): "xxh64" | "git" {
  return hash.length === XXH64_HEX_LENGTH ? "xxh64" : "git";
}

type State = Pick<SnapshotEntry, "type" | "executable" | "hash" | "size" | "mtimeMs" | "ctimeMs" | "ino">;

/** The index's own state of a path: its blob, its mode, and the stat data git recorded. */
function fromIndex(x: { mode: number; oid: string }): State {
  const symlink = (x.mode & 0o170000) === 0o120000;
  return { type: symlink ? "symlink" : "file", executable: !symlink && (x.mode & 0o100) !== 0, hash: x.oid, size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };
}

/**
 * Both snapshots are relative to one index, so a path neither lists is the
 * index's on both sides. For each listed path, each side is its listed entry,
 * or absent (listed missing), or the index's entry, or absent (untracked and
 * not listed: gone or ignored). A path absent on one side and a file on the
 * other is `type_changed` when the absent side has something under it (a
 * folder), as a walk would see.
 */
function diffOverIndex(before: Snapshot, b: IndexBase, after: Snapshot, a: IndexBase): PathChange[] {
  const indexed = new Map<string, IndexedPath>();
  for (const x of b.indexed) indexed.set(x.path, x);
  for (const x of a.indexed) indexed.set(x.path, x);
  const side = (s: Snapshot, base: IndexBase) => {
    const listed = new Map<string, SnapshotEntry>(s.entries.map((e) => [e.path, e]));
    const missing = new Set(base.missing);
    return (p: string): State | null => {
      const e = listed.get(p);
      if (e !== undefined) return e;
      if (missing.has(p)) return null;
      const i = indexed.get(p);
      return i === undefined ? null : fromIndex(i);
    };
  };
  const was = side(before, b);
  const is = side(after, a);
  const paths = [...new Set([...before.entries.map((e) => e.path), ...after.entries.map((e) => e.path), ...b.missing, ...a.missing, ...indexed.keys()])].sort(compareStrings);
  const somethingUnder = (state: (p: string) => State | null, p: string): boolean => {
    const prefix = `${p}/`;
    let lo = 0;
    let hi = paths.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareStrings(paths[mid] as string, prefix) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < paths.length && (paths[k] as string).startsWith(prefix); k++) if (state(paths[k] as string) !== null) return true;
    return false;
  };
  const changes: PathChange[] = [];
  for (const p of paths) {
    const x = was(p);
    const y = is(p);
    if (x === null && y === null) continue;
    if (x === null) {
      if (y !== null && y.type !== "dir") changes.push({ path: p, change: somethingUnder(was, p) ? "type_changed" : "added" });
    } else if (y === null) {
      if (x.type !== "dir") changes.push({ path: p, change: somethingUnder(is, p) ? "type_changed" : "deleted" });
    } else {
      const change = compareEntries(x, y);
      if (change !== null) changes.push({ path: p, change });
    }
  }
  return changes;
}

/**
 * The same snapshot with every path listed: the index's entries that it
 * does not list (nor lists as missing), and a folder entry above every path,
 * as a walk records them. Snapshots without a base are returned as they are.
 */
export function expandSnapshot(s: Snapshot): Snapshot {
  const base = s.base;
  if (base === undefined) return s;
  const index = base.index.length === 0 ? null : parseGitIndex(base.index);
  const listed = new Set([...s.entries.map((e) => e.path), ...base.missing]);
  const entries: SnapshotEntry[] = [...s.entries];
  for (const e of index?.entries ?? []) {
    if (e.mode === 0o160000 || listed.has(e.path)) continue;
    entries.push({ path: e.path, ...fromIndex(e), size: e.size, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs, ino: e.ino, racy: false });
  }
  const dirs = new Set<string>();
  for (const e of entries) {
    for (let k = e.path.lastIndexOf("/"); k > 0; k = e.path.lastIndexOf("/", k - 1)) {
      const d = e.path.slice(0, k);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  for (const d of dirs) if (!listed.has(d)) entries.push({ path: d, type: "dir", executable: false, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, hash: null, racy: false });
  entries.sort((x, y) => compareStrings(x.path, y.path));
  return { version: 1, root: s.root, startedMs: s.startedMs, entries };
}
