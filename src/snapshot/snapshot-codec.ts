import type { EntryType, IndexBase, IndexedPath, Snapshot, SnapshotEntry } from "./snapshot.js";

/**
 * Binary snapshot format, version 3 (little-endian):
 *
 *   "CSNP" u32 version u32 count f64 startedMs u32 rootBytes root(utf8)
 *   u32 pathBytes  paths: each entry's path as (u16 shared prefix length, in
 *                  UTF-16 units, with the previous path) + suffix, NUL-ended,
 *                  all UTF-8 (like git's index v4: a sorted tree shares a lot)
 *   u8[count]      flags: type (2 bits), executable, racy, has hash, git hash
 *   pad to 8, f64[count*4]  size, mtimeMs, ctimeMs, ino
 *   u32 hashBytes  hashes: 8 bytes (xxhash64) or 20 (git blob id) per entry that has one
 *   u32 baseBytes  0, or a snapshot's index base: u32 count, then per listed
 *                  tracked path u32 mode, 20-byte blob id, path (utf8, NUL-ended);
 *                  u32 count, missing paths (NUL-ended); u32 checksumBytes,
 *                  checksum; the rest: the index file's bytes
 *
 * Compact (about 60 bytes a path) and fast: stats are one typed array, read
 * without parsing text.
 */
const MAGIC = 0x504e5343; // "CSNP"
const VERSION = 3;
const TYPES: readonly EntryType[] = ["file", "symlink", "dir"];

export function encodeSnapshot(s: Snapshot): Buffer {
  const n = s.entries.length;
  const root = Buffer.from(s.root, "utf8");
  const flags = new Uint8Array(n);
  const stats = new Float64Array(n * 4);
  const pathParts: string[] = [];
  const shared = new Uint16Array(n);
  const hashHex: string[] = [];
  let prev = "";
  for (let i = 0; i < n; i++) {
    const e = s.entries[i] as SnapshotEntry;
    let k = 0;
    const max = Math.min(prev.length, e.path.length, 0xffff);
    while (k < max && prev.charCodeAt(k) === e.path.charCodeAt(k)) k++;
    // Never split a surrogate pair between the shared part and the suffix.
    if (k > 0 && k < e.path.length && isLowSurrogate(e.path.charCodeAt(k))) k--;
    shared[i] = k;
    pathParts.push(e.path.slice(k));
    prev = e.path;
    const hash = e.hash;
    flags[i] = TYPES.indexOf(e.type) | (e.executable ? 4 : 0) | (e.racy ? 8 : 0) | (hash === null ? 0 : 16) | (hash !== null && hash.length === 40 ? 32 : 0);
    if (hash !== null) hashHex.push(hash);
    stats[i * 4] = e.size;
    stats[i * 4 + 1] = e.mtimeMs;
    stats[i * 4 + 2] = e.ctimeMs;
    stats[i * 4 + 3] = e.ino;
  }
  const suffixes = Buffer.from(pathParts.join("\0") + (n > 0 ? "\0" : ""), "utf8");
  const hashes = Buffer.from(hashHex.join(""), "hex");
  const headLen = 4 + 4 + 4 + 8 + 4 + root.length;
  const pathsLen = 4 + n * 2 + suffixes.length;
  const beforeStats = headLen + pathsLen + n;
  const pad = (8 - (beforeStats % 8)) % 8;
  const base = s.base === undefined ? Buffer.alloc(0) : encodeBase(s.base);
  const out = Buffer.alloc(beforeStats + pad + stats.byteLength + 4 + hashes.length + 4 + base.length);
  let o = 0;
  o = out.writeUInt32LE(MAGIC, o);
  o = out.writeUInt32LE(VERSION, o);
  o = out.writeUInt32LE(n, o);
  o = out.writeDoubleLE(s.startedMs, o);
  o = out.writeUInt32LE(root.length, o);
  o += root.copy(out, o);
  o = out.writeUInt32LE(n * 2 + suffixes.length, o);
  o += Buffer.from(shared.buffer, shared.byteOffset, shared.byteLength).copy(out, o);
  o += suffixes.copy(out, o);
  o += Buffer.from(flags.buffer).copy(out, o);
  o += pad;
  o += Buffer.from(stats.buffer).copy(out, o);
  o = out.writeUInt32LE(hashes.length, o);
  o += hashes.copy(out, o);
  o = out.writeUInt32LE(base.length, o);
  base.copy(out, o);
  return out;
}

