import * as fs from "node:fs";
import * as path from "node:path";
import { inflateSync } from "node:zlib";

export type GitObjectType = "commit" | "tree" | "blob" | "tag";

export interface GitObject {
  readonly type: GitObjectType;
  readonly content: Buffer;
}

/** What the reader cannot answer by itself (a caller may then ask isomorphic-git): a v1 pack index, a broken entry. */
export class UnsupportedObjectStore extends Error {}

const TYPES: Record<number, GitObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface PackIndex {
  readonly pack: string;
  readonly fanout: Uint32Array;
  readonly ids: Buffer;
  readonly offsets: Buffer;
  readonly largeOffsets: Buffer;
  readonly count: number;
}

/**
 * Reads git objects (SHA-1 repos) with node's own zlib: loose objects, and
 * v2 pack indexes with their packs, resolving offset and reference deltas;
 * alternates are followed. The hook reads one file at HEAD with it instead
 * of loading isomorphic-git (about 50 ms of module loading a process).
 * Synchronous: each read is a few small file reads.
 */
export function createObjectReader(objectsDir: string): { read(oid: string): GitObject | null } {
  const dirs = objectDirs(objectsDir);
  let indexes: PackIndex[] | null = null;
  const packIndexes = (): PackIndex[] => (indexes ??= dirs.flatMap(loadPackIndexes));

  const read = (oid: string, depth = 0): GitObject | null => {
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    for (const dir of dirs) {
      let raw: Buffer;
      try {
        raw = fs.readFileSync(path.join(dir, oid.slice(0, 2), oid.slice(2)));
      } catch {
        continue;
      }
      return parseLoose(raw, oid);
    }
    const id = Buffer.from(oid, "hex");
    for (const idx of packIndexes()) {
      const offset = findOffset(idx, id);
      if (offset !== null) return readPacked(idx.pack, offset, (base) => (depth > 64 ? null : read(base, depth + 1)));
    }
    return null;
  };
  return { read: (oid) => read(oid) };
}

/**
 * The content of `filepath` in the tree of commit `commit`, or null when the
 * commit has no such file (absent, a folder, a submodule). Throws
 * {@link UnsupportedObjectStore} when the store cannot be read here.
 */
export function readFileAtCommit(reader: { read(oid: string): GitObject | null }, commit: string, filepath: string): Buffer | null {
  const c = reader.read(commit);
  if (c === null || c.type !== "commit") throw new UnsupportedObjectStore(`commit ${commit} not found in the object store`);
  const m = /^tree ([0-9a-f]{40})$/m.exec(c.content.subarray(0, 200).toString("latin1"));
  if (m === null) throw new UnsupportedObjectStore(`commit ${commit} has no tree line`);
  let oid = m[1] as string;
  const parts = filepath.split("/").filter((p) => p !== "");
  for (let i = 0; i < parts.length; i++) {
    const tree = reader.read(oid);
    if (tree === null || tree.type !== "tree") return null;
    const entry = findTreeEntry(tree.content, parts[i] as string);
    if (entry === null) return null;
    const isLast = i === parts.length - 1;
    if (isLast && (entry.mode === "40000" || entry.mode === "160000")) return null;
    if (!isLast && entry.mode !== "40000") return null;
    oid = entry.oid;
  }
  const blob = reader.read(oid);
  return blob !== null && blob.type === "blob" ? blob.content : null;
}

function findTreeEntry(tree: Buffer, name: string): { mode: string; oid: string } | null {
  const want = Buffer.from(name, "utf8");
  let i = 0;
  while (i < tree.length) {
    const space = tree.indexOf(0x20, i);
    const nul = tree.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > tree.length) throw new UnsupportedObjectStore("malformed tree");
    if (nul - space - 1 === want.length && tree.compare(want, 0, want.length, space + 1, nul) === 0) {
      return { mode: tree.toString("latin1", i, space), oid: tree.toString("hex", nul + 1, nul + 21) };
    }
    i = nul + 21;
  }
  return null;
}

function objectDirs(objectsDir: string): string[] {
  const out = [objectsDir];
  try {
    for (const line of fs.readFileSync(path.join(objectsDir, "info", "alternates"), "utf8").split("\n")) {
      const l = line.trim();
      if (l !== "" && !l.startsWith("#")) out.push(path.resolve(objectsDir, l));
    }
  } catch {
    // no alternates
  }
  return out;
}

function parseLoose(raw: Buffer, oid: string): GitObject {
  const data = inflateSync(raw);
  const nul = data.indexOf(0);
  const [type, size] = data.toString("latin1", 0, nul === -1 ? 0 : nul).split(" ");
  const t = Object.values(TYPES).find((x) => x === type);
  if (nul === -1 || t === undefined || Number(size) !== data.length - nul - 1) throw new UnsupportedObjectStore(`loose object ${oid} is malformed`);
  return { type: t, content: data.subarray(nul + 1) };
}

