import * as fs from "node:fs";
import * as path from "node:path";
import { parentAndName } from "../fs/clean-path.js";
import { pruneFolder } from "../fs/prune-folder.js";
import type { FileStamp } from "../fs/stat-many.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { KEEP } from "../config/config-layout.js";

export type { FileStamp } from "../fs/stat-many.js";

/**
 * A file's content hash is recorded only when its last change (`mtime` and `ctime`) is at least this much older than
 * the stat taken before it was read. A later change of the file then sets `ctime` to a later time, which the stat
 * shows, whatever the file system's timestamp granularity (the same rule as git's "racily clean" entries, with a
 * margin instead of the index file's own time). A file changed more recently is read and hashed each time, until
 * it is that old.
 */
export const SETTLED_MS = 2000;

/** Whether a stat shows a file whose last change is at least {@link SETTLED_MS} before `now` (a hash read after it may be recorded by it). */
export function hasSettled(stamp: FileStamp, now: number): boolean {
  return Math.max(stamp.mtimeMs, stamp.ctimeMs) <= now - SETTLED_MS;
}

/** Whether two stats show the same version of a file (the fields git's index compares). */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/**
 * Which content hash each file had, by path and stat: a run over unchanged files asks the stat, not the bytes, and
 * reads no source (the symbol cache is keyed by content hash). One small JSON file per source folder, in `dir`,
 * named by a hash of the folder's path, read the first time a file of that folder is looked up; `save` rewrites the
 * folders whose entries changed, whole and atomically, keeping only the names that still exist, and keeps at most
 * `maxFolders` files in `dir` (the least recently written go first). Two processes
 * saving the same folder at once: the last one's entries stay, and the other's files are hashed again next time.
 * A file it cannot read or parse is an empty index: nothing here is ever needed, it only saves reading.
 */
export interface FileIndex {
  /** The content hash recorded for this file with this very stamp; null when there is none. */
  lookup(abs: string, stamp: FileStamp): string | null;
  /** Records the hash of the bytes read after `stamp` was taken (ignored unless the file had settled: {@link SETTLED_MS}). */
  record(abs: string, stamp: FileStamp, hash: string): void;
  /** Writes what changed; failures are ignored (the next run hashes again). */
  save(): void;
}

/** An entry: size, mtime, ctime, inode, device, content hash. */
type Entry = [number, number, number, number, number, string];
interface Folder {
  readonly file: string;
  readonly entries: Map<string, Entry>;
  /** Names looked up or recorded in this run (the others are checked for existence before a save keeps them). */
  readonly seen: Set<string>;
  changed: boolean;
}

/**
 * The name a source folder's files are kept under in a cache folder (its index here, its lines in
 * {@link createFolderLines}): 64 bits of FNV-1a over its path's UTF-16 units, as 16 hex digits (two 32-bit lanes with
 * different offset bases). Computed here, not with the content hasher: a warm run that hashes no file does not load
 * it (a tenth of such a run). Each file records its folder's path: a collision is a miss, never a wrong answer.
 */
export function folderFileName(folder: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < folder.length; i++) {
    const c = folder.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

export function createFileIndex(dir: string, options: { nameOf?: (folder: string) => string; now?: () => number; maxFolders?: number } = {}): FileIndex {
  const nameOf = options.nameOf ?? folderFileName;
  const now = options.now ?? Date.now;
  let pruned = false;
  const folders = new Map<string, Folder>();
  const folderOf = (abs: string): { folder: Folder; name: string } => {
    const [parent, name] = parentAndName(abs);
    let folder = folders.get(parent);
    if (folder === undefined) {
      const file = path.join(dir, `${nameOf(parent)}.json`);
      folder = { file, entries: readFolder(file, parent), seen: new Set(), changed: false };
      folders.set(parent, folder);
    }
    return { folder, name };
  };
  return {
    lookup(abs, stamp) {
      const { folder, name } = folderOf(abs);
      folder.seen.add(name);
      const e = folder.entries.get(name);
      return e !== undefined && e[0] === stamp.size && e[1] === stamp.mtimeMs && e[2] === stamp.ctimeMs && e[3] === stamp.ino && e[4] === stamp.dev ? e[5] : null;
    },
    record(abs, stamp, hash) {
      const { folder, name } = folderOf(abs);
      folder.seen.add(name);
      const settled = hasSettled(stamp, now());
      const old = folder.entries.get(name);
      if (!settled) {
        // Not recorded, and an older entry for the name goes (it no longer says anything).
        if (old !== undefined) folder.entries.delete(name);
        folder.changed ||= old !== undefined;
        return;
      }
      const entry: Entry = [stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dev, hash];
      if (old?.every((v, i) => v === entry[i])) return;
      folder.entries.set(name, entry);
      folder.changed = true;
    },
    save() {
      for (const [parent, folder] of folders) {
        if (!folder.changed) continue;
        const files: Record<string, Entry> = {};
        for (const name of [...folder.entries.keys()].sort()) {
          // (names of this run are known to exist; the others are kept while they do)
          if (folder.seen.has(name) || fs.existsSync(path.join(parent, name))) files[name] = folder.entries.get(name) as Entry;
        }
        try {
          writeFileAtomic(folder.file, JSON.stringify({ v: 1, dir: parent, files }));
          folder.changed = false;
          // (looked at once a process, as the symbol cache's folders are)
          if (!pruned) {
            pruned = true;
            pruneFolder(dir, options.maxFolders ?? KEEP.symbolFolders, folder.file);
          }
        } catch {
          // An index that cannot be written is only slower.
        }
      }
    },
  };
}

/** A folder's entries from its file; none when the file is missing, is not one, or belongs to another folder (a hash collision). */
function readFolder(file: string, parent: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let doc: unknown;
  try {
    if (fs.statSync(file, { throwIfNoEntry: false }) === undefined) return entries;
    doc = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return entries;
  }
  if (typeof doc !== "object" || doc === null) return entries;
  const { v, dir, files } = doc as { v?: unknown; dir?: unknown; files?: unknown };
  if (v !== 1 || dir !== parent || typeof files !== "object" || files === null) return entries;
  for (const [name, e] of Object.entries(files)) {
    if (Array.isArray(e) && e.length === 6 && e.slice(0, 5).every((x) => typeof x === "number") && typeof e[5] === "string") entries.set(name, e as Entry);
  }
  return entries;
}
