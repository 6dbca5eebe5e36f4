import * as os from "node:os";
import type { CoordinationMode } from "../config/coordination-mode.js";
import type { GitConfigEnv } from "../git/load-git-config.js";

/**
 * The remote fingerprints of DIR's repo, or of the repos under it (null when there are none). In embedded mode, a
 * repo without a remote is named by its root commit, as its hooks name it.
 */
export async function fingerprintsUnder(dir: string, mode: CoordinationMode, env: Readonly<Record<string, string | undefined>>): Promise<string[] | null> {
  const { reposAtOrUnder } = await import("./discover-repos.js");
  const { readRepoState } = await import("../state/read-repo-state.js");
  const { rootCommitFingerprints } = await import("../remotes/root-commit-fingerprints.js");
  let repos: ReturnType<typeof reposAtOrUnder>;
  try {
    repos = reposAtOrUnder(dir);
  } catch {
    return null;
  }
  if (repos.length === 0) return null;
  // Git as the caller's environment says (in the daemon, the caller's is not the process's).
  const where: GitConfigEnv = { env, homeDir: env["HOME"] ?? os.homedir() };
  const fps = new Set<string>();
  for (const repo of repos.slice(0, 200)) {
    const state = await readRepoState(repo, { configEnv: where }).catch(() => null);
    const own = state?.remote_fingerprints ?? [];
    for (const f of own.length > 0 || mode.kind !== "embedded" ? own : await rootCommitFingerprints(repo.root, where, state?.head_sha ?? null)) fps.add(f);
  }
  return [...fps].sort();
}
