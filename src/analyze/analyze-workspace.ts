import { mapLimit } from "../async/map-limit.js";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { availableParallelism } from "node:os";
import * as path from "node:path";
import { buildLocalBriefing } from "../briefing/build-local-briefing.js";
import type { CloneBreak, CloneCollision } from "./clone-collisions.js";
import { nodeTextReader } from "../packages/public-names.js";
import type { CrossRepoImpact } from "./cross-repo-impacts.js";
import { loadChangeMemo, type ChangeMemo, type MemoEntry } from "./change-memo.js";
import { mergeBriefings } from "../briefing/merge-briefings.js";
import { compareDiagnostics, diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { relativePosix } from "../fs/relative-posix.js";
import { nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { createObjectReader } from "../git/read-git-object.js";
import { RefReader } from "../git/read-refs.js";
import { discoverPackages, type PackageInfo } from "../packages/discover-packages.js";
import type { PathChange, Snapshot } from "../snapshot/snapshot.js";
import type { SnapshotStore } from "../snapshot/snapshot-store.js";
import { gitBlobId, nodeWorktreeFs } from "../snapshot/content-hasher.js";
import { readGitStatusViewAsync, type GitStatusView } from "../snapshot/git-status-view.js";
import type { StatusIndexOptions } from "../snapshot/status-index.js";
import { worktreeHash } from "../snapshot/worktree-hash.js";
import { aheadBehind } from "../state/ahead-behind.js";
import { processConfigEnv, readRepoState, type MergeBaseFn, type RepoState } from "../state/read-repo-state.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import type { ExtractJob, ExtractPool } from "../symbols/extract-pool.js";
import { mayBeContract } from "../contracts/contract-kind.js";
import { languageOf } from "../symbols/languages.js";
import { openOldVersionPacks } from "../symbols/old-version-packs.js";
import { entryText, fromEntryText, keepable } from "../symbols/symbol-cache.js";
import { isHookConfigFile } from "../config/hook-config-files.js";
import type { ContractKind, FileSymbols, LanguageId, ReferenceRecord } from "../symbols/types.js";
import { discoverRepos, findOwningRepo, type DiscoverOptions } from "../workspace/discover-repos.js";
import { rankByActivity, repoActivityMs } from "../workspace/repo-activity.js";
import type { Repo, RepoKind } from "../workspace/repo.js";
import { SYMBOLS_LAYOUT } from "../config/config-layout.js";

/** Version of the `comity analyze --json` document; bumped on any incompatible change. */
export const ANALYZE_SCHEMA = "comity.analyze/2";

/** One changed file of a repo, with its symbol analysis when its language is supported. */
export interface FileChangeReport {
  readonly path: string;
  readonly change: PathChange["change"];
  readonly language: LanguageId | ContractKind | null;
  /** Symbol changes against HEAD (or `--since`); null when not analysed. */
  readonly symbols: readonly SymbolChange[] | null;
  readonly new_references: readonly ReferenceRecord[] | null;
}

/** One repo in the report. Paths are POSIX and relative to the analysed folder (files: to the repo). */
export interface RepoReport {
  readonly root: string;
  readonly kind: RepoKind;
  readonly parent: string | null;
  readonly remote_fingerprints: readonly string[];
  readonly branch: string | null;
  readonly head_sha: string | null;
  readonly base_sha: string | null;
  readonly base_ref: string | null;
  /** 1 for the most recently active repo. */
  readonly active_rank: number;
  /** Whether this repo was analysed in depth (one of the `maxRepos` most active): the fields below are empty otherwise. */
  readonly analysed: boolean;
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly worktree_hash: string | null;
  readonly packages: readonly PackageInfo[];
  readonly packages_truncated: boolean;
  readonly changes: readonly FileChangeReport[];
  readonly diagnostics: readonly Diagnostic[];
}

/** The `comity analyze` report. */
export interface AnalyzeReport {
  readonly schema: typeof ANALYZE_SCHEMA;
  /** Sorted by root. */
  readonly repos: readonly RepoReport[];
  /**
   * Files changed in more than one clone or worktree of one repo (sharing a remote or a git folder), uncommitted
   * or on their branches since the merge base, with each side's change. The briefing opens with them.
   */
  readonly collisions: readonly CloneCollision[];
  /**
   * Breaking changes on one clone or worktree of a repo that another's changed files import (since the same merge
   * base as the collisions): the author side, the symbol, the change, and the user side's files.
   */
  readonly clone_breaks: readonly CloneBreak[];
  /**
   * Breaking changes in one repo's package that another repo under the folder depends on and imports: the
   * publisher, the symbol and its public name, the change, and the consumer's files that import it.
   */
  readonly cross_repo: readonly CrossRepoImpact[];
  /**
   * Breaking changes of a package that other packages of the same repo use through its name (a monorepo's users),
   * shaped as `cross_repo`'s with the repo as both publisher and consumer.
   */
  readonly in_repo: readonly CrossRepoImpact[];
  /** Breaking changes of a service contract (GraphQL, OpenAPI) and the files, in any repo under the folder, that use them. */
  readonly contract_users: readonly import("./contract-users.js").ContractUser[];
  /** The merged local briefing of the analysed repos, most active first. */
  readonly briefing: string;
  /** Problems with folders rather than repos (unreadable, too deep). */
  readonly diagnostics: readonly Diagnostic[];
}

export interface AnalyzeOptions extends DiscoverOptions {
  readonly fs?: SyncFs;
  readonly configEnv?: GitConfigEnv;
  readonly mergeBase?: MergeBaseFn;
  /** How many repos are read at once. Default 8. */
  readonly concurrency?: number;
  /** Analyse changed files' symbols. Default true. */
  readonly symbols?: boolean;
  /** Only the N most active repos are analysed in depth and briefed. Default 8. */
  readonly maxRepos?: number;
  /** Compare the working tree with this commit or ref instead of HEAD. */
  readonly since?: string | null;
  /** The symbol cache folder (`<config dir>/symbols`), or null for none. */
  readonly symbolCacheDir?: string | null;
  /** Worker threads for symbol extraction; one per core by default. Small runs stay in this thread. */
  readonly jobs?: number;
  /** Called with each phase's duration (ms) as it ends: discovery, repo state, snapshot, symbols, briefing. */
  readonly onTiming?: (phase: string, ms: number) => void;
  /** Where snapshots live: a repo's latest snapshot counts towards its activity. */
  readonly snapshotStore?: SnapshotStore | null;
  /** Where git status may keep private copies of large repos' indexes (`<config dir>/status-index`); none by default. */
  readonly statusIndex?: StatusIndexOptions | null;
  /**
   * A repo's git status already taken by the caller (the same `statusIndex`, `withIndex: false`), by root, or null: used
   * instead of running git again (a hook's session start has taken it for its request).
   */
  readonly statusOf?: (root: string) => Promise<GitStatusView | { readonly walk: string }> | null;
  /** Called as repos are analysed in depth, for a progress display. */
  readonly onProgress?: (done: number, total: number, root: string) => void;
  /**
   * When the symbol extraction must end (epoch ms; a hook's, inside its host's timeout): a file not parsed by then is
   * reported as not analysed, with a `parse_timeout` diagnostic.
   */
  readonly deadlineAt?: number;
  /** Called once before a pool of parse workers starts (the CLI tunes its process there); see `ExtractManyOptions`. */
  readonly beforePool?: () => void;
}

/**
 * The full report of a folder: every repo's identity and state, and for the
 * most active ones the working tree hash, packages, changed files with their
 * symbol analysis, how far HEAD is from its base, and one merged briefing.
 * A problem with one repo is a diagnostic in its entry; only a bad `dir` throws.
 *
 * @throws {ComityError} when `dir` is missing, unreadable or not a folder.
 * @example
 * const report = await analyzeWorkspace(".", { maxRepos: 8 });
 * console.log(report.briefing);
 */
export async function analyzeWorkspace(dir: string, options: AnalyzeOptions = {}): Promise<AnalyzeReport> {
  const timing = (phase: string, since: number): void => options.onTiming?.(phase, Date.now() - since);
  const tDiscovery = Date.now();
  // The folder's own repo (the usual case: `comity analyze` in a repo): its git status starts now and runs on
  // another core while discovery walks (about a third of a second run on 100,000 files).
  const early = earlyStatus(dir, options);
  const discovery = discoverRepos(dir, options);
  timing("discovery", tDiscovery);
  const tState = Date.now();
  const rel = (p: string): string => relativePosix(discovery.root, p);
  const relDiag = (d: Diagnostic): Diagnostic => ({ ...d, path: d.path === null ? null : rel(d.path) });
  const stateOptions = {
    ...(options.fs === undefined ? {} : { fs: options.fs }),
    ...(options.configEnv === undefined ? {} : { configEnv: options.configEnv }),
    ...(options.mergeBase === undefined ? {} : { mergeBase: options.mergeBase }),
  };
  // Each repo with its state and its latest snapshot, read once (it counts towards activity, and is the stat cache of
  // its changed files); every later step takes these together.
  const inView = await mapLimit(
    discovery.repos,
    options.concurrency ?? 8,
    async (repo): Promise<RepoInView> => ({ repo, state: await readRepoState(repo, stateOptions), latest: options.snapshotStore?.latest(repo.root) ?? null }),
  );
  const ranked = rankByActivity(
    inView.map((r) => ({
      root: r.repo.root,
      repo: r.repo,
      state: r.state,
      activityMs: repoActivityMs(r.repo, { fs: options.fs ?? nodeSyncFs, agentActivityMs: options.snapshotStore?.agentActivity(r.repo.root) ?? null }),
    })),
  );
  const maxRepos = options.maxRepos ?? 8;
  // A repo whose git data is broken (an error diagnostic) is listed, not analysed in depth.
  const healthy = (r: { repo: Repo; state: RepoState }): boolean => r.repo.gitDir !== null && ![...r.repo.diagnostics, ...r.state.diagnostics].some((d) => d.severity === "error");
  const deepRoots = new Set(
    ranked
      .filter(healthy)
      .slice(0, maxRepos)
      .map((r) => r.root),
  );
  const rank = new Map(ranked.map((r, i) => [r.root, i + 1]));
  timing("repo state", tState);

  let done = 0;
  const tScan = Date.now();
  const scanned = await mapLimit(inView, 2, async ({ repo, state, latest }): Promise<Scanned | null> => {
    if (!deepRoots.has(repo.root)) return null;
    // git status of each repo runs as a process of its own while the other worker's repo is read.
    const d = await scanRepo(repo, state, latest, options, early?.root === repo.root ? early.view : statusInBackground(repo, options));
    options.onProgress?.(++done, deepRoots.size, rel(repo.root));
    return d;
  });
  timing("snapshot", tScan);
  const tSymbols = Date.now();
  const deep = await analyzeSymbols(discovery.repos, scanned, options);
  timing("symbols", tSymbols);

  const repos = inView.map(({ repo, state }, i): RepoReport => {
    const d = deep[i] ?? null;
    return {
      root: rel(repo.root),
      kind: repo.kind,
      parent: repo.parent === null ? null : rel(repo.parent),
      remote_fingerprints: state.remote_fingerprints,
      branch: state.branch,
      head_sha: state.head_sha,
      base_sha: state.base_sha,
      base_ref: state.base_ref,
      active_rank: rank.get(repo.root) ?? 0,
      analysed: d !== null,
      ahead: d?.ahead ?? null,
      behind: d?.behind ?? null,
      worktree_hash: d?.worktreeHash ?? null,
      packages: d?.packages ?? [],
      packages_truncated: d?.packagesTruncated ?? false,
      changes: d?.changes ?? [],
      diagnostics: uniqueDiagnostics([...repo.diagnostics, ...state.diagnostics, ...(d?.diagnostics ?? [])].map(relDiag)).sort(compareDiagnostics),
    };
  });
  const tCollisions = Date.now();
  const groups = await cloneGroups(inView);
  const { collisions, breaks } = await cloneCollisions(inView, deep, groups, options, rel, healthy);
  timing("collisions", tCollisions);
  const family = new Map<number, string>();
  for (const [k, g] of groups.entries()) for (const i of g) family.set(i, `group:${k}`);
  const tImpacts = Date.now();
  const withBreaking = repos.filter((r) => r.changes.some((c) => (c.symbols ?? []).some((x) => x.compatibility === "breaking")));
  const users =
    withBreaking.length === 0
      ? { across: [], within: [] }
      : await (await import("./cross-repo-impacts.js")).packageUsers(
          repos
            .map((r, i) => ({ root: r.root, abs: inView[i]?.repo.root ?? r.root, family: family.get(i) ?? `repo:${i}`, packages: r.packages, changes: r.changes, complete: r.analysed }))
            .filter((_, i) => inView[i]?.repo.gitDir !== null),
          options.configEnv ?? processConfigEnv(),
        );
  const impacts = [...users.across];
  const inRepo = [...users.within];
  const links = inView.flatMap((_, i) => [...(deep[i]?.contractLinks ?? new Map())].map(([p, link]) => ({ repo: i, path: p, link })));
  const contractUsers =
    links.length === 0
      ? []
      : await (await import("./contract-users.js")).contractUsers(
          repos.map((r, i) => ({ root: r.root, abs: inView[i]?.repo.root ?? r.root, changes: r.changes, complete: r.analysed })).filter((_, i) => inView[i]?.repo.gitDir !== null),
          links.map((l) => ({ publisher: repos[l.repo]?.root ?? "", path: l.path, link: l.link })),
          options.configEnv ?? processConfigEnv(),
        );
  timing("cross-repo", tImpacts);
  const tBriefing = Date.now();
  const merged = mergeBriefings(
    repos.filter((r) => r.analysed).map((r) => ({ repo: r.root, markdown: "", facts: buildLocalBriefing(r), activityMs: -r.active_rank })),
    { maxRepos },
  );
  const opening = collisions.length === 0 ? "" : (await import("./clone-collisions.js")).describeCollisions(collisions);
  const broken = breaks.length === 0 ? "" : (await import("./clone-collisions.js")).describeCloneBreaks(breaks);
  const across = impacts.length === 0 ? "" : (await import("./cross-repo-impacts.js")).describeImpacts(impacts);
  const within = inRepo.length === 0 ? "" : (await import("./cross-repo-impacts.js")).describeInRepoUsers(inRepo);
  const contractLines = contractUsers.length === 0 ? "" : (await import("./contract-users.js")).describeContractUsers(contractUsers);
  const briefing = [opening, broken, within, across, contractLines, merged].filter((x) => x !== "").join("\n\n");
  timing("briefing", tBriefing);
  return {
    schema: ANALYZE_SCHEMA,
    repos,
    collisions,
    clone_breaks: breaks,
    cross_repo: impacts,
    in_repo: inRepo,
    contract_users: contractUsers,
    briefing,
    diagnostics: discovery.diagnostics.map(relDiag).sort(compareDiagnostics),
  };
}

/** The repos under the folder that are one repo (clones sharing a remote, worktrees sharing a git folder), as index groups. */
async function cloneGroups(repos: readonly RepoInView[]): Promise<number[][]> {
  if (repos.length < 2) return [];
  const { groupClones } = await import("./clone-collisions.js");
  const real = (p: string | null): string | null => {
    if (p === null) return null;
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  };
  return groupClones(repos.map(({ repo, state }) => ({ root: repo.root, commonDir: real(repo.commonDir), fingerprints: state.remote_fingerprints })));
}

/**
 * Collisions between the clones and worktrees of each repo under the folder: each side's changes since the merge
 * base of their HEADs (its uncommitted changes when HEADs agree, reusing the main analysis), compared by file and
 * symbol; and the breaking changes of one side that the other sides' changed files use. Loads nothing when no
 * two repos are one.
 */
async function cloneCollisions(
  repos: readonly RepoInView[],
  deep: ReadonlyArray<Deep | null>,
  cloneGroupList: readonly number[][],
  options: AnalyzeOptions,
  rel: (p: string) => string,
  healthy: (r: { repo: Repo; state: RepoState }) => boolean,
): Promise<{ collisions: CloneCollision[]; breaks: CloneBreak[] }> {
  if (cloneGroupList.length === 0) return { collisions: [], breaks: [] };
  const { findCloneBreaks, findCollisions, mergeBaseOf } = await import("./clone-collisions.js");
  const groups = cloneGroupList.map((g) => g.filter((i) => repos[i] !== undefined && healthy(repos[i]) && repos[i].state.head_sha !== null).slice(0, 32)).filter((g) => g.length > 1);
  const out: CloneCollision[] = [];
  const breaks: CloneBreak[] = [];
  for (const g of groups) {
    const members = g.flatMap((i) => (repos[i] === undefined ? [] : [{ ...repos[i], index: i }]));
    const heads = [...new Set(members.flatMap(({ state }) => (state.head_sha === null ? [] : [state.head_sha])))];
    const sides = await mapLimit(members, 2, async ({ repo, state, index: i }) => {
      const since = options.since ?? (await mergeBaseOf(repo.root, [...heads, ...(state.base_sha === null ? [] : [state.base_sha])], options.configEnv ?? processConfigEnv())) ?? state.head_sha;
      let changes = deep[i]?.changes ?? null;
      // A side whose HEAD is the merge base: its uncommitted changes, as the main analysis already has them.
      if (changes === null || since !== (options.since ?? state.head_sha)) {
        const scanned = await scanRepo(repo, state, null, { ...options, since, snapshotStore: null }, null);
        changes = (await analyzeSymbols([repo], [scanned], options))[0]?.changes ?? [];
      }
      return { root: rel(repo.root), abs: repo.root, branch: state.branch, since, changes };
    });
    const roots = members.map(({ repo }) => rel(repo.root));
    out.push(...findCollisions(roots, sides));
    breaks.push(...findCloneBreaks(roots, sides, (abs) => nodeTextReader.read(abs)));
  }
  return { collisions: out, breaks };
}

/** A repo found under the folder, with what was read of it once. */
interface RepoInView {
  readonly repo: Repo;
  readonly state: RepoState;
  /** Its latest snapshot: the stat cache of its changed files. */
  readonly latest: Snapshot | null;
}

interface Deep {
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly worktreeHash: string | null;
  readonly packages: readonly PackageInfo[];
  readonly packagesTruncated: boolean;
  readonly changes: readonly FileChangeReport[];
  readonly diagnostics: readonly Diagnostic[];
  /** The changed contract files' links to their consumers (their breaking changes' names), by path. */
  readonly contractLinks?: ReadonlyMap<string, import("../contracts/contract-files.js").ContractLink>;
}

/** A repo's state beyond its refs: what changed, against which commit, and its packages. */
interface Scanned {
  readonly ahead: number | null;
  readonly behind: number | null;
  readonly against: string | null;
  readonly worktreeHash: string | null;
  readonly changes: readonly PathChange[];
  readonly baseOids: Readonly<Record<string, string>>;
  /** The git blob id of each changed working file the worktree hash read or vouched for. */
  readonly afterOids: ReadonlyMap<string, string>;
  readonly packages: readonly PackageInfo[];
  readonly packagesTruncated: boolean;
  readonly diagnostics: Diagnostic[];
}

async function scanRepo(repo: Repo, state: RepoState, latest: Snapshot | null, options: AnalyzeOptions, statusView: Promise<GitStatusView | { readonly walk: string }> | null): Promise<Scanned> {
  const diagnostics: Diagnostic[] = [];
  const commonDir = repo.commonDir ?? "";
  let against: string | null = state.head_sha;
  if (options.since !== undefined && options.since !== null) {
    against = resolveCommitish(repo, options.since);
    if (against === null) diagnostics.push(diagnostic("bad_since", "error", null, `--since ${options.since}: no such commit or ref here; compared with HEAD`));
    against ??= state.head_sha;
  }
  // The repo's latest snapshot is a stat cache of its changed files: one whose stat did not move is not read again.
  const store = options.snapshotStore ?? null;
  const wt = await worktreeHash(repo, {
    ...(options.configEnv === undefined ? {} : { configEnv: options.configEnv }),
    against,
    previous: latest,
    statusIndex: options.statusIndex ?? null,
    // Started before discovery; only a comparison with HEAD uses it (`worktreeHash` asks git itself otherwise).
    ...(against === state.head_sha ? { statusView } : {}),
  });
  if (store !== null && wt.files.length > 0) store.saveLatest({ version: 1, root: repo.root, startedMs: Date.now(), entries: wt.files });
  diagnostics.push(...wt.diagnostics.map((d) => ({ ...d, path: d.path === null ? null : path.join(repo.root, d.path) })));
  const pk = discoverPackages(repo.root);
  diagnostics.push(...pk.diagnostics.map((d) => ({ ...d, path: d.path === null ? null : path.join(repo.root, d.path) })));
  let ab = { ahead: null as number | null, behind: null as number | null };
  if (state.head_sha !== null && state.base_ref !== null && repo.gitDir !== null && repo.commonDir !== null) {
    const tip = new RefReader(nodeSyncFs, repo.gitDir, repo.commonDir).resolve(state.base_ref);
    if (tip !== null) ab = await aheadBehind(commonDir, state.head_sha, tip);
  }
  const afterOids = new Map(wt.files.flatMap((f) => (f.hash !== null && /^[0-9a-f]{40}$/.test(f.hash) ? [[f.path, f.hash] as const] : [])));
  // Comity's own hook configs (`comity init`) are nobody's work: no change, no collision, no briefing line.
  const changes = wt.changes.filter((c) => !isHookConfigFile(c.path));
  return { ...ab, against, worktreeHash: wt.worktree_hash, changes, baseOids: wt.baseOids, afterOids, packages: pk.packages, packagesTruncated: pk.truncated, diagnostics };
}

/**
 * Symbol changes of every changed file of every analysed repo, extracted in
 * one pool (`extractMany`): the working version of each file, and its old
 * version, found in the cache by its blob id or read from git. Results keep
 * the repos' and files' order.
 */
async function analyzeSymbols(repos: readonly Repo[], scanned: ReadonlyArray<Scanned | null>, options: AnalyzeOptions): Promise<Array<Deep | null>> {
  const cacheDir = options.symbolCacheDir ?? null;
  // Old versions are kept by blob id in packs (one file a run), not one entry file each.
  const packs = cacheDir === null ? null : openOldVersionPacks(cacheDir);
  const toPack: Array<{ slot: number; key: string; language: string }> = [];
  const jobs: ExtractJob[] = [];
  type Pending = { repo: number; path: string; after: number | null; before: number | null; key: { base: string | null; after: string | null } | null; memo: MemoEntry | null };
  const pending: Pending[] = [];
  const memos = new Map<number, ChangeMemo>();
  // The pool's workers start loading as soon as there is enough work for them, while this thread reads the files and
  // their old versions (their start-up, 0.3-0.4 s, then costs nothing); extractMany closes them, used or not. With no
  // --jobs, on 2 cores, a worker is worth its start only for enough bytes to parse (defaultMinBytesPerWorker): the pool
  // starts here once the files read so far are enough for all of them, else extractMany sizes it to the whole work.
  const workers = options.jobs ?? availableParallelism();
  const sizedByWork = options.jobs === undefined;
  let bytesRead = 0;
  let pool: ExtractPool | null = null;
  const startPoolOnce = async (): Promise<void> => {
    if (pool !== null || workers <= 1) return;
    const { startExtractPool, DEFAULT_MIN_FILES_FOR_POOL, defaultMinBytesPerWorker, workersFor } = await import("../symbols/extract-pool.js");
    const worth = workersFor(bytesRead, workers, sizedByWork ? defaultMinBytesPerWorker(workers) : 0);
    if (jobs.length >= DEFAULT_MIN_FILES_FOR_POOL && worth >= workers) pool = startExtractPool({ workers });
  };
  try {
    for (const [i, s] of scanned.entries()) {
      if (s === null || options.symbols === false) continue;
      const repo = repos[i] as Repo;
      const memo = cacheDir === null ? null : loadChangeMemo(path.join(cacheDir, SYMBOLS_LAYOUT.changes, `${createHash("sha1").update(repo.root).digest("hex")}.json`));
      if (memo !== null) memos.set(i, memo);
      const missing: Array<{ path: string; oid: string; slot: number; language: string }> = [];
      for (const c of s.changes) {
        if (languageOf(c.path) === null || c.change === "mode_changed") continue;
        // Both versions known by blob id: the last run's analysis of the same pair stands.
        const afterOid = c.change === "deleted" ? null : (s.afterOids.get(c.path) ?? undefined);
        const key = afterOid === undefined ? null : { base: s.baseOids[c.path] ?? null, after: afterOid };
        const known = key === null ? null : (memo?.get(c.path, key.base, key.after) ?? null);
        const p: Pending = { repo: i, path: c.path, after: null, before: null, key, memo: known };
        if (known !== null) {
          pending.push(p);
          continue;
        }
        if (c.change !== "deleted") {
          p.after = jobs.length;
          const abs = path.join(repo.root, c.path);
          let bytes: Buffer | null = null;
          try {
            bytes = fs.readFileSync(abs);
          } catch {
            // the extraction reports it
          }
          // Remembered only under the blob id of the bytes analysed: a file edited while this run reads it is not.
          if (p.key !== null && (bytes === null || gitBlobId(bytes) !== p.key.after)) p.key = null;
          // A working version the change memo will remember (by both blob ids) is not also stored in the symbol cache:
          // the next run takes the memo's answer, and a cold run of 2,000 changed files spent 0.7-0.9 s of its
          // 4 s creating those 2,000 entry files. (Old versions, asked for when a file changes again, go in a pack.)
          jobs.push({ path: c.path, ...(bytes === null ? { abs } : { bytes }), ...(p.key === null ? {} : { store: false }) });
          bytesRead += bytes?.length ?? 0;
          await startPoolOnce();
        }
        const oid = s.baseOids[c.path];
        if (oid !== undefined) {
          p.before = jobs.length;
          // The old version is read from git only when the packs do not know its blob; what they hold is passed on, not read twice.
          const language = languageOf(c.path)?.id ?? "none";
          const text = packs?.get(`g${oid}`, language) ?? null;
          const cached = text === null ? null : fromEntryText(c.path, text);
          jobs.push({ path: c.path, store: false, ...(cached === null ? {} : { known: cached }) });
          if (cached === null) missing.push({ path: c.path, oid, slot: p.before, language });
        }
        pending.push(p);
      }
      if (missing.length > 0) {
        // The engine's own object reader first (node's zlib; 2,000 blobs in a fraction of isomorphic-git's time, which
        // it also saves loading); isomorphic-git for what it cannot read (a v1 pack index, say).
        const reader = createObjectReader(path.join(repo.commonDir ?? "", "objects"));
        let git: typeof import("isomorphic-git") | null = null;
        const gitCache = {};
        for (const m of missing) {
          try {
            let blob: Uint8Array | null = null;
            try {
              const object = reader.read(m.oid);
              if (object?.type === "blob") blob = object.content;
            } catch {
              // the fallback below reads it, or says why not
            }
            if (blob === null) {
              git ??= await import("isomorphic-git");
              blob = (await git.readBlob({ fs, gitdir: repo.commonDir ?? "", oid: m.oid, cache: gitCache })).blob;
            }
            jobs[m.slot] = { path: m.path, bytes: blob, store: false };
            toPack.push({ slot: m.slot, key: `g${m.oid}`, language: m.language });
          } catch (error) {
            s.diagnostics.push(diagnostic("head_unreadable", "warning", path.join(repo.root, m.path), `cannot read the old version: ${error instanceof Error ? error.message : String(error)}`));
            jobs[m.slot] = { path: m.path, bytes: new Uint8Array(0) };
          }
        }
      }
    }
  } catch (error) {
    await (pool as ExtractPool | null)?.close();
    throw error;
  }
  // Extraction and comparison load only for what the memo does not answer (a second run of an unchanged workspace: nothing).
  const started = pool as ExtractPool | null;
  let results: FileSymbols[] = [];
  if (jobs.length > 0) {
    const { extractMany, defaultMinBytesPerWorker } = await import("../symbols/extract-pool.js");
    results = await extractMany(jobs, {
      workers,
      cacheDir,
      ...(started === null ? {} : { pool: started }),
      ...(sizedByWork ? { minBytesPerWorker: defaultMinBytesPerWorker(workers) } : {}),
      ...(options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt }),
      ...(options.beforePool === undefined ? {} : { beforePool: options.beforePool }),
    });
  }
  // The old versions read from git this run, for the next run that meets them (a file changed again).
  for (const { slot, key, language } of toPack) {
    const r = results[slot];
    // (not a result made here after its worker died: that is this run's story, not the blob's)
    if (r !== undefined && keepable(r) && !r.diagnostics.some((d) => d.code === "worker_crashed")) packs?.add(key, language, entryText(r));
  }
  packs?.save();
  const comparison = pending.some((p) => p.memo === null) ? await loadComparison() : null;
  // Service contracts (GraphQL SDL, ...) are read here, in this thread, by their own parsers.
  // (and the routes a changed server file declares: any changed code file may be one)
  const contracts = scanned.some((s) => s?.changes.some((c) => c.change !== "mode_changed" && (languageOf(c.path) !== null || mayBeContract(c.path)))) ? await loadContracts() : null;
  const byRepo = new Map<number, FileChangeReport[]>();
  const analysed = new Map(pending.map((p) => [`${p.repo}\0${p.path}`, p]));
  // (in order, one repo after the other: a contract's versions are read from git in turn)
  const out: Array<Deep | null> = [];
  for (const [i, s] of scanned.entries()) out.push(s === null ? null : await symbolsOfRepo(s, i));
  return out;

  async function symbolsOfRepo(s: Scanned, i: number): Promise<Deep> {
    const changes: FileChangeReport[] = [];
    const contractLinks = new Map<string, import("../contracts/contract-files.js").ContractLink>();
    for (const c of s.changes) {
      const language = languageOf(c.path)?.id ?? null;
      const p = analysed.get(`${i}\0${c.path}`);
      const contract = p === undefined && contracts !== null && options.symbols !== false && c.change !== "mode_changed" ? await contracts.analyze(repos[i] as Repo, s, c.path) : null;
      if (contract !== null) {
        for (const d of contract.diagnostics) s.diagnostics.push({ ...d, path: path.join((repos[i] as Repo).root, c.path) });
        if (contract.changes.some((x) => x.compatibility === "breaking")) contractLinks.set(c.path, contract.link);
        changes.push({ path: c.path, change: c.change, language: contract.kind, symbols: contract.parsed ? [...contract.changes] : null, new_references: [] });
        continue;
      }
      if (p === undefined) {
        changes.push({ path: c.path, change: c.change, language, symbols: null, new_references: null });
        continue;
      }
      let entry = p.memo;
      if (entry === null) {
        const { compareSymbols, compatLanguageOf, newReferences } = comparison as Comparison; // loaded above whenever an entry is not in the memo
        const after = p.after === null ? null : (results[p.after] ?? null);
        const before = p.before === null ? null : (results[p.before] ?? null);
        // A version whose parse was stopped at its limits has no symbols to compare: the file is reported as not
        // analysed (with the diagnostic), never as every symbol removed or added, and not remembered.
        const stopped = [after, before].find((r) => r !== null && !keepable(r));
        if (stopped !== undefined && stopped !== null) {
          for (const d of stopped.diagnostics) s.diagnostics.push({ ...d, path: path.join((repos[i] as Repo).root, c.path) });
          changes.push({ path: c.path, change: c.change, language, symbols: null, new_references: null });
          continue;
        }
        entry = {
          base: p.key?.base ?? null,
          after: p.key?.after ?? null,
          symbols: compareSymbols(before?.symbols ?? [], after?.symbols ?? [], compatLanguageOf(language)),
          new_references: newReferences(before?.references ?? [], after?.references ?? []),
          diagnostics: after?.diagnostics ?? [],
        };
      }
      if (p.key !== null) memos.get(i)?.set(c.path, entry);
      for (const d of entry.diagnostics) s.diagnostics.push({ ...d, path: path.join((repos[i] as Repo).root, c.path) });
      // The routes a server's code declares, beside its symbols; their consumers are found as an OpenAPI document's.
      const routed = contracts !== null && options.symbols !== false && c.change !== "mode_changed" ? contracts.routes(repos[i] as Repo, s, c.path) : null;
      if (routed !== null && routed.link.publicNames.size > 0) contractLinks.set(c.path, routed.link);
      changes.push({ path: c.path, change: c.change, language, symbols: routed === null ? entry.symbols : [...entry.symbols, ...routed.changes], new_references: entry.new_references });
    }
    memos.get(i)?.save();
    byRepo.set(i, changes);
    return { ahead: s.ahead, behind: s.behind, worktreeHash: s.worktreeHash, packages: s.packages, packagesTruncated: s.packagesTruncated, changes, diagnostics: s.diagnostics, contractLinks };
  }
}

function readOrNullFile(abs: string): Buffer | null {
  try {
    return fs.readFileSync(abs);
  } catch {
    return null;
  }
}

/** Reads a changed file as a contract: its working version and its base blob; null for a file that is not one. */
async function loadContracts(): Promise<{
  analyze(
    repo: Repo,
    s: Scanned,
    repoPath: string,
  ): Promise<(Pick<import("../contracts/contract-files.js").ContractAnalysis, "kind" | "changes" | "diagnostics" | "link"> & { parsed: boolean }) | null>;
  routes(repo: Repo, s: Scanned, repoPath: string): { changes: SymbolChange[]; link: import("../contracts/contract-files.js").ContractLink } | null;
}> {
  const [{ mayBeContract, contractLink }, { mayBeFragment }, { analyzeContractFile, analyzeFragment }, routes, mounts] = await Promise.all([
    import("../contracts/contract-files.js"),
    import("../contracts/ref-documents.js"),
    import("../symbols/analyze-file.js"),
    import("../contracts/code-routes.js"),
    import("../contracts/route-mounts.js"),
  ]);
  const readers = new Map<string, ReturnType<typeof createObjectReader>>();
  const versions = (repo: Repo, s: Scanned, repoPath: string): { before: Uint8Array | null; after: Buffer | null } => {
    let after: Buffer | null = null;
    try {
      after = fs.readFileSync(path.join(repo.root, repoPath));
    } catch {
      // deleted
    }
    const oid = s.baseOids[repoPath];
    let before: Uint8Array | null = null;
    if (oid !== undefined) {
      const objects = path.join(repo.commonDir ?? "", "objects");
      let reader = readers.get(objects);
      if (reader === undefined) {
        reader = createObjectReader(objects);
        readers.set(objects, reader);
      }
      try {
        const o = reader.read(oid);
        before = o?.type === "blob" ? o.content : null;
      } catch {
        before = null;
      }
    }
    return { before, after };
  };
  return {
    async analyze(repo, s, repoPath) {
      if (!mayBeContract(repoPath)) return null;
      // Each file as it was at the base: a changed one by its base blob (none for a new one), any other as it is.
      const changed = new Set(s.changes.map((c) => c.path));
      const readBase = async (p: string): Promise<Buffer | null> => {
        if (!changed.has(p)) return readOrNullFile(path.join(repo.root, p));
        const { before } = versions(repo, s, p);
        return before === null ? null : Buffer.from(before.buffer, before.byteOffset, before.byteLength);
      };
      // A contract, else a schema or path file of the OpenAPI documents that reach it.
      const a = (await analyzeContractFile(repo.root, repoPath, readBase)) ?? (mayBeFragment(repoPath) ? await analyzeFragment(repo.root, repoPath, { readHead: readBase }) : null);
      if (a === null || a.language === null || (a.language !== "graphql" && a.language !== "openapi" && a.language !== "protobuf")) return null;
      return {
        kind: a.language,
        changes: a.changes,
        diagnostics: a.diagnostics,
        link: a.contract ?? contractLink(a.language, null, null, []),
        parsed: !a.diagnostics.some((d) => d.code === "parse_error" || d.code === "file_too_large"),
      };
    },
    // A server's code: its routes' changes, under the HTTP API (as the hooks file them).
    routes(repo, s, repoPath) {
      let aText: string | null = null;
      try {
        aText = fs.readFileSync(path.join(repo.root, repoPath), "utf8");
      } catch {
        // deleted: its routes are gone
      }
      // (the base blob is read only for a file that declares routes now, or is gone)
      if (aText !== null && !routes.mayDeclareRoutes(repoPath, aText)) return null;
      const { before } = versions(repo, s, repoPath);
      const bText = before === null ? null : Buffer.from(before.buffer, before.byteOffset, before.byteLength).toString("utf8");
      const prefixes = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/.test(repoPath) ? mounts.externalMountPrefixes(repo.root, repoPath) : [];
      const changes = routes.compareRoutes(bText === null ? [] : routes.routesIn(repoPath, bText, { prefixes }), aText === null ? [] : routes.routesIn(repoPath, aText, { prefixes }));
      if (changes.length === 0) return null;
      const publicNames = new Map(changes.filter((c) => c.compatibility === "breaking").map((c) => [c.qualified_name, [c.qualified_name, ...routes.routeCallNames(c.qualified_name)].slice(0, 64)]));
      return { changes, link: { package: { name: "http", ecosystem: "openapi" }, publicNames } };
    },
  };
}

type Comparison = Pick<typeof import("../symbols/compare-symbols.js"), "compareSymbols" | "compatLanguageOf"> & Pick<typeof import("../symbols/new-references.js"), "newReferences">;

async function loadComparison(): Promise<Comparison> {
  const [{ compareSymbols, compatLanguageOf }, { newReferences }] = await Promise.all([import("../symbols/compare-symbols.js"), import("../symbols/new-references.js")]);
  return { compareSymbols, compatLanguageOf, newReferences };
}

/** The git status of the repo at `dir` itself, started in the background; null where analyze would not use it. */
function earlyStatus(dir: string, options: AnalyzeOptions): { root: string; view: Promise<GitStatusView | { readonly walk: string }> } | null {
  if (options.fs !== undefined || (options.since !== undefined && options.since !== null)) return null;
  const repo = findOwningRepo(dir, options.cwd === undefined ? {} : { cwd: options.cwd });
  if (repo === null || repo.gitDir === null) return null;
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(options.cwd ?? process.cwd(), dir));
  } catch {
    return null;
  }
  if (repo.root !== real) return null;
  const view = statusInBackground(repo, options);
  return view === null ? null : { root: repo.root, view };
}

