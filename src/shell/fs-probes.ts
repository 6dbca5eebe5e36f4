import { readFileSync, statSync } from "node:fs";

/** Whether an absolute path is a folder on this machine (a `cp`/`mv` destination). */
export function isDirectory(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

/** A patch file's text, or null when it is missing or over 4 MiB. */
export function readPatchFile(abs: string): string | null {
  try {
    return statSync(abs).size <= 4 * 1024 * 1024 ? readFileSync(abs, "utf8") : null;
  } catch {
    return null;
  }
}
