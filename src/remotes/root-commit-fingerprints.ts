import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { compareStrings } from "../errors/diagnostic.js";

/**
 * The identity of a repo that has no remote: a fingerprint per root commit of HEAD's history (SHA-256 of
 * `root-commit:<sha>`), so that its worktrees and local clones, which share that history, are one repo to the
 * embedded store. Empty when git cannot say (no commit yet, not a repo). Used only on one machine: across
 * machines, a remote is what names a repo.
 */
export function rootCommitFingerprints(repoRoot: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<string[]> {
  return new Promise((resolve) => {
    execFile("git", ["rev-list", "--max-parents=0", "HEAD"], { cwd: repoRoot, env: { ...env, GIT_OPTIONAL_LOCKS: "0" }, timeout: 2000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error !== null) return resolve([]);
      const shas = stdout
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => /^[0-9a-f]{40,64}$/.test(l));
      resolve([...new Set(shas.map((sha) => createHash("sha256").update(`root-commit:${sha}`, "utf8").digest("hex")))].sort(compareStrings));
    });
  });
}
