import * as path from "node:path";
import { compareDiagnostics, type Diagnostic } from "../errors/diagnostic.js";
import type { SyncFs } from "../fs/sync-fs.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { readRepoState, type MergeBaseFn } from "../state/read-repo-state.js";
import { discoverRepos, type DiscoverOptions } from "../workspace/discover-repos.js";
import type { RepoKind } from "../workspace/repo.js";

/** Version of the `comity analyze --json` document; bumped on any incompatible change. */
export const ANALYZE_SCHEMA = "comity.analyze/1";

/** One repo in the report. Paths are POSIX and relative to the analysed folder. */
export interface RepoReport {
  readonly root: string;
  readonly kind: RepoKind;
  readonly parent: string | null;
  readonly remote_fingerprints: readonly string[];
  readonly branch: string | null;
  readonly head_sha: string | null;
  readonly base_sha: string | null;
  readonly base_ref: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

/** The `comity analyze` report. */
export interface AnalyzeReport {
  readonly schema: typeof ANALYZE_SCHEMA;
  /** Sorted by root. */
  readonly repos: readonly RepoReport[];
  /** Problems with folders rather than repos (unreadable, too deep). */
  readonly diagnostics: readonly Diagnostic[];
}

export interface AnalyzeOptions extends DiscoverOptions {
  readonly fs?: SyncFs;
  readonly configEnv?: GitConfigEnv;
  readonly mergeBase?: MergeBaseFn;
  /** How many repos are read at once. Default 8. */
  readonly concurrency?: number;
}

/**
 * Discovers the repos under `dir` and reads each one's state. A problem with
 * one repo is a diagnostic in its entry; only a bad `dir` throws.
 *
 * @throws {ComityError} when `dir` is missing, unreadable or not a folder.
 * @example
 * const report = await analyzeWorkspace(".");
 * report.repos.map((r) => [r.root, r.branch]);
 */
export async function analyzeWorkspace(dir: string, options: AnalyzeOptions = {}): Promise<AnalyzeReport> {
  const discovery = discoverRepos(dir, options);
  const rel = (p: string): string => relativePosix(discovery.root, p);
  const relDiag = (d: Diagnostic): Diagnostic => ({ ...d, path: d.path === null ? null : rel(d.path) });
  const stateOptions = {
    ...(options.fs === undefined ? {} : { fs: options.fs }),
    ...(options.configEnv === undefined ? {} : { configEnv: options.configEnv }),
    ...(options.mergeBase === undefined ? {} : { mergeBase: options.mergeBase }),
  };
  const repos = await mapLimit(discovery.repos, options.concurrency ?? 8, async (repo): Promise<RepoReport> => {
    const state = await readRepoState(repo, stateOptions);
    return {
      root: rel(repo.root),
      kind: repo.kind,
      parent: repo.parent === null ? null : rel(repo.parent),
      remote_fingerprints: state.remote_fingerprints,
      branch: state.branch,
      head_sha: state.head_sha,
      base_sha: state.base_sha,
      base_ref: state.base_ref,
      diagnostics: [...repo.diagnostics, ...state.diagnostics].map(relDiag).sort(compareDiagnostics),
    };
  });
  return {
    schema: ANALYZE_SCHEMA,
    repos,
    diagnostics: discovery.diagnostics.map(relDiag).sort(compareDiagnostics),
  };
}

/** `to` relative to `from`, POSIX, `.` for the same folder. */
export function relativePosix(from: string, to: string): string {
  const rel = path.relative(from, to).split(path.sep).join("/");
  return rel === "" ? "." : rel;
}

/** Maps with at most `limit` calls in flight; results keep input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
