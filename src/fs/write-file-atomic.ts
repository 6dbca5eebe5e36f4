import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Writes a file whole or not at all: its folder is made (owner only) if
 * missing, the bytes go to a temp file beside it, which is then renamed over
 * it, so a reader in another process never sees half a file. `mode` is the
 * new file's permissions (default: the process's, as `writeFileSync`).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[], options: { mode?: number } = {}): void {
  // Unique enough between processes (the pid) and between threads of one (each its own generator); no need to load
  // node:crypto for it (6-7 ms of a process that otherwise does not use it).
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  const write = (): void => {
    if (typeof data === "string" || !Array.isArray(data)) fs.writeFileSync(tmp, data as string | Uint8Array, options.mode === undefined ? {} : { mode: options.mode });
    else writePieces(tmp, data, options.mode);
  };
  // The folder is made only where it is missing: most writes go to one that is there (a daemon's, at every event).
  try {
    write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    write();
  }
  fs.renameSync(tmp, file);
}

/** Pieces written one after the other, without joining them first (a folder's lines are megabytes in hundreds of pieces). */
function writePieces(file: string, pieces: readonly Uint8Array[], mode: number | undefined): void {
  const fd = fs.openSync(file, "w", mode);
  try {
    let position = 0;
    // writev takes at most IOV_MAX (1,024 on Linux) pieces a call, and may write fewer bytes than asked.
    for (let k = 0; k < pieces.length; ) {
      const batch = pieces.slice(k, k + 1024);
      let written = fs.writevSync(fd, batch as Uint8Array[], position);
      position += written;
      for (const p of batch) {
        if (written >= p.length) {
          written -= p.length;
          k++;
          continue;
        }
        // (a short write: the rest of this piece, then on with the next batch)
        for (let done = written; done < p.length; ) {
          const n = fs.writeSync(fd, p, done, p.length - done, position);
          if (n === 0) throw new Error(`${file}: nothing written`);
          done += n;
          position += n;
        }
        k++;
        break;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