/** A repo's git status, as `worktreeHash` reads it against HEAD, started as a process now; null where analyze reads the repo otherwise. */
function statusInBackground(repo: Repo, options: AnalyzeOptions): Promise<GitStatusView | { readonly walk: string }> | null {
  if (options.fs !== undefined || (options.since !== undefined && options.since !== null) || repo.gitDir === null) return null;
  const taken = options.statusOf?.(repo.root) ?? null;
  if (taken !== null) return taken;
  const view = readGitStatusViewAsync(repo, nodeWorktreeFs, options.configEnv ?? processConfigEnv(), options.statusIndex ?? null, { withIndex: false });
  // Never an unhandled rejection, whether or not it is used.
  view.catch(() => undefined);
  return view;
}

/** A full commit id, or a branch, remote branch or tag name, or a full ref. */
function resolveCommitish(repo: Repo, name: string): string | null {
  if (/^[0-9a-f]{40}$/.test(name)) return name;
  if (repo.gitDir === null || repo.commonDir === null) return null;
  const refs = new RefReader(nodeSyncFs, repo.gitDir, repo.commonDir);
  for (const ref of [name, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/tags/${name}`]) {
    const oid = ref.startsWith("refs/") || ref === "HEAD" ? refs.resolve(ref) : null;
    if (oid !== null) return oid;
  }
  return null;
}

/** Each diagnostic once: a file two readers met (the repo's packages and its changes, say) is one finding. */
function uniqueDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Map<string, Diagnostic>();
  for (const d of list) seen.set(`${d.code}\0${d.severity}\0${d.path ?? ""}\0${d.message}`, d);
  return [...seen.values()];
}
