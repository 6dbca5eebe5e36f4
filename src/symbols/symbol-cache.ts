import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { renderSignature } from "./signature.js";
import type { FileSymbols, ParamInfo, ReferenceRecord, SignatureInfo, SymbolKind, SymbolRecord } from "./types.js";
import { EXTRACTOR_VERSION } from "./extractor-version.js";

/** Per-content cache of symbol results: an unchanged file costs a hash and a lookup. */
export interface SymbolCache {
  get(contentHash: string, language: string): Omit<FileSymbols, "path"> | null;
  set(contentHash: string, language: string, result: FileSymbols): void;
}

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
export function createSymbolCache(dir: string, options: { maxEntries?: number } = {}): SymbolCache {
  const share = Math.max(1, Math.ceil((options.maxEntries ?? 50_000) / SHARDS));
  const prunedShards = new Set<string>();
  const file = (hash: string, language: string): string => path.join(dir, hash.slice(0, 2), `v${EXTRACTOR_VERSION}-${language}-${hash}.json`);
  return {
    get(hash, language) {
      try {
        return decodeEntry(JSON.parse(fs.readFileSync(file(hash, language), "utf8")) as Entry);
      } catch {
        return null;
      }
    },
    set(hash, language, result) {
      try {
        const target = file(hash, language);
        writeFileAtomic(target, JSON.stringify(encodeEntry(result)));
        const shard = path.dirname(target);
        if (!prunedShards.has(shard)) {
          prunedShards.add(shard);
          pruneShard(shard, share, target);
        }
      } catch {
        // A cache that cannot be written is only slower.
      }
    },
  };
}

/** Leaves at most `keep` files in one folder of the cache, removing the least recently written (never `justWritten`). */
function pruneShard(shard: string, keep: number, justWritten: string): void {
  const names = fs.readdirSync(shard);
  if (names.length <= keep) return;
  const files: Array<{ file: string; mtimeMs: number }> = [];
  for (const n of names) {
    const f = path.join(shard, n);
    if (f === justWritten) continue;
    try {
      files.push({ file: f, mtimeMs: fs.statSync(f).mtimeMs });
    } catch {
      // gone already
    }
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const f of files.slice(0, names.length - keep)) fs.rmSync(f.file, { force: true });
}

/**
 * A cache entry in positional arrays: a tenth of the size of the objects'
 * JSON (no repeated keys, no rendered signature, which is derived), and as
 * much faster to read back. Each symbol's detail is JSON inside the JSON: one
 * string to read past instead of a dozen arrays to build, and decoded only
 * when someone asks for it.
 */
type Sig = [string, SymbolKind, string[], Array<[string, string | null, string | null]>, Array<[string, ParamInfo["kind"], 0 | 1, string | null, string | null]> | null, string | null, string[], string | null, string | null];
type Entry = {
  v: 3;
  l: FileSymbols["language"];
  /** name, qualified name, kind, exported, range (4 numbers), signature hash, body hash, JSON of [Sig, Sig[]]. */
  s: Array<[string, string, SymbolKind, 0 | 1, number, number, number, number, string, string, string]>;
  r: Array<[ReferenceRecord["kind"], string, string | null]>;
  d: FileSymbols["diagnostics"];
};

function encodeSig(x: SignatureInfo): Sig {
  return [
    x.name,
    x.kind,
    [...x.modifiers],
    x.type_params.map((t) => [t.name, t.constraint, t.default]),
    x.params === null ? null : x.params.map((p) => [p.name, p.kind, p.optional ? 1 : 0, p.default, p.type]),
    x.returns,
    [...x.heritage],
    x.type,
    x.value,
  ];
}

function decodeSig(a: Sig, overloads: SignatureInfo[] = []): SignatureInfo {
  return {
    name: a[0],
    kind: a[1],
    modifiers: a[2],
    type_params: a[3].map(([name, constraint, def]) => ({ name, constraint, default: def })),
    params: a[4] === null ? null : a[4].map(([name, kind, optional, def, type]) => ({ name, kind, optional: optional === 1, default: def, type })),
    returns: a[5],
    heritage: a[6],
    type: a[7],
    value: a[8],
    overloads,
  };
}