function loadPackIndexes(objectsDir: string): PackIndex[] {
  const packDir = path.join(objectsDir, "pack");
  let names: string[];
  try {
    names = fs
      .readdirSync(packDir)
      .filter((n) => n.endsWith(".idx"))
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => {
    const buf = fs.readFileSync(path.join(packDir, n));
    if (buf.readUInt32BE(0) !== 0xff744f63 || buf.readUInt32BE(4) !== 2) throw new UnsupportedObjectStore(`${n}: only version 2 pack indexes are read here`);
    const fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) fanout[i] = buf.readUInt32BE(8 + i * 4);
    const count = fanout[255] as number;
    const idsAt = 8 + 1024;
    const offsetsAt = idsAt + count * 20 + count * 4;
    return {
      pack: path.join(packDir, n.replace(/\.idx$/, ".pack")),
      fanout,
      count,
      ids: buf.subarray(idsAt, idsAt + count * 20),
      offsets: buf.subarray(offsetsAt, offsetsAt + count * 4),
      largeOffsets: buf.subarray(offsetsAt + count * 4),
    };
  });
}

function findOffset(idx: PackIndex, id: Buffer): number | null {
  const first = id[0] as number;
  let lo = first === 0 ? 0 : (idx.fanout[first - 1] as number);
  let hi = (idx.fanout[first] as number) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const cmp = idx.ids.compare(id, 0, 20, mid * 20, mid * 20 + 20);
    if (cmp === 0) {
      const off = idx.offsets.readUInt32BE(mid * 4);
      if ((off & 0x80000000) === 0) return off;
      return Number(idx.largeOffsets.readBigUInt64BE((off & 0x7fffffff) * 8));
    }
    if (cmp < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

function readPacked(pack: string, offset: number, readBase: (oid: string) => GitObject | null): GitObject {
  const fd = fs.openSync(pack, "r");
  try {
    // The chain of deltas down to a full object, then applied from the base up.
    const deltas: Buffer[] = [];
    let at = offset;
    for (let hops = 0; ; hops++) {
      if (hops > 4096) throw new UnsupportedObjectStore("delta chain too long");
      const entry = readEntry(fd, at);
      if (entry.type === OFS_DELTA) {
        deltas.push(entry.data);
        at = entry.baseOffset as number;
        continue;
      }
      let base: GitObject;
      if (entry.type === REF_DELTA) {
        const b = readBase(entry.baseId as string);
        if (b === null) throw new UnsupportedObjectStore(`delta base ${entry.baseId} not found`);
        deltas.push(entry.data);
        base = b;
      } else {
        const t = TYPES[entry.type];
        if (t === undefined) throw new UnsupportedObjectStore(`pack entry of type ${entry.type}`);
        base = { type: t, content: entry.data };
      }
      let content = base.content;
      for (let i = deltas.length - 1; i >= 0; i--) content = applyDelta(content, deltas[i] as Buffer);
      return { type: base.type, content };
    }
  } finally {
    fs.closeSync(fd);
  }
}

function readEntry(fd: number, offset: number): { type: number; data: Buffer; baseOffset?: number; baseId?: string } {
  const head = Buffer.alloc(32);
  const got = fs.readSync(fd, head, 0, 32, offset);
  let i = 0;
  let c = head[i++] as number;
  const type = (c >> 4) & 7;
  let size = c & 15;
  let shift = 4;
  while (c & 0x80) {
    c = head[i++] as number;
    size += (c & 0x7f) * 2 ** shift;
    shift += 7;
  }
  let baseOffset: number | undefined;
  let baseId: string | undefined;
  if (type === OFS_DELTA) {
    c = head[i++] as number;
    let back = c & 0x7f;
    while (c & 0x80) {
      c = head[i++] as number;
      back = (back + 1) * 128 + (c & 0x7f);
    }
    baseOffset = offset - back;
  } else if (type === REF_DELTA) {
    baseId = head.toString("hex", i, i + 20);
    i += 20;
  }
  if (i > got) throw new UnsupportedObjectStore("truncated pack entry");
  // Deflated data is at most a little larger than what it holds; the inflater stops at the stream's end.
  const window = Buffer.alloc(size + (size >> 6) + 1024);
  const n = fs.readSync(fd, window, 0, window.length, offset + i);
  const data = inflateSync(window.subarray(0, n));
  if (data.length !== size) throw new UnsupportedObjectStore("pack entry size mismatch");
  return { type, data, ...(baseOffset === undefined ? {} : { baseOffset }), ...(baseId === undefined ? {} : { baseId }) };
}

/** Git's delta format: source and target sizes, then copy (from the base) and insert instructions. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const byte = (): number => {
    if (i >= delta.length) throw new UnsupportedObjectStore("delta truncated");
    return delta[i++] as number;
  };
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    let c: number;
    do {
      if (shift > 49) throw new UnsupportedObjectStore("delta size too large");
      c = byte();
      v += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    return v;
  };
  if (varint() !== base.length) throw new UnsupportedObjectStore("delta base size mismatch");
  const size = varint();
  // A delta cannot make more than it copies or inserts: at most 64 KiB per instruction byte.
  if (size > delta.length * 0x10000) throw new UnsupportedObjectStore("delta target size impossible");
  const out = Buffer.alloc(size);
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++] as number;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) off += byte() * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) len += byte() * 2 ** (8 * b);
      if (len === 0) len = 0x10000;
      if (off + len > base.length || o + len > out.length) throw new UnsupportedObjectStore("delta copy out of range");
      base.copy(out, o, off, off + len);
      o += len;
    } else if (op !== 0) {
      if (o + op > out.length || i + op > delta.length) throw new UnsupportedObjectStore("delta insert out of range");
      delta.copy(out, o, i, i + op);
      i += op;
      o += op;
    } else {
      throw new UnsupportedObjectStore("delta opcode 0");
    }
  }
  if (o !== out.length) throw new UnsupportedObjectStore("delta result size mismatch");
  return out;
}
