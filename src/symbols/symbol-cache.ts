import * as fs from "node:fs";
import * as path from "node:path";
import { pruneFolder } from "../fs/prune-folder.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import type { FileSymbols, ParamInfo, ReferenceRecord, SignatureInfo, SymbolKind, SymbolRecord } from "./types.js";
import { EXTRACTOR_VERSION } from "./extractor-version.js";
import { printedSymbols } from "./printed-symbols.js";
import { KEEP } from "../config/config-layout.js";

/** Per-content cache of symbol results: an unchanged file costs a hash and a lookup. */
export interface SymbolCache {
  get(contentHash: string, language: string): Omit<FileSymbols, "path"> | null;
  /** Stores a result; false when it is not one to keep ({@link keepable}). */
  set(contentHash: string, language: string, result: FileSymbols): boolean;
  /**
   * A cached result's {@link printedSymbols} text, as the UTF-8 bytes the entry file holds, and its diagnostics:
   * read without decoding its records (or even its first line); null on a miss. `borrow`: the bytes are read into a
   * buffer that the next borrowing call reuses (valid until then; no fresh memory for each of many entries).
   */
  printed?(contentHash: string, language: string, options?: { borrow?: boolean }): { readonly bytes: Uint8Array; readonly diagnostics: FileSymbols["diagnostics"] } | null;
  /** Stores a result given as its {@link entryText} (one not {@link keepable} is left out). */
  setText?(contentHash: string, language: string, text: EntryText): void;
}

/**
 * A result as the cache stores it ({@link entryText}): as a string, or as its UTF-8 bytes (as the native extraction
 * makes it: written, sent to another thread and printed without being decoded).
 */
export type EntryText = string | Uint8Array;

/** Entries are spread over this many folders by the first two hex digits of their content hash. */
const SHARDS = 256;

/**
 * A cache in a folder (`<config dir>/symbols`), one small JSON file per
 * (extractor version, language, xxhash64 of the content), in 256 folders by
 * the hash's first two digits. Writes are atomic; a corrupt entry is a miss.
 * Each folder keeps its share of `maxEntries` (a 256th; hashes spread evenly),
 * the least recently written going first: a cache object looks at a folder
 * the first time it writes there, so a write never scans the whole cache (a
 * hook process writes one entry; scanning 40,000 entries to do so cost 160 ms).
 */
export function createSymbolCache(dir: string, options: { maxEntries?: number } = {}): Required<SymbolCache> {
  const share = Math.max(1, Math.ceil((options.maxEntries ?? KEEP.symbolEntries) / SHARDS));
  const prunedShards = new Set<string>();
  const file = (hash: string, language: string): string => path.join(dir, hash.slice(0, 2), `v${EXTRACTOR_VERSION}-${language}-${hash}.json`);
  const scratch = { buffer: Buffer.alloc(0) };
  return {
    get(hash, language) {
      const lines = readEntryFile(file(hash, language));
      if (lines === null) return null;
      try {
        return decodeEntry(JSON.parse(lines[0]) as Entry);
      } catch {
        return null;
      }
    },
    printed(hash, language, options = {}) {
      const entry = readEntryBytes(file(hash, language), options.borrow === true ? scratch : null);
      if (entry === null) return null;
      const { bytes, ends } = entry;
      try {
        return { bytes: bytes.subarray(ends[0] + 1, ends[1]), diagnostics: JSON.parse(bytes.toString("utf8", ends[1] + 1, ends[2])) as FileSymbols["diagnostics"] };
      } catch {
        return null;
      }
    },
    set(hash, language, result) {
      if (!keepable(result)) return false;
      this.setText(hash, language, entryText(result));
      return true;
    },
    setText(hash, language, text) {
      if (!keepableText(text)) return;
      try {
        const target = file(hash, language);
        writeEntryFile(target, text);
        const shard = path.dirname(target);
        if (!prunedShards.has(shard)) {
          prunedShards.add(shard);
          pruneFolder(shard, share, target);
        }
      } catch {
        // A cache that cannot be written is only slower.
      }
    },
  };
}

