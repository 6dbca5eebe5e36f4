import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";

/** Where `git status` may keep private copies of large repos' indexes (see `privateStatusIndex`). */
export interface StatusIndexOptions {
  /** A folder of our own, such as `<config dir>/status-index`. */
  readonly dir: string;
  /** Index entries from which a repo gets a copy; below it git's untracked walk is cheap. Default `STATUS_INDEX_MIN_ENTRIES`. */
  readonly minEntries?: number;
}

/** From this many index entries on, git status runs on a private copy of the index (one copy: about 100 bytes an entry). */
export const STATUS_INDEX_MIN_ENTRIES = 10_000;

/**
 * A private copy of a repo's index, for `git status` to refresh and keep its
 * untracked cache in (`GIT_INDEX_FILE`): git then re-reads only the folders
 * whose mtime moved instead of listing every folder (about 40% less on
 * 100,000 files), and the user's own index is never
 * written. The copy is named by the real index's checksum, so it always
 * holds the real index's entries (git changes only its stat data and
 * extensions); it is written from the bytes the caller read and checked, and
 * copies of the repo's older indexes are removed. Null when the copy cannot
 * be made: the caller then runs git status on the real index, as before.
 */
export function privateStatusIndex(options: StatusIndexOptions, gitDir: string, index: Uint8Array | (() => Uint8Array), checksum: string): string | null {
  if (!/^[0-9a-f]{40,64}$/.test(checksum)) return null;
  const folder = statusIndexFolder(options, gitDir);
  const name = `${checksum}.index`;
  const file = path.join(folder, name);
  try {
    if (nodeFs.existsSync(file)) return file;
    writeFileAtomic(file, typeof index === "function" ? index() : index, { mode: 0o600 });
    // Older copies (and git's leftover locks of them); another process's copy still being written ends in .tmp.
    for (const other of nodeFs.readdirSync(folder)) {
      if (!other.startsWith(name) && !other.endsWith(".tmp") && other !== FACTS) nodeFs.rmSync(path.join(folder, other), { force: true });
    }
    return file;
  } catch {
    return null;
  }
}

/** The folder of one repo's private index copies (and its facts memo). */
function statusIndexFolder(options: StatusIndexOptions, gitDir: string): string {
  return path.join(path.resolve(options.dir), createHash("sha1").update(gitDir).digest("hex").slice(0, 20));
}

const FACTS = "facts.json";

/**
 * What a scan of the repo's index found, the last time, for an index file
 * with this stat stamp and trailing checksum: enough to run git status on
 * the private copy without reading 10 MB of index again. Null when unknown.
 * (A zero trailer, `index.skipHash`, identifies nothing: never remembered.)
 */
export function rememberedIndexFacts<T>(options: StatusIndexOptions, gitDir: string, stamp: string, trailer: string): T | null {
  if (/^0*$/.test(trailer)) return null;
  try {
    const memo = JSON.parse(nodeFs.readFileSync(path.join(statusIndexFolder(options, gitDir), FACTS), "utf8")) as { stamp: string; trailer: string; facts: T };
    return memo.stamp === stamp && memo.trailer === trailer ? memo.facts : null;
  } catch {
    return null;
  }
}

export function rememberIndexFacts(options: StatusIndexOptions, gitDir: string, stamp: string, trailer: string, facts: unknown): void {
  if (/^0*$/.test(trailer)) return;
  try {
    writeFileAtomic(path.join(statusIndexFolder(options, gitDir), FACTS), JSON.stringify({ stamp, trailer, facts }), { mode: 0o600 });
  } catch {
    // only slower next time
  }
}