function encodeBase(b: IndexBase): Buffer {
  const checksum = Buffer.from(b.checksum, "latin1");
  const parts: Buffer[] = [u32(b.indexed.length)];
  for (const x of b.indexed) parts.push(u32(x.mode), Buffer.from(x.oid, "hex"), Buffer.from(`${x.path}\0`, "utf8"));
  parts.push(u32(b.missing.length), Buffer.from(b.missing.map((m) => `${m}\0`).join(""), "utf8"), u32(checksum.length), checksum, Buffer.from(b.index.buffer, b.index.byteOffset, b.index.byteLength));
  return Buffer.concat(parts);
}

function decodeBase(buf: Buffer): IndexBase | null {
  let o = 0;
  const n = buf.readUInt32LE(o);
  o += 4;
  const indexed: IndexedPath[] = [];
  for (let i = 0; i < n; i++) {
    const mode = buf.readUInt32LE(o);
    const oid = buf.toString("hex", o + 4, o + 24);
    const nul = buf.indexOf(0, o + 24);
    if (nul < 0) return null;
    indexed.push({ path: buf.toString("utf8", o + 24, nul), mode, oid });
    o = nul + 1;
  }
  const m = buf.readUInt32LE(o);
  o += 4;
  const missing: string[] = [];
  for (let i = 0; i < m; i++) {
    const nul = buf.indexOf(0, o);
    if (nul < 0) return null;
    missing.push(buf.toString("utf8", o, nul));
    o = nul + 1;
  }
  const c = buf.readUInt32LE(o);
  o += 4;
  if (o + c > buf.length) return null;
  const checksum = buf.toString("latin1", o, o + c);
  return { checksum, index: new Uint8Array(buf.subarray(o + c)), indexed, missing };
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** Decodes what `encodeSnapshot` wrote, or returns null for anything else (truncated, foreign, another version). */
export function decodeSnapshot(data: Uint8Array): Snapshot | null {
  try {
    return decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch {
    return null;
  }
}

function decode(buf: Buffer): Snapshot | null {
  if (buf.length < 24 || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== VERSION) return null;
  const n = buf.readUInt32LE(8);
  const startedMs = buf.readDoubleLE(12);
  const rootLen = buf.readUInt32LE(20);
  let o = 24;
  const root = buf.toString("utf8", o, o + rootLen);
  o += rootLen;
  const pathsLen = buf.readUInt32LE(o);
  o += 4;
  if (o + pathsLen + n > buf.length || pathsLen < n * 2) return null;
  const sharedBytes = buf.subarray(o, o + n * 2);
  const suffixes = buf.toString("utf8", o + n * 2, o + pathsLen).split("\0");
  o += pathsLen;
  const flags = buf.subarray(o, o + n);
  o += n;
  o += (8 - (o % 8)) % 8;
  if (o + n * 32 + 4 > buf.length) return null;
  const stats = new Float64Array(buf.buffer.slice(buf.byteOffset + o, buf.byteOffset + o + n * 32));
  o += n * 32;
  const hashLen = buf.readUInt32LE(o);
  o += 4;
  if (o + hashLen + 4 > buf.length || (n > 0 && suffixes.length !== n + 1)) return null;
  const baseAt = o + hashLen;
  const baseLen = buf.readUInt32LE(baseAt);
  if (baseAt + 4 + baseLen !== buf.length) return null;
  const base = baseLen === 0 ? undefined : decodeBase(buf.subarray(baseAt + 4));
  if (base === null) return null;
  const entries: SnapshotEntry[] = new Array(n);
  let prev = "";
  for (let i = 0; i < n; i++) {
    const f = flags[i] ?? 0;
    const type = TYPES[f & 3];
    if (type === undefined) return null;
    let hash: string | null = null;
    if (f & 16) {
      const len = f & 32 ? 20 : 8;
      if (o + len > buf.length) return null;
      hash = buf.toString("hex", o, o + len);
      o += len;
    }
    const p = prev.slice(0, sharedBytes.readUInt16LE(i * 2)) + (suffixes[i] ?? "");
    entries[i] = {
      path: p,
      type,
      executable: (f & 4) !== 0,
      size: stats[i * 4] ?? 0,
      mtimeMs: stats[i * 4 + 1] ?? 0,
      ctimeMs: stats[i * 4 + 2] ?? 0,
      ino: stats[i * 4 + 3] ?? 0,
      hash,
      racy: (f & 8) !== 0,
    };
    prev = p;
  }
  if (o !== baseAt) return null;
  return base === undefined ? { version: 1, root, startedMs, entries } : { version: 1, root, startedMs, entries, base };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
