/** One stage-0 entry of `.git/index`, with the stat data git recorded for it. */
export interface IndexEntry {
  readonly path: string;
  /** `0o100644`, `0o100755`, `0o120000` (symlink) or `0o160000` (gitlink: a submodule). */
  readonly mode: number;
  readonly oid: string;
  readonly ctimeMs: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** Size truncated to 32 bits, as git stores it (0 on a racily-clean entry git smudged). */
  readonly size: number;
  readonly skipWorktree: boolean;
}

export interface GitIndex {
  readonly version: number;
  /** Stage-0 entries in index order (sorted by path bytes). */
  readonly entries: readonly IndexEntry[];
  /** Tree id of the whole index from the cache-tree (`TREE`) extension, when it is valid. */
  readonly rootTree: string | null;
  /** True when the index is split (`link` extension): its entries are incomplete. */
  readonly split: boolean;
  /** True when some paths had merge conflicts (stages 1-3), which are left out. */
  readonly conflicted: boolean;
}

/**
 * Parses a git index file of version 2, 3 or 4 (v4's prefix-compressed
 * paths included), which isomorphic-git cannot read past v3. Pure: bytes in,
 * entries out. Returns null for anything that is not a readable index.
 */
export function parseGitIndex(buf: Uint8Array): GitIndex | null {
  const entries: IndexEntry[] = [];
  let conflicted = false;
  const walked = walkIndexEntries(buf, (e, data) => {
    if (((e.flags >> 12) & 0x3) !== 0) {
      conflicted = true;
      return;
    }
    const at = e.start;
    entries.push({
      path: e.path.toString("utf8", e.pathStart, e.pathEnd),
      mode: data.readUInt32BE(at + 24),
      oid: data.toString("hex", at + 40, at + 60),
      ctimeMs: data.readUInt32BE(at) * 1000 + data.readUInt32BE(at + 4) / 1e6,
      mtimeMs: data.readUInt32BE(at + 8) * 1000 + data.readUInt32BE(at + 12) / 1e6,
      ino: data.readUInt32BE(at + 20),
      size: data.readUInt32BE(at + 36),
      skipWorktree: (e.extended & 0x4000) !== 0,
    });
  });
  if (walked === null) return null;
  let rootTree: string | null = null;
  let split = false;
  forEachIndexExtension(walked, (sig, body) => {
    if (sig === "TREE") rootTree = cacheTreeRoot(body);
    if (sig === "link") split = true;
  });
  return { version: walked.version, entries, rootTree, split, conflicted };
}

/**
 * One entry as {@link walkIndexEntries} meets it. The same object is handed
 * to every call: its `path` bytes hold only until the next entry.
 */
export interface RawIndexEntry {
  /** Offset of the entry in the index bytes (ctime, mtime, dev, ino, mode, uid, gid, size, oid, flags follow). */
  start: number;
  /** The 16-bit flags: assume-valid (0x8000), extended (0x4000), stage (bits 12-13), path length. */
  flags: number;
  /** The extended flags (v3+; 0 when none): skip-worktree is 0x4000. */
  extended: number;
  path: Buffer;
  pathStart: number;
  pathEnd: number;
}

/** Where an index's entries end, as {@link walkIndexEntries} found them. */
export interface WalkedIndex {
  readonly data: Buffer;
  readonly version: number;
  /** Offset of the first extension (or of the trailing checksum). */
  readonly extensionsAt: number;
}

/**
 * Visits every entry of an index (versions 2-4) without building one: the
 * header, extended flags and paths (v4 prefix compression rebuilt in one
 * reused buffer) are read here once for every reader. Null when the bytes are
 * not an index this code understands.
 */
export function walkIndexEntries(buf: Uint8Array, visit: (entry: RawIndexEntry, data: Buffer) => void): WalkedIndex | null {
  const data = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (data.length < 12 + 20 || data.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const end = data.length - 20; // trailing checksum
  const entry: RawIndexEntry = { start: 0, flags: 0, extended: 0, path: data, pathStart: 0, pathEnd: 0 };
  // Version 4 paths are prefix-compressed: the current path is rebuilt here.
  let path = Buffer.alloc(version === 4 ? 4096 : 0);
  let pathLen = 0;
  let offset = 12;
  for (let i = 0; i < count; i++) {
    if (offset + 62 > end) return null;
    const start = offset;
    const flags = data.readUInt16BE(offset + 60);
    offset += 62;
    let extended = 0;
    if (flags & 0x4000) {
      if (version < 3 || offset + 2 > end) return null;
      extended = data.readUInt16BE(offset);
      offset += 2;
    }
    if (version === 4) {
      // A varint says how many bytes to drop from the previous path, then a NUL-terminated suffix.
      const varint = readIndexVarint(data, offset, end);
      if (varint === null) return null;
      offset = varint.next;
      const nul = data.indexOf(0, offset);
      if (nul < 0 || nul > end || varint.value > pathLen) return null;
      const keep = pathLen - varint.value;
      const total = keep + (nul - offset);
      if (total > path.length) {
        const bigger = Buffer.alloc(Math.max(total, path.length * 2));
        path.copy(bigger, 0, 0, keep);
        path = bigger;
      }
      data.copy(path, keep, offset, nul);
      pathLen = total;
      offset = nul + 1;
      entry.path = path;
      entry.pathStart = 0;
      entry.pathEnd = pathLen;
    } else {
      // The low 12 bits of the flags hold the path's length (0xfff: that long or longer, then look for the NUL).
      const short = flags & 0xfff;
      const nul = short < 0xfff ? offset + short : data.indexOf(0, offset + 0xfff);
      if (nul < 0 || nul >= end || data[nul] !== 0) return null;
      entry.path = data;
      entry.pathStart = offset;
      entry.pathEnd = nul;
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
      offset = start + Math.ceil((nul - start + 1) / 8) * 8;
    }
    entry.start = start;
    entry.flags = flags;
    entry.extended = extended;
    visit(entry, data);
  }
  return { data, version, extensionsAt: offset };
}

/** Calls `visit` with each extension's signature and body, in order. */
export function forEachIndexExtension(walked: WalkedIndex, visit: (signature: string, body: Buffer) => void): void {
  const { data } = walked;
  const end = data.length - 20;
  for (let offset = walked.extensionsAt; offset + 8 <= end; ) {
    const len = data.readUInt32BE(offset + 4);
    visit(data.toString("latin1", offset, offset + 4), data.subarray(offset + 8, offset + 8 + len));
    offset += 8 + len;
  }
}

/** git's offset varint (index v4 path prefixes): each continuation adds one before shifting. Null past `end`. */
function readIndexVarint(data: Uint8Array, offset: number, end: number): { value: number; next: number } | null {
  let value = 0;
  let byte = 0;
  let n = 0;
  do {
    if (offset >= end) return null;
    byte = data[offset++] ?? 0;
    value = n === 0 ? byte & 0x7f : ((value + 1) << 7) | (byte & 0x7f);
    n++;
  } while (byte & 0x80);
  return { value, next: offset };
}

/** The first cache-tree node is the root: `<path>\0<entry count> <subtrees>\n<oid>`; count -1 means invalid. */
function cacheTreeRoot(body: Buffer): string | null {
  const nul = body.indexOf(0);
  const nl = body.indexOf(10, nul);
  if (nul !== 0 || nl < 0) return null;
  const [count] = body.toString("latin1", nul + 1, nl).split(" ");
  if (count === undefined || Number(count) < 0 || nl + 21 > body.length) return null;
  return body.toString("hex", nl + 1, nl + 21);
}
