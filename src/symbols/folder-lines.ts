import * as fs from "node:fs";
import * as path from "node:path";
import { parentAndName } from "../fs/clean-path.js";
import { pruneFolder } from "../fs/prune-folder.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { EXTRACTOR_VERSION } from "./extractor-version.js";
import { folderFileName, hasSettled, sameStamp, type FileStamp } from "./file-index.js";
import { KEEP } from "../config/config-layout.js";

/**
 * Each source folder's printed lines (a {@link printedSymbols} form and its diagnostics' JSON, per file), with the
 * content hash each was printed from and, when the file had settled, its stat: one file per folder, which is what a
 * warm `comity symbols` reads. Over 611 files it opened a file index per folder and a cache entry per file (a third
 * of its time past Node's start); the files of 38 folders now need 38 reads, and no file is read nor hashed. A
 * stat answers as a {@link createFileIndex}'s does (the same fields, the same settled rule); a content hash answers
 * whatever its stat. It is a copy of what the symbol cache holds, never the only one. Borrowed answers (the bytes
 * of a line) are valid until the next lookup.
 */
export interface FolderLines {
  /** The line kept for this file with this very stat, and the content hash it was printed from; null when none. */
  byStamp(abs: string, stamp: FileStamp, language: string): Line | null;
  /** The line kept for this file's content hash; null when none. */
  byHash(abs: string, hash: string, language: string): Line | null;
  /**
   * Keeps a file's line for the next save: its printed form (as given: the caller copies borrowed bytes) and
   * diagnostics' JSON, the content hash they were printed from, and the stat taken before those bytes were read
   * (kept only when the file had settled; null: none to keep).
   */
  put(abs: string, stamp: FileStamp | null, hash: string, language: string, printed: Uint8Array, diagnostics: string): void;
  /** Rewrites the files of the folders that something was put in, whole and atomically; failures are ignored. */
  save(): void;
}

export interface Line {
  readonly hash: string;
  readonly printed: Buffer;
  readonly diagnostics: Buffer;
}

/** Where a file's line is in its folder's file: its hash, language, stat, and the lengths of its printed form and diagnostics from `start`. */
interface Located {
  readonly hash: string;
  readonly language: string;
  readonly stamp: FileStamp | null;
  readonly start: number;
  readonly printed: number;
  readonly diagnostics: number;
}
interface Kept {
  readonly hash: string;
  readonly language: string;
  readonly stamp: FileStamp | null;
  readonly printed: Uint8Array;
  readonly diagnostics: Uint8Array;
}
/** A table row: name, hash, language, printed bytes, diagnostics bytes, then size, mtime, ctime, inode, device when it has a stat. */
type Row = [string, string, string, number, number] | [string, string, string, number, number, number, number, number, number, number];

/**
 * A folder's file is one line of JSON, `{"v":1,"x":<extractor version>,"dir":<folder>,"files":[row, ...]}` (see
 * {@link Row}; names sorted), then each file's printed form and diagnostics' JSON, in that order, with nothing
 * between them. A file of another shape or version, or of another folder (a collision of names), answers nothing.
 * At most `maxFolders` files are kept in `dir`, the least recently written going first. Two processes saving one
 * folder at once: the last one's lines stay. `now`: the clock a stat is judged settled by (Date.now unless given).
 */
