import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { compareStrings } from "../errors/diagnostic.js";
import { gitProcessEnv } from "../git/git-process-env.js";
import type { GitConfigEnv } from "../git/load-git-config.js";

/** Root commits asked of git, by repo root and HEAD commit: a long-lived process (the daemon) asks git once per HEAD. */
const known = new Map<string, readonly string[]>();
/** Most entries kept: a daemon serves a few dozen repos, each at a few HEADs. */
const MAX_KNOWN = 256;

/**
 * The identity of a repo that has no remote: a fingerprint per root commit of HEAD's history (SHA-256 of
 * `root-commit:<sha>`), so that its worktrees and local clones, which share that history, are one repo to the
 * embedded store. Empty when git cannot say (no commit yet, not a repo). Used only on one machine: across
 * machines, a remote is what names a repo.
 *
 * With `headSha` (HEAD's commit as the caller read it), the answer is kept for that repo and commit: a commit names
 * its whole history, so its root commits never change, and an edit's hooks need not start git each time.
 */
export function rootCommitFingerprints(repoRoot: string, where: GitConfigEnv, headSha: string | null = null): Promise<string[]> {
  const key = headSha === null ? null : `${repoRoot}\0${headSha}`;
  const kept = key === null ? undefined : known.get(key);
  if (kept !== undefined) return Promise.resolve([...kept]);
  return new Promise((resolve) => {
    // HEAD named by its commit where the caller read it: what is kept is then exactly what was asked.
    execFile("git", ["rev-list", "--max-parents=0", headSha ?? "HEAD"], { cwd: repoRoot, env: gitProcessEnv(where), timeout: 2000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error !== null) return resolve([]);
      const shas = stdout
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => /^[0-9a-f]{40,64}$/.test(l));
      const fingerprints = [...new Set(shas.map((sha) => createHash("sha256").update(`root-commit:${sha}`, "utf8").digest("hex")))].sort(compareStrings);
      if (key !== null && fingerprints.length > 0) {
        if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value as string);
        known.set(key, fingerprints);
      }
      resolve(fingerprints);
    });
  });
}
