import * as nodeFs from "node:fs";

/**
 * The synchronous file-system calls the engine makes, injected so that tests
 * can run against fixtures or fault-injecting wrappers (isomorphic-git's
 * `fs` parameter is the model). Sync calls, because a walk is several times
 * faster with them than with the promise API (`npm run bench:discovery`
 * times both).
 */
export interface SyncFs {
  readdirSync(path: string, options: { withFileTypes: true }): nodeFs.Dirent[];
  lstatSync(path: string): nodeFs.Stats;
  statSync(path: string): nodeFs.Stats;
  readFileSync(path: string, encoding: "utf8"): string;
  realpathSync(path: string): string;
  existsSync(path: string): boolean;
}

/** The real file system. */
export const nodeSyncFs: SyncFs = {
  readdirSync: (p, o) => nodeFs.readdirSync(p, o),
  lstatSync: (p) => nodeFs.lstatSync(p),
  statSync: (p) => nodeFs.statSync(p),
  readFileSync: (p, e) => nodeFs.readFileSync(p, e),
  realpathSync: (p) => nodeFs.realpathSync.native(p),
  existsSync: (p) => nodeFs.existsSync(p),
};

/** Reads a small text file, or returns null when it is missing or unreadable. */
export function readTextOrNull(fs: SyncFs, path: string): string | null {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Removes a file that may be gone already: one unlink (where `rmSync` looks at it first); other errors are thrown. */
export function removeIfThere(file: string): void {
  try {
    nodeFs.unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

/** A short, stable description of an fs error (`EACCES`, `ENOENT`, ...). */
export function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string") return code;
  }
  return error instanceof Error ? error.message : String(error);
}