/** A file's symbols in the cache's compact form, e.g. to post from a worker thread (cheaper to clone than records). */
export type PackedSymbols = Entry;

/** A result in the cache's compact form (see `Entry`). */
export function packSymbols(r: FileSymbols): PackedSymbols {
  return encodeEntry(r);
}

/** A packed result back as a file's symbols, with lazily decoded details as a cache hit has. */
export function unpackSymbols(path: string, packed: PackedSymbols): FileSymbols | null {
  return cachedFor(path, decodeEntry(packed));
}

/** A cache entry as this path's symbols (an entry is shared by every file with the same content). */
export function cachedFor(repoPath: string, hit: Omit<FileSymbols, "path"> | null): FileSymbols | null {
  return hit === null ? null : { path: repoPath, ...hit, diagnostics: hit.diagnostics.map((d) => ({ ...d, path: repoPath })) };
}

function encodeEntry(r: FileSymbols): Entry {
  return {
    v: 3,
    l: r.language,
    s: r.symbols.map((x) => [
      x.name,
      x.qualified_name,
      x.kind,
      x.exported ? 1 : 0,
      x.range.start_line,
      x.range.start_column,
      x.range.end_line,
      x.range.end_column,
      x.signature_hash,
      x.body_hash,
      JSON.stringify([encodeSig(x.detail), x.detail.overloads.map(encodeSig)]),
    ]),
    r: r.references.map((x) => [x.kind, x.name, x.module]),
    d: r.diagnostics,
  };
}

/** Where a cached record keeps its undecoded detail: a non-enumerable own slot, so spreads, JSON and clones skip it. */
const PENDING = Symbol("comity.symbols.pendingDetail");
const RENDERED = Symbol("comity.symbols.renderedSignature");
type Lazy = SymbolRecord & { [PENDING]: string | SignatureInfo; [RENDERED]?: string };

function lazyDetail(this: Lazy): SignatureInfo {
  const pending = this[PENDING];
  if (typeof pending !== "string") return pending;
  const [sig, overloads] = JSON.parse(pending) as [Sig, Sig[]];
  const detail = decodeSig(sig, overloads.map((o) => decodeSig(o)));
  this[PENDING] = detail;
  return detail;
}

function lazySignature(this: Lazy): string {
  const known = this[RENDERED];
  if (known !== undefined) return known;
  const rendered = renderSignature(this.detail);
  Object.defineProperty(this, RENDERED, { value: rendered });
  return rendered;
}

// One pair of getter functions for every cached record. Getters written in each record's literal cost two
// closures, their context and their accessor pairs per symbol: measured, 770 against 210 bytes a record, and a
// warm run of 165,000 symbols spent more time collecting than reading.
const DETAIL = { get: lazyDetail, enumerable: true, configurable: true };
const SIGNATURE = { get: lazySignature, enumerable: true, configurable: true };

function decodeEntry(e: Entry): Omit<FileSymbols, "path"> | null {
  if (e.v !== 3) return null;
  const symbols: SymbolRecord[] = e.s.map(([name, qualified_name, kind, exported, sl, sc, el, ec, signature_hash, body_hash, detailJson]) => {
    // The detail and the rendered signature are decoded when first read: most cached symbols never are. They are
    // own, enumerable accessors defined in key order, so JSON, spreads and worker messages see the same record
    // as a fresh extraction; the undecoded detail waits in a non-enumerable slot.
    const record = { name, qualified_name, kind, exported: exported === 1, range: { start_line: sl, start_column: sc, end_line: el, end_column: ec }, signature_hash, body_hash };
    Object.defineProperty(record, "signature", SIGNATURE);
    Object.defineProperty(record, "detail", DETAIL);
    Object.defineProperty(record, PENDING, { value: detailJson, writable: true });
    return record as SymbolRecord;
  });
  return { language: e.l, symbols, references: e.r.map(([kind, name, module]) => ({ kind, name, module })), diagnostics: e.d };
}
