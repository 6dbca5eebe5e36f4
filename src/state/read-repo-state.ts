import * as nodeFs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import { gitConfigFiles, loadGitConfig, type GitConfigEnv } from "../git/load-git-config.js";
import { configValue, type GitConfigEntry } from "../git/parse-git-config.js";
import { RefReader } from "../git/read-refs.js";
import { remoteFingerprints } from "../remotes/fingerprint.js";
import { primaryRemote, readRemotes, type Remote } from "../remotes/read-remotes.js";
import type { Repo } from "../workspace/repo.js";

/** Finds the merge bases of two commits in the object store at `commonDir`. */
export type MergeBaseFn = (commonDir: string, a: string, b: string) => Promise<string[]>;

export interface RepoStateOptions {
  readonly fs?: SyncFs;
  /** Where global and system git config are read from; the process's by default. */
  readonly configEnv?: GitConfigEnv;
  /** Merge-base finder; isomorphic-git's by default (loaded only when needed). */
  readonly mergeBase?: MergeBaseFn;
}

/** Branch, commits and remotes of one repo, read without a `git` binary. */
export interface RepoState {
  /** Short branch name; null when HEAD is detached or unreadable. */
  readonly branch: string | null;
  /** The commit HEAD points at; null in an unborn repo. */
  readonly head_sha: string | null;
  /** Merge base of HEAD with the primary remote's default branch; null when there is none. */
  readonly base_sha: string | null;
  /** The ref `base_sha` was measured against, e.g. `refs/remotes/origin/main`. */
  readonly base_ref: string | null;
  readonly remotes: readonly Remote[];
  /** Sorted, de-duplicated SHA-256 fingerprints of every remote URL. */
  readonly remote_fingerprints: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** The process's own environment and home folder. */
export function processConfigEnv(): GitConfigEnv {
  return { env: process.env, homeDir: process.env["HOME"] ?? "/" };
}

/**
 * Reads a repo's state: `branch`, `head_sha`, `base_sha` (merge base of HEAD
 * with `refs/remotes/<primary>/HEAD`, else `<primary>/main`, `<primary>/master`,
 * else local `main`/`master`), and its remotes with fingerprints. Works on
 * linked worktrees (refs and config from the common dir), submodules, packed
 * refs and detached HEADs; a shallow clone whose history is cut gives a null
 * base and a diagnostic. Never throws: problems become diagnostics.
 */
export async function readRepoState(repo: Repo, options: RepoStateOptions = {}): Promise<RepoState> {
  const fs = options.fs ?? nodeSyncFs;
  const diagnostics: Diagnostic[] = [];
  const empty = { branch: null, head_sha: null, base_sha: null, base_ref: null, remotes: [], remote_fingerprints: [] };
  if (repo.gitDir === null || repo.commonDir === null) return { ...empty, diagnostics };

  const where = options.configEnv ?? processConfigEnv();
  const config = loadGitConfig(fs, where, gitConfigFiles(where, repo.commonDir, repo.gitDir), { gitDir: repo.gitDir });
  diagnostics.push(...config.diagnostics);
  const remotes = readRemotes(config.entries);
  const fingerprints = remoteFingerprints(
    remotes.flatMap((r) => r.urls),
    repo.root,
  );

  const refs = new RefReader(fs, repo.gitDir, repo.commonDir);
  const head = refs.head();
  let branch: string | null = null;
  let headSha: string | null = null;
  if (head.kind === "invalid") {
    diagnostics.push(
      diagnostic("bad_head", "error", path.join(repo.gitDir, "HEAD"), head.text === null ? "HEAD is missing or unreadable" : `HEAD holds neither a ref nor a commit id: ${JSON.stringify(head.text)}`),
    );
  } else if (head.kind === "detached") {
    headSha = head.oid;
  } else {
    branch = head.ref.startsWith("refs/heads/") ? head.ref.slice("refs/heads/".length) : null;
    headSha = refs.resolve(head.ref);
  }

  const baseRef = defaultBranchRef(refs, remotes);
  let baseSha: string | null = null;
  if (headSha !== null && baseRef !== null) {
    const baseTip = refs.resolve(baseRef);
    if (baseTip !== null) baseSha = await mergeBaseOf(repo, config.entries, headSha, baseTip, baseRef, options, diagnostics);
  }
  return {
    branch,
    head_sha: headSha,
    base_sha: baseSha,
    base_ref: baseSha === null ? null : baseRef,
    remotes,
    remote_fingerprints: fingerprints,
    diagnostics,
  };
}

function defaultBranchRef(refs: RefReader, remotes: readonly Remote[]): string | null {
  const primary = primaryRemote(remotes);
  const candidates: string[] = [];
  if (primary !== null) {
    const remoteHead = refs.symbolicTarget(`refs/remotes/${primary.name}/HEAD`);
    if (remoteHead !== null) candidates.push(remoteHead);
    candidates.push(`refs/remotes/${primary.name}/main`, `refs/remotes/${primary.name}/master`);
  }
  candidates.push("refs/heads/main", "refs/heads/master");
  return candidates.find((ref) => refs.resolve(ref) !== null) ?? null;
}

async function mergeBaseOf(repo: Repo, config: readonly GitConfigEntry[], head: string, base: string, baseRef: string, options: RepoStateOptions, diagnostics: Diagnostic[]): Promise<string | null> {
  if (head === base) return head;
  const commonDir = repo.commonDir ?? "";
  const format = configValue(config, "extensions", "objectformat");
  if (format !== undefined && format.toLowerCase() !== "sha1") {
    diagnostics.push(diagnostic("unsupported_object_format", "warning", commonDir, `merge base not computed: object format ${format} is not supported`));
    return null;
  }
  const fs = options.fs ?? nodeSyncFs;
  const shallow = fs.existsSync(path.join(commonDir, "shallow"));
  let bases: string[];
  try {
    bases = await (options.mergeBase ?? isomorphicMergeBase)(commonDir, head, base);
  } catch (error) {
    diagnostics.push(
      shallow
        ? diagnostic("shallow_history", "warning", commonDir, `merge base with ${baseRef} not found: shallow clone`)
        : diagnostic("merge_base_failed", "warning", commonDir, `merge base with ${baseRef} failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    return null;
  }
  const sorted = [...bases].sort();
  if (sorted.length === 0) {
    diagnostics.push(
      shallow
        ? diagnostic("shallow_history", "warning", commonDir, `merge base with ${baseRef} lies beyond the shallow clone's history`)
        : diagnostic("no_merge_base", "info", commonDir, `HEAD and ${baseRef} share no history`),
    );
    return null;
  }
  return sorted[0] ?? null;
}

const isomorphicMergeBase: MergeBaseFn = async (commonDir, a, b) => {
  // Loaded here so that processes that never need a merge base never load isomorphic-git.
  const git = await import("isomorphic-git");
  const result: unknown[] = await git.findMergeBase({ fs: nodeFs, gitdir: commonDir, oids: [a, b] });
  return result.filter((x): x is string => typeof x === "string");
};
