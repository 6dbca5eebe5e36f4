import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { KEEP } from "../config/config-layout.js";

/**
 * What one commit holds at a path, as the content hash the symbol cache is
 * keyed by: `null` when the commit has no such file, `undefined` when not
 * known yet. A commit never changes, so an entry is never stale; with it a
 * repeated edit of a file reads nothing from git (no object database, no
 * isomorphic-git load) to know the file's symbols at HEAD.
 */
export interface HeadHashes {
  get(repoPath: string): string | null | undefined;
  set(repoPath: string, contentHash: string | null): void;
}

/** Head hashes in `<dir>/<commit>.json`; writes are atomic, a corrupt file is empty, past `maxCommits` the oldest go. */
export function createHeadHashes(dir: string, commit: string, options: { maxCommits?: number } = {}): HeadHashes {
  const file = path.join(dir, `${commit}.json`);
  let known: Record<string, string | null> | null = null;
  const load = (): Record<string, string | null> => {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, string | null>;
    } catch {
      // none yet, or unreadable: nothing known
    }
    return {};
  };
  return {
    get(repoPath) {
      known ??= load();
      const v = Object.hasOwn(known, repoPath) ? known[repoPath] : undefined;
      return typeof v === "string" || v === null ? v : undefined;
    },
    set(repoPath, contentHash) {
      try {
        // Re-read first: another hook process may have added paths since.
        known = { ...load(), [repoPath]: contentHash };
        writeFileAtomic(file, JSON.stringify(known));
        prune(dir, options.maxCommits ?? KEEP.headHashCommits);
      } catch {
        // Not remembered: the next edit reads HEAD again.
      }
    },
  };
}

function prune(dir: string, maxCommits: number): void {
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  if (names.length <= maxCommits) return;
  const dated = names.flatMap((n) => {
    try {
      return [{ n, t: fs.statSync(path.join(dir, n)).mtimeMs }];
    } catch {
      return [];
    }
  });
  dated.sort((a, b) => a.t - b.t || (a.n < b.n ? -1 : 1));
  for (const d of dated.slice(0, dated.length - maxCommits)) fs.rmSync(path.join(dir, d.n), { force: true });
}
