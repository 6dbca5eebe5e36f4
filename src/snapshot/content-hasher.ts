import * as nodeFs from "node:fs";
import { createRequire } from "node:module";
import xxhash from "xxhash-wasm";

/** The file-system calls a snapshot makes, injected like isomorphic-git's `fs`. */
export interface WorktreeFs {
  readdirSync(path: string, options: { withFileTypes: true }): nodeFs.Dirent[];
  lstatSync(path: string): nodeFs.Stats;
  readFileSync(path: string): Buffer;
  readlinkSync(path: string): string;
  openSync(path: string, flags: string): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  closeSync(fd: number): void;
}

export const nodeWorktreeFs: WorktreeFs = {
  readdirSync: (p, o) => nodeFs.readdirSync(p, o),
  lstatSync: (p) => nodeFs.lstatSync(p),
  readFileSync: (p) => nodeFs.readFileSync(p),
  readlinkSync: (p) => nodeFs.readlinkSync(p),
  openSync: (p, f) => nodeFs.openSync(p, f),
  readSync: (fd, b, o, l, pos) => nodeFs.readSync(fd, b, o, l, pos),
  closeSync: (fd) => nodeFs.closeSync(fd),
};

const require = createRequire(import.meta.url);
let crypto: typeof import("node:crypto") | null = null;

/**
 * A SHA-1 hash, from `node:crypto` loaded when first asked: loading it costs a process 6-7 ms, and a warm
 * `comity symbols` (xxhash only) never needs it.
 */
function sha1(): import("node:crypto").Hash {
  crypto ??= require("node:crypto") as typeof import("node:crypto");
  return crypto.createHash("sha1");
}

/** git's blob id (`sha1("blob <size>\0" + bytes)`) of bytes in memory, e.g. a symlink's target. */
export function gitBlobId(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return sha1().update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Files up to this size are read whole; larger ones are streamed in chunks of this size. */
const WHOLE_FILE_LIMIT = 8 * 1024 * 1024;

/** Content hashing: xxhash64 (the snapshot's own hash) and git blob ids (to agree with the index). */
export interface ContentHasher {
  /** xxhash64 (seed 0) of bytes, 16 lowercase hex digits. */
  xxh64(data: Uint8Array | string): string;
  /** xxhash64 of a file's bytes; files over 8 MiB are streamed, never held whole. */
  xxh64File(fs: WorktreeFs, file: string, size: number): string;
  /** git's blob id (`sha1("blob <size>\0" + bytes)`) of a file's raw bytes, streamed likewise. */
  gitBlobFile(fs: WorktreeFs, file: string, size: number): string;
}

/** The hasher, once loaded: a daemon asks for it at every edit, and each load compiled the module anew. */
let loaded: Promise<ContentHasher> | null = null;

/**
 * The xxhash WASM module's hasher, loaded on first call (about a millisecond, several on a busy machine) and the
 * same one after: it keeps nothing between calls but a scratch buffer for large files, and every call is synchronous.
 */
export function loadContentHasher(): Promise<ContentHasher> {
  loaded ??= newContentHasher().catch((error: unknown) => {
    loaded = null;
    throw error;
  });
  return loaded;
}

async function newContentHasher(): Promise<ContentHasher> {
  const x = await xxhash();
  const hex = (n: bigint): string => n.toString(16).padStart(16, "0");
  let chunk: Buffer | null = null;
  const stream = (fs: WorktreeFs, file: string, fn: (c: Uint8Array) => void): void => {
    chunk ??= Buffer.allocUnsafe(WHOLE_FILE_LIMIT);
    const fd = fs.openSync(file, "r");
    try {
      for (let position = 0; ; ) {
        const read = fs.readSync(fd, chunk, 0, chunk.length, position);
        if (read === 0) break;
        fn(chunk.subarray(0, read));
        position += read;
      }
    } finally {
      fs.closeSync(fd);
    }
  };
  return {
    // A string is encoded straight into the module's memory (UTF-8, as Buffer.from would).
    xxh64: (data) => (typeof data === "string" ? x.h64ToString(data) : hex(x.h64Raw(data))),
    xxh64File: (fs, file, size) => {
      if (size <= WHOLE_FILE_LIMIT) return hex(x.h64Raw(fs.readFileSync(file)));
      const h = x.create64();
      stream(fs, file, (c) => h.update(c));
      return hex(h.digest());
    },
    gitBlobFile: (fs, file, size) => {
      if (size <= WHOLE_FILE_LIMIT) return gitBlobId(fs.readFileSync(file));
      const h = sha1();
      h.update(`blob ${size}\0`);
      stream(fs, file, (c) => h.update(c));
      return h.digest("hex");
    },
  };
}
