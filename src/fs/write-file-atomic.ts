import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Writes a file whole or not at all: its folder is made (owner only) if
 * missing, the bytes go to a temp file beside it, which is then renamed over
 * it, so a reader in another process never sees half a file. `mode` is the
 * new file's permissions (default: the process's, as `writeFileSync`).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Unique enough between processes (the pid) and between threads of one (each its own generator); no need to load
  // node:crypto for it (6-7 ms of a process that otherwise does not use it).
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  fs.writeFileSync(tmp, data, options.mode === undefined ? {} : { mode: options.mode });
  fs.renameSync(tmp, file);
}
