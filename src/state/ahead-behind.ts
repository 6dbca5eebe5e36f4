import * as nodeFs from "node:fs";

/** Commits on HEAD's side and on the base's side of their merge base. */
export interface AheadBehind {
  /** Commits reachable from HEAD but not from the base tip; null when not counted. */
  readonly ahead: number | null;
  readonly behind: number | null;
}

/**
 * Counts commits ahead of and behind a base, as `git rev-list --count
 * base..HEAD` and `HEAD..base` do, walking at most `limit` commits a side
 * (a bigger gap gives null rather than a slow answer). Objects are read from
 * the common dir with isomorphic-git, loaded only here.
 */
export async function aheadBehind(commonDir: string, head: string, baseTip: string, limit = 5000): Promise<AheadBehind> {
  if (head === baseTip) return { ahead: 0, behind: 0 };
  const git = await import("isomorphic-git");
  const cache = {};
  const parents = async (oid: string): Promise<string[]> => {
    try {
      return (await git.readCommit({ fs: nodeFs, gitdir: commonDir, oid, cache })).commit.parent;
    } catch {
      return []; // beyond a shallow clone's history
    }
  };
  const ancestors = async (from: string): Promise<Set<string> | null> => {
    const seen = new Set<string>([from]);
    const queue = [from];
    while (queue.length > 0) {
      if (seen.size > limit) return null;
      for (const p of await parents(queue.shift() as string)) {
        if (!seen.has(p)) {
          seen.add(p);
          queue.push(p);
        }
      }
    }
    return seen;
  };
  const [fromHead, fromBase] = await Promise.all([ancestors(head), ancestors(baseTip)]);
  if (fromHead === null || fromBase === null) return { ahead: null, behind: null };
  let ahead = 0;
  for (const c of fromHead) if (!fromBase.has(c)) ahead++;
  let behind = 0;
  for (const c of fromBase) if (!fromHead.has(c)) behind++;
  return { ahead, behind };
}
