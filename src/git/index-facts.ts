import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import { forEachIndexExtension, walkIndexEntries } from "./read-git-index.js";

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
   * their changes), a split or sparse index.
   */
  readonly distrust: string | null;
  /** Tracked `.gitattributes` files, sorted: what they set decides whether git status can be trusted (`attributesDistrust`). */
  readonly attributes: readonly string[];
}

const ATTRIBUTES = Buffer.from(".gitattributes");

/**
 * Reads an index (versions 2-4) for those facts in one pass, without
 * building an entry per path: about a tenth of a full parse. Null when the
 * bytes are not an index this code understands.
 */
export function scanIndexFacts(buf: Uint8Array): IndexFacts | null {
  const gitlinks: string[] = [];
  const attributes: string[] = [];
  let files = 0;
  let distrust: string | null = null;
  const walked = walkIndexEntries(buf, (e, data) => {
    if (e.flags & 0x8000) distrust ??= "entries marked assume-unchanged";
    if (e.extended & 0x4000) distrust ??= "entries marked skip-worktree (sparse checkout)";
    if (((e.flags >> 12) & 0x3) !== 0) return;
    if (data.readUInt32BE(e.start + 24) === 0o160000) {
      gitlinks.push(e.path.toString("utf8", e.pathStart, e.pathEnd));
      return;
    }
    files++;
    const { path, pathEnd } = e;
    const len = pathEnd - e.pathStart;
    if (
      len >= ATTRIBUTES.length &&
      path[pathEnd - 1] === 0x73 /* s */ &&
      path.compare(ATTRIBUTES, 0, ATTRIBUTES.length, pathEnd - ATTRIBUTES.length, pathEnd) === 0 &&
      (len === ATTRIBUTES.length || path[pathEnd - ATTRIBUTES.length - 1] === 0x2f)
    ) {
      attributes.push(path.toString("utf8", e.pathStart, pathEnd));
    }
  });
  if (walked === null) return null;
  forEachIndexExtension(walked, (sig) => {
    if (sig === "link") distrust ??= "a split index";
    if (sig === "sdir") distrust ??= "a sparse index";
  });
  return { version: walked.version, checksum: indexChecksum(buf), files, gitlinks, distrust, attributes: attributes.sort() };
}

/**
 * An index file's identity, hex: its trailing checksum, so that two index
 * files with the same one hold the same entries. git 2.40+ with
 * `index.skipHash` (which `feature.manyFiles` turns on) writes zeros there
 * instead: then a SHA-1 of the content stands in, so that two different
 * indexes never look alike.
 */
export function indexChecksum(buf: Uint8Array): string {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const trailer = indexTrailer(bytes);
  if (trailer === "") return bytes.toString("hex"); // not an index: its few bytes
  if (/[^0]/.test(trailer)) return trailer;
  return createHash("sha1")
    .update(bytes.subarray(0, bytes.length - 20))
    .digest("hex");
}

/** An index's last 20 bytes, hex, as git wrote them (zeros under `index.skipHash`); empty when it is shorter. */
export function indexTrailer(buf: Uint8Array): string {
  return buf.byteLength < 20 ? "" : Buffer.from(buf.buffer, buf.byteOffset + buf.byteLength - 20, 20).toString("hex");
}

/** `indexTrailer` of an index file, reading only those 20 bytes; empty when the file is shorter or cannot be read. */
export function readIndexTrailer(file: string): string {
  try {
    const fd = nodeFs.openSync(file, "r");
    try {
      const size = nodeFs.fstatSync(fd).size;
      if (size < 20) return "";
      const tail = Buffer.alloc(20);
      nodeFs.readSync(fd, tail, 0, 20, size - 20);
      return tail.toString("hex");
    } finally {
      nodeFs.closeSync(fd);
    }
  } catch {
    return "";
  }
}