export function createFolderLines(dir: string, options: { nameOf?: (folder: string) => string; maxFolders?: number; now?: () => number } = {}): FolderLines {
  const nameOf = options.nameOf ?? folderFileName;
  const now = options.now ?? Date.now;
  const fileOf = (parent: string): string => path.join(dir, `${nameOf(parent)}.lines`);
  // Each folder's table, read once; the files of the folders asked last stay open (OPEN_FILES of them), and lines
  // are read by windows of WINDOW bytes at a line's offset, into a buffer reused from window to window: a folder's
  // files are mostly asked for in order, and its lines are kept in name order, so a window holds many (one read per
  // line was a tenth of a warm run). Not the whole file at once: input lists visit a folder more than once (a
  // sorted list of Python's stdlib switched folders 191 times for 125 folders), and its top folder's file is
  // megabytes.
  const tables = new Map<string, Table | null>();
  // Open files by folder, the least recently asked first.
  const open = new Map<string, number>();
  let scratch = Buffer.alloc(0);
  // Which bytes of which folder's file `scratch` holds.
  let window = { parent: "", start: 0, length: 0 };
  const put = new Map<string, Map<string, Kept>>();
  // Names asked for in this run, by folder (known to exist when a save keeps their old lines).
  const asked = new Map<string, Set<string>>();
  let pruned = false;
  const close = (parent: string): void => {
    const fd = open.get(parent);
    if (fd === undefined) return;
    open.delete(parent);
    try {
      fs.closeSync(fd);
    } catch {
      // closed already
    }
  };
  /** The folder's table, with its file open: null when it has none (or not one this reader can trust). */
  const tableOf = (parent: string): { table: Table; fd: number } | null => {
    const known = tables.get(parent);
    if (known === null) return null;
    const was = open.get(parent);
    if (was !== undefined && known !== undefined) {
      // (the most recently asked, now)
      open.delete(parent);
      open.set(parent, was);
      return { table: known, fd: was };
    }
    for (const oldest of open.keys()) {
      if (open.size < OPEN_FILES) break;
      close(oldest);
    }
    try {
      const fd = fs.openSync(fileOf(parent), "r");
      open.set(parent, fd);
      // (opened again: the table read before holds while the file is the same one, which a save replaces whole)
      const table = known !== undefined && sameFile(known, fs.fstatSync(fd)) ? known : readTable(fd, parent);
      tables.set(parent, table);
      if (window.parent === parent) window = { parent: "", start: 0, length: 0 };
      if (table === null) close(parent);
      return table === null ? null : { table, fd };
    } catch {
      close(parent);
      tables.set(parent, null);
      return null;
    }
  };
  /** The line of `abs` that `matches`; null when there is none. */
  const find = (abs: string, language: string, matches: (e: Located) => boolean): Line | null => {
    const [parent, name] = parentAndName(abs);
    let names = asked.get(parent);
    if (names === undefined) asked.set(parent, (names = new Set()));
    names.add(name);
    const at = tableOf(parent);
    const e = at?.table.entries.get(name);
    if (at === null || e === undefined || e.language !== language || !matches(e)) return null;
    const length = e.printed + e.diagnostics;
    if (window.parent !== parent || e.start < window.start || e.start + length > window.start + window.length) {
      if (scratch.length < length) scratch = Buffer.allocUnsafeSlow(Math.max(length, WINDOW));
      // From the line on; or, asked for a line before the bytes held (a list in reverse order), up to its end.
      const backwards = window.parent === parent && e.start < window.start;
      const start = backwards ? Math.max(0, e.start + length - scratch.length) : e.start;
      try {
        window = { parent, start, length: readAt(at.fd, scratch, Math.min(scratch.length, at.table.size - start), start) };
      } catch {
        window = { parent: "", start: 0, length: 0 };
      }
      if (window.start + window.length < e.start + length) return null;
    }
    const from = e.start - window.start;
    return { hash: e.hash, printed: scratch.subarray(from, from + e.printed), diagnostics: scratch.subarray(from + e.printed, from + length) };
  };
  return {
    byStamp: (abs, stamp, language) => find(abs, language, (e) => e.stamp !== null && sameStamp(e.stamp, stamp)),
    byHash: (abs, hash, language) => find(abs, language, (e) => e.hash === hash),
    put(abs, stamp, hash, language, printed, diagnostics) {
      const [parent, name] = parentAndName(abs);
      const kept = stamp !== null && hasSettled(stamp, now()) ? stampOf(stamp) : null;
      // Nothing new for the folder's file (a line it has, its stat not yet settled: a file that stays recent, or
      // whose clock is ahead, would have its folder's file written on every run).
      const had = tables.get(parent)?.entries.get(name);
      if (had !== undefined && had.hash === hash && had.language === language && (kept === null || (had.stamp !== null && sameStamp(had.stamp, kept)))) return;
      let lines = put.get(parent);
      if (lines === undefined) put.set(parent, (lines = new Map()));
      lines.set(name, { hash, language, stamp: kept, printed, diagnostics: Buffer.from(diagnostics) });
    },
    save() {
      for (const parent of [...open.keys()]) close(parent);
      for (const [parent, lines] of put) {
        const file = fileOf(parent);
        // The lines this run did not put: kept while their files exist.
        const old = readWhole(file, parent);
        const names = asked.get(parent);
        const files: Row[] = [];
        const pieces: Uint8Array[] = [];
        for (const name of [...new Set([...lines.keys(), ...old.entries.keys()])].sort()) {
          const mine = lines.get(name);
          if (mine !== undefined) {
            files.push(row(name, mine.hash, mine.language, mine.printed.length, mine.diagnostics.length, mine.stamp));
            pieces.push(mine.printed, mine.diagnostics);
            continue;
          }
          const e = old.entries.get(name) as Located;
          if (names?.has(name) !== true && !fs.existsSync(path.join(parent, name))) continue;
          files.push(row(name, e.hash, e.language, e.printed, e.diagnostics, e.stamp));
          pieces.push(old.bytes.subarray(e.start, e.start + e.printed + e.diagnostics));
        }
        try {
          writeFileAtomic(file, [Buffer.from(`${JSON.stringify({ v: 1, x: EXTRACTOR_VERSION, dir: parent, files })}\n`), ...pieces]);
          if (!pruned) {
            pruned = true;
            pruneFolder(dir, options.maxFolders ?? KEEP.symbolFolders, file);
          }
        } catch {
          // Lines that cannot be written are only slower: the symbol cache has them.
        }
        tables.delete(parent);
      }
      put.clear();
    },
  };
}

