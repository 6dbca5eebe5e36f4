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
  const data = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (data.length < 12 + 20 || data.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const end = data.length - 20; // trailing checksum
  const entries: IndexEntry[] = [];
  let conflicted = false;
  let offset = 12;
  let previousPath: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (offset + 62 > end) return null;
    const start = offset;
    const ctimeMs = data.readUInt32BE(offset) * 1000 + data.readUInt32BE(offset + 4) / 1e6;
    const mtimeMs = data.readUInt32BE(offset + 8) * 1000 + data.readUInt32BE(offset + 12) / 1e6;
    const ino = data.readUInt32BE(offset + 20);
    const mode = data.readUInt32BE(offset + 24);
    const size = data.readUInt32BE(offset + 36);
    const oid = data.toString("hex", offset + 40, offset + 60);
    const flags = data.readUInt16BE(offset + 60);
    offset += 62;
    let skipWorktree = false;
    if (flags & 0x4000) {
      if (version < 3 || offset + 2 > end) return null;
      skipWorktree = (data.readUInt16BE(offset) & 0x4000) !== 0;
      offset += 2;
    }
    let pathBytes: Buffer;
    if (version === 4) {
      // A varint says how many bytes to drop from the previous path, then a NUL-terminated suffix.
      const varint = readIndexVarint(data, offset, end);
      if (varint === null) return null;
      const strip = varint.value;
      offset = varint.next;
      const nul = data.indexOf(0, offset);
      if (nul < 0 || nul > end || strip > previousPath.length) return null;
      pathBytes = Buffer.concat([previousPath.subarray(0, previousPath.length - strip), data.subarray(offset, nul)]);
      offset = nul + 1;
    } else {
      const nul = data.indexOf(0, offset);
      if (nul < 0 || nul > end) return null;
      pathBytes = data.subarray(offset, nul);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
      offset = start + Math.ceil((nul - start + 1) / 8) * 8;
    }
    previousPath = pathBytes;
    const stage = (flags >> 12) & 0x3;
    if (stage !== 0) {
      conflicted = true;
      continue;
    }
    entries.push({ path: pathBytes.toString("utf8"), mode, oid, ctimeMs, mtimeMs, ino, size, skipWorktree });
  }
  let rootTree: string | null = null;
  let split = false;
  while (offset + 8 <= end) {
    const sig = data.toString("latin1", offset, offset + 4);
    const len = data.readUInt32BE(offset + 4);
    const body = data.subarray(offset + 8, offset + 8 + len);
    if (sig === "TREE") rootTree = cacheTreeRoot(body);
    if (sig === "link") split = true;
    offset += 8 + len;
  }
  return { version, entries, rootTree, split, conflicted };
}

/** git's offset varint (index v4 path prefixes): each continuation adds one before shifting. Null past `end`. */
export function readIndexVarint(data: Uint8Array, offset: number, end: number): { value: number; next: number } | null {
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