/** The diagnostic of a result that depends on the time it was given, not on its content. */
const UNKEPT = "parse_timeout";

/**
 * Whether a result may be kept and reused for the same content: not one whose parse was stopped at its limits (on
 * another run, with more time, the same bytes may parse).
 */
export function keepable(r: Pick<FileSymbols, "diagnostics">): boolean {
  return !r.diagnostics.some((d) => d.code === UNKEPT);
}

/** {@link keepable}, of a result as its entry text (its diagnostics are its last line). */
export function keepableText(text: EntryText): boolean {
  const parts = printedOfEntryText(text);
  return parts !== null && !parts.diagnostics.includes(`"code":"${UNKEPT}"`);
}

/**
 * An entry file's three lines: the entry's JSON, its printed form, and its
 * diagnostics' JSON, each ended by a newline (JSON has none of its own). A
 * file with another shape is an older format, or one still being written by
 * another process: a miss, either way.
 */
function readEntryFile(file: string): [string, string, string] | null {
  const entry = readEntryBytes(file);
  if (entry === null) return null;
  const { bytes, ends } = entry;
  return [bytes.toString("utf8", 0, ends[0]), bytes.toString("utf8", ends[0] + 1, ends[1]), bytes.toString("utf8", ends[1] + 1, ends[2])];
}

/**
 * An entry file's bytes and where its three lines end (see {@link readEntryFile}); null on a miss or another shape.
 * `scratch`: read into its buffer (grown when too small), which the bytes returned are a view of.
 */
function readEntryBytes(file: string, scratch: { buffer: Buffer } | null = null): { bytes: Buffer; ends: [number, number, number] } | null {
  let bytes: Buffer;
  try {
    // A miss is asked without an exception (building one costs more than the lookup: a cold run misses thousands).
    if (fs.statSync(file, { throwIfNoEntry: false }) === undefined) return null;
    bytes = scratch === null ? fs.readFileSync(file) : readInto(file, scratch);
  } catch {
    return null;
  }
  const ends = lineEnds((from) => bytes.indexOf(10, from), bytes.length);
  return ends === null ? null : { bytes, ends };
}

/**
 * A file's bytes, read into `scratch.buffer` (doubled while a read fills it), as a view of it. A read that leaves
 * room is taken as the last: a regular file reads short only at its end (were it ever otherwise, the entry would
 * be incomplete, which its reader takes as a miss). One read, not a stat and a read to the end, for each of the
 * thousands of entries of a warm run.
 */
