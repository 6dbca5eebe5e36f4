import { readIndexVarint } from "./read-git-index.js";

/** What a snapshot needs to know about `.git/index` before trusting `git status` with it. */
export interface IndexFacts {
  readonly version: number;
  /** The file's trailing checksum, hex: two index files with the same one hold the same entries. */
  readonly checksum: string;
  /** Stage-0 entries that are files or symlinks (gitlinks and conflict stages left out). */
  readonly files: number;
  /** Paths of gitlinks (submodules), sorted as the index is. */
  readonly gitlinks: readonly string[];
  /**
   * Why `git status` cannot be trusted to show every change of this work tree,
   * or null: entries marked assume-unchanged or skip-worktree (status hides
   * their changes), a split or sparse index, or a tracked `.gitattributes`
   * (filters and eol conversion make status compare converted content).
   */
  readonly distrust: string | null;
}

const ATTRIBUTES = Buffer.from(".gitattributes");

/**
 * Reads an index (versions 2-4) for those facts in one pass, without
 * building an entry per path: about a tenth of a full parse. Null when the
 * bytes are not an index this code understands.
 */
export function scanIndexFacts(buf: Uint8Array): IndexFacts | null {
  const data = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (data.length < 12 + 20 || data.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const end = data.length - 20;
  const gitlinks: string[] = [];
  let files = 0;
  let distrust: string | null = null;
  let offset = 12;
  // Version 4 paths are prefix-compressed: the current path is rebuilt in this buffer.
  let path = Buffer.alloc(version === 4 ? 4096 : 0);
  let pathLen = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 62 > end) return null;
    const start = offset;
    const mode = data.readUInt32BE(offset + 24);
    const flags = data.readUInt16BE(offset + 60);
    offset += 62;
    if (flags & 0x8000) distrust ??= "entries marked assume-unchanged";
    if (flags & 0x4000) {
      if (version < 3 || offset + 2 > end) return null;
      if (data.readUInt16BE(offset) & 0x4000) distrust ??= "entries marked skip-worktree (sparse checkout)";
      offset += 2;
    }
    let pathStart: number;
    let pathEnd: number;
    let source: Buffer;
    if (version === 4) {
      const varint = readIndexVarint(data, offset, end);
      if (varint === null) return null;
      const strip = varint.value;
      offset = varint.next;
      const nul = data.indexOf(0, offset);
      if (nul < 0 || nul > end || strip > pathLen) return null;
      const keep = pathLen - strip;
      const total = keep + (nul - offset);
      if (total > path.length) {
        const bigger = Buffer.alloc(Math.max(total, path.length * 2));
        path.copy(bigger, 0, 0, keep);
        path = bigger;
      }
      data.copy(path, keep, offset, nul);
      pathLen = total;
      offset = nul + 1;
      source = path;
      pathStart = 0;
      pathEnd = pathLen;
    } else {
      // The low 12 bits of the flags hold the path's length (0xfff: that long or longer, then look for the NUL).
      const short = flags & 0xfff;
      const nul = short < 0xfff ? offset + short : data.indexOf(0, offset + 0xfff);
      if (nul < 0 || nul >= end || data[nul] !== 0) return null;
      source = data;
      pathStart = offset;
      pathEnd = nul;
      offset = start + Math.ceil((nul - start + 1) / 8) * 8;
    }
    if (((flags >> 12) & 0x3) !== 0) continue;
    if (mode === 0o160000) {
      gitlinks.push(source.toString("utf8", pathStart, pathEnd));
      continue;
    }
    files++;
    const len = pathEnd - pathStart;
    if (
      len >= ATTRIBUTES.length &&
      source[pathEnd - 1] === 0x73 /* s */ &&
      source.compare(ATTRIBUTES, 0, ATTRIBUTES.length, pathEnd - ATTRIBUTES.length, pathEnd) === 0 &&
      (len === ATTRIBUTES.length || source[pathEnd - ATTRIBUTES.length - 1] === 0x2f)
    ) {
      distrust ??= "a tracked .gitattributes (filters and eol conversion)";
    }
  }
  while (offset + 8 <= end) {
    const sig = data.toString("latin1", offset, offset + 4);
    if (sig === "link") distrust ??= "a split index";
    if (sig === "sdir") distrust ??= "a sparse index";
    offset += 8 + data.readUInt32BE(offset + 4);
  }
  return { version, checksum: data.toString("hex", data.length - 20), files, gitlinks, distrust };
}