/** How much of a folder's file is read at once, and how many folders' files stay open (see createFolderLines). */
const WINDOW = 512 * 1024;
const OPEN_FILES = 16;

/** A folder file's table: where each name's line is, and which file it was read from (its inode, size and mtime). */
interface Table {
  readonly entries: Map<string, Located>;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

function sameFile(table: Table | null, stat: fs.Stats): boolean {
  return table !== null && table.ino === stat.ino && table.size === stat.size && table.mtimeMs === stat.mtimeMs;
}

/** Reads up to `length` bytes at `position` (fewer only at the file's end). */
function readAt(fd: number, buffer: Buffer, length: number, position: number): number {
  let done = 0;
  for (let n = -1; n !== 0 && done < length; done += n) n = fs.readSync(fd, buffer, done, length - done, position + done);
  return done;
}

/** The table at the head of an open folder file; null when it is not one of this folder and version, or does not match the file's size. */
function readTable(fd: number, parent: string): Table | null {
  const stat = fs.fstatSync(fd);
  // The first line, read in growing steps until its newline.
  let head = Buffer.allocUnsafe(Math.min(stat.size, 16 * 1024));
  let length = readAt(fd, head, head.length, 0);
  let newline = head.subarray(0, length).indexOf(10);
  while (newline < 0 && length === head.length && length < stat.size) {
    const grown = Buffer.allocUnsafe(Math.min(stat.size, 4 * head.length));
    head.copy(grown, 0, 0, length);
    head = grown;
    length += readAt(fd, head.subarray(length), head.length - length, length);
    newline = head.subarray(0, length).indexOf(10);
  }
  if (newline < 0) return null;
  const entries = tableEntries(head.toString("utf8", 0, newline), parent, newline + 1, stat.size);
  return entries === null ? null : { entries, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}

/** A folder's file read whole, and where each of its lines is; none when it is missing or not one. */
function readWhole(file: string, parent: string): { bytes: Buffer; entries: Map<string, Located> } {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return { bytes: Buffer.alloc(0), entries: new Map() };
  }
  const newline = bytes.indexOf(10);
  return { bytes, entries: (newline < 0 ? null : tableEntries(bytes.toString("utf8", 0, newline), parent, newline + 1, bytes.length)) ?? new Map() };
}

/** The entries of a table's JSON, their lines starting at `start`; null unless it is one of this folder and version whose lines end the file at `size`. */
function tableEntries(json: string, parent: string, start: number, size: number): Map<string, Located> | null {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof doc !== "object" || doc === null) return null;
  const { v, x, dir, files } = doc as { v?: unknown; x?: unknown; dir?: unknown; files?: unknown };
  if (v !== 1 || x !== EXTRACTOR_VERSION || dir !== parent || !Array.isArray(files)) return null;
  const entries = new Map<string, Located>();
  let at = start;
  for (const f of files as unknown[]) {
    if (!Array.isArray(f) || (f.length !== 5 && f.length !== 10)) return null;
    const [name, hash, language, printed, diagnostics, size, mtimeMs, ctimeMs, ino, dev] = f as unknown[];
    if (typeof name !== "string" || typeof hash !== "string" || typeof language !== "string" || !isLength(printed) || !isLength(diagnostics)) return null;
    let stamp: FileStamp | null = null;
    if (f.length === 10) {
      if (typeof size !== "number" || typeof mtimeMs !== "number" || typeof ctimeMs !== "number" || typeof ino !== "number" || typeof dev !== "number") return null;
      stamp = { size, mtimeMs, ctimeMs, ino, dev };
    }
    entries.set(name, { hash, language, stamp, start: at, printed, diagnostics });
    at += printed + diagnostics;
  }
  // Cut short or grown (half of another process's file, say): none of it.
  return at === size ? entries : null;
}

function row(name: string, hash: string, language: string, printed: number, diagnostics: number, stamp: FileStamp | null): Row {
  return stamp === null ? [name, hash, language, printed, diagnostics] : [name, hash, language, printed, diagnostics, stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dev];
}

/** A stat's fields that a row keeps (not the whole fs.Stats object). */
function stampOf(s: FileStamp): FileStamp {
  return { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, dev: s.dev };
}

function isLength(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}