function readInto(file: string, scratch: { buffer: Buffer }): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    let length = 0;
    for (;;) {
      if (scratch.buffer.length - length < 4096) {
        const grown = Buffer.allocUnsafeSlow(Math.max(64 * 1024, 2 * scratch.buffer.length));
        scratch.buffer.copy(grown, 0, 0, length);
        scratch.buffer = grown;
      }
      const n = fs.readSync(fd, scratch.buffer, length, scratch.buffer.length - length, null);
      length += n;
      if (n === 0 || length < scratch.buffer.length) return scratch.buffer.subarray(0, length);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where the three lines of an entry (file bytes, or an {@link entryText}) end: three newlines, the last of them its
 * last character; null for any other shape.
 */
function lineEnds(newlineFrom: (from: number) => number, length: number): [number, number, number] | null {
  const first = newlineFrom(0);
  const second = first < 0 ? -1 : newlineFrom(first + 1);
  const third = second < 0 ? -1 : newlineFrom(second + 1);
  return third >= 0 && third === length - 1 ? [first, second, third] : null;
}

function isCurrent(lines: [string, string, string] | null): boolean {
  try {
    return lines !== null && decodeEntry(JSON.parse(lines[0]) as Entry) !== null;
  } catch {
    return false;
  }
}

/**
 * Writes a new entry file in place, created exclusively: a content hash's
 * entry is the same whoever writes it, so an existing file is only replaced
 * (whole, through a temp file) when it is not a complete entry of this format.
 * A reader that meets a file being written sees an incomplete one, a miss
 * (see {@link readEntryFile}). Creating the file in place costs a third of a
 * write through a temp file and a rename, measured on this machine's ext4:
 * a cold `comity analyze` of 2,000 changed files writes 4,000 entries.
 */
function writeEntryFile(target: string, text: EntryText): void {
  try {
    fs.writeFileSync(target, text, { flag: "wx" });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" && isCurrent(readEntryFile(target))) return;
    if (code === "ENOENT") {
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      try {
        fs.writeFileSync(target, text, { flag: "wx" });
        return;
      } catch {
        // raced, or still failing: the replacing write below says which
      }
    }
  }
  writeFileAtomic(target, text);
}

/**
 * A cache entry in flat positional arrays: no repeated keys, and one array
 * per file instead of one per symbol, which is what reading a warm cache
 * spends its time building and collecting. Each symbol's detail is JSON
 * inside the JSON: one string to read
 * past instead of a dozen arrays to build, decoded only when someone asks for
 * it, and written without what the record already says (its name and kind),
 * without trailing empty parts, with one-letter parameter kinds. The rendered
 * signature is kept although the detail gives it: printing symbols (what a
 * warm `comity symbols` does) then decodes and renders nothing.
 */
/**
 * modifiers, type parameters (name, constraint, default, and their modifiers when they have some), parameters (0:
 * none), returns, heritage (null: none), type, value, overloads (each a Detail of the same symbol), name and kind when
 * not the record's; trailing nulls left out.
 */
type Detail = [
  string[],
  Array<[string, string | null, string | null, string[]?]>,
  Array<ShortParam> | 0,
  (string | null)?,
  (string[] | null)?,
  (string | null)?,
  (string | null)?,
  (Detail[] | null)?,
  (string | null)?,
  (SymbolKind | null)?,
];
/** name, one-letter kind, optional, default, type; trailing nulls left out. */
type ShortParam = [string, string, 0 | 1, (string | null)?, (string | null)?];
/** Per symbol, 12 slots: name, qualified name (0: the name), kind, exported, range (4 numbers), signature hash, body hash, rendered signature, detail JSON. */
const SYMBOL_SLOTS = 12;
type Entry = {
  v: 6;
  l: FileSymbols["language"];
  s: Array<string | number>;
  /** Per reference, 3 slots: kind, name, module. */
  r: Array<string | null>;
  d: FileSymbols["diagnostics"];
  /** The default export's qualified name, when the module has a named one. */
  x?: string;
};

const PARAM_KIND: Record<ParamInfo["kind"], string> = { positional: "p", positional_only: "o", positional_or_keyword: "k", keyword_only: "w", rest: "r", var_keyword: "v" };
const PARAM_KIND_OF: Record<string, ParamInfo["kind"]> = Object.fromEntries(Object.entries(PARAM_KIND).map(([k, v]) => [v, k as ParamInfo["kind"]]));

function trimNulls<T extends unknown[]>(a: T, keep: number): T {
  let n = a.length;
  while (n > keep && a[n - 1] === null) n--;
  a.length = n;
  return a;
}

function encodeDetail(x: SignatureInfo, name: string, kind: SymbolKind): Detail {
  const params: ShortParam[] | 0 = x.params === null ? 0 : x.params.map((p) => trimNulls<ShortParam>([p.name, PARAM_KIND[p.kind], p.optional ? 1 : 0, p.default, p.type], 3));
  return trimNulls<Detail>(
    [
      [...x.modifiers],
      x.type_params.map((t) => (t.modifiers === undefined ? [t.name, t.constraint, t.default] : [t.name, t.constraint, t.default, [...t.modifiers]])),
      params,
      x.returns,
      x.heritage.length === 0 ? null : [...x.heritage],
      x.type,
      x.value,
      x.overloads.length === 0 ? null : x.overloads.map((o) => encodeDetail(o, name, kind)),
      x.name === name ? null : x.name,
      x.kind === kind ? null : x.kind,
    ],
    3,
  );
}

function decodeDetail(a: Detail, name: string, kind: SymbolKind): SignatureInfo {
  const params = a[2];
  return {
    name: a[8] ?? name,
    kind: a[9] ?? kind,
    modifiers: a[0],
    type_params: a[1].map(([tname, constraint, def, modifiers]) => (modifiers === undefined ? { name: tname, constraint, default: def } : { name: tname, constraint, default: def, modifiers })),
    params:
      params === 0
        ? null
        : params.map(([pname, pkind, optional, def, type]) => ({ name: pname, kind: PARAM_KIND_OF[pkind] ?? "positional", optional: optional === 1, default: def ?? null, type: type ?? null })),
    returns: a[3] ?? null,
    heritage: a[4] ?? [],
    type: a[5] ?? null,
    value: a[6] ?? null,
    overloads: (a[7] ?? []).map((o) => decodeDetail(o, name, kind)),
  };
}

/**
 * A result as the cache stores it: three lines, its entry's JSON, its
 * {@link printedSymbols} and its diagnostics' JSON. Also how a pool's workers
 * that extract send results back: a string clones faster than records, the
 * pool's thread stores it as it is (once the workers are done), and builds no
 * detail object until someone reads one.
 */
export function entryText(r: FileSymbols, options: { printedOnly?: boolean } = {}): string {
  // Printed only (nothing will store it, and the reader prints): the first line is left empty, not encoded for nothing.
  return `${options.printedOnly === true ? "" : JSON.stringify(encodeEntry(r))}\n${printedSymbols(r)}\n${JSON.stringify(r.diagnostics)}\n`;
}

/** An {@link entryText}'s printed form (of the entry's kind: a string, or bytes) and its diagnostics' JSON; null when it is not one. */
export function printedOfEntryText<T extends EntryText>(text: T): { readonly printed: T; readonly diagnostics: string } | null {
  if (typeof text === "string") {
    const ends = lineEnds((from) => text.indexOf("\n", from), text.length);
    return ends === null ? null : { printed: text.slice(ends[0] + 1, ends[1]) as T, diagnostics: text.slice(ends[1] + 1, ends[2]) };
  }
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const ends = lineEnds((from) => bytes.indexOf(10, from), bytes.length);
  return ends === null ? null : { printed: bytes.subarray(ends[0] + 1, ends[1]) as unknown as T, diagnostics: bytes.toString("utf8", ends[1] + 1, ends[2]) };
}

/** An {@link entryText} back as this path's symbols, with lazily decoded details; null when it is not one. */
export function fromEntryText(repoPath: string, text: EntryText): FileSymbols | null {
  try {
    const first = typeof text === "string" ? text.slice(0, text.indexOf("\n")) : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString("utf8", 0, text.indexOf(10));
    return cachedFor(repoPath, decodeEntry(JSON.parse(first) as Entry));
  } catch {
    return null;
  }
}

/** A cache entry as this path's symbols (an entry is shared by every file with the same content). */
export function cachedFor(repoPath: string, hit: Omit<FileSymbols, "path"> | null): FileSymbols | null {
  return hit === null ? null : { path: repoPath, ...hit, diagnostics: hit.diagnostics.map((d) => ({ ...d, path: repoPath })) };
}

function encodeEntry(r: FileSymbols): Entry {
  const s: Entry["s"] = [];
  for (const x of r.symbols) {
    const { start_line, start_column, end_line, end_column } = x.range;
    const qualified = x.qualified_name === x.name ? 0 : x.qualified_name;
    s.push(
      x.name,
      qualified,
      x.kind,
      x.exported ? 1 : 0,
      start_line,
      start_column,
      end_line,
      end_column,
      x.signature_hash,
      x.body_hash,
      x.signature,
      JSON.stringify(encodeDetail(x.detail, x.name, x.kind)),
    );
  }
  const refs: Entry["r"] = [];
  for (const x of r.references) refs.push(x.kind, x.name, x.module);
  return { v: 6, l: r.language, s, r: refs, d: r.diagnostics, ...(r.default_export === undefined ? {} : { x: r.default_export }) };
}

/**
 * A symbol read from the cache. Its detail is decoded when first read: most
 * cached symbols never are (the rendered signature is stored beside it, so
 * printing a symbol does not decode it). It is an own, enumerable accessor
 * defined after the other fields, so spreads, JSON, clones and key order see
 * the same record as a fresh extraction; the undecoded detail waits in a
 * private field, which none of them see. (A class rather than an object
 * literal: a private field costs nothing to set, where a hidden property was a
 * third `Object.defineProperty` per record, and those were a sixth of a warm
 * run.)
 */
class CachedSymbol {
  declare readonly name: string;
  declare readonly qualified_name: string;
  declare readonly kind: SymbolKind;
  declare readonly exported: boolean;
  declare readonly range: SymbolRecord["range"];
  declare readonly signature_hash: string;
  declare readonly body_hash: string;
  declare readonly signature: string;
  declare readonly detail: SignatureInfo;
  #detail: string | SignatureInfo;

  constructor(s: Entry["s"], i: number) {
    const name = s[i] as string;
    const qualified = s[i + 1] as string | 0;
    this.name = name;
    this.qualified_name = qualified === 0 ? name : qualified;
    this.kind = s[i + 2] as SymbolKind;
    this.exported = s[i + 3] === 1;
    this.range = { start_line: s[i + 4] as number, start_column: s[i + 5] as number, end_line: s[i + 6] as number, end_column: s[i + 7] as number };
    this.signature_hash = s[i + 8] as string;
    this.body_hash = s[i + 9] as string;
    this.signature = s[i + 10] as string;
    this.#detail = s[i + 11] as string;
    Object.defineProperty(this, "detail", DETAIL);
  }

  /** The `detail` of `symbol`, decoded on first read: every instance's getter (see DETAIL). */
  static detailOf(symbol: CachedSymbol): SignatureInfo {
    const pending = symbol.#detail;
    if (typeof pending !== "string") return pending;
    const detail = decodeDetail(JSON.parse(pending) as Detail, symbol.name, symbol.kind);
    symbol.#detail = detail;
    return detail;
  }
}

// One getter function for every cached record. Getters written in each record's literal cost closures, their
// context and their accessor pairs per symbol: measured, 770 against 210 bytes a record, and a warm run of
// 165,000 symbols spent more time collecting than reading.
const DETAIL = {
  get(this: CachedSymbol): SignatureInfo {
    return CachedSymbol.detailOf(this);
  },
  enumerable: true,
  configurable: true,
};

function decodeEntry(e: Entry): Omit<FileSymbols, "path"> | null {
  const { s, r } = e;
  if (e.v !== 6 || s.length % SYMBOL_SLOTS !== 0 || r.length % 3 !== 0) return null;
  const symbols: SymbolRecord[] = [];
  for (let i = 0; i < s.length; i += SYMBOL_SLOTS) symbols.push(new CachedSymbol(s, i));
  const references: ReferenceRecord[] = [];
  for (let i = 0; i < r.length; i += 3) references.push({ kind: r[i] as ReferenceRecord["kind"], name: r[i + 1] as string, module: r[i + 2] ?? null });
  return { language: e.l, symbols, references, diagnostics: e.d, ...(typeof e.x === "string" ? { default_export: e.x } : {}) };
}
