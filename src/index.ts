/**
 * Comity engine: the library behind `comity`. Every CLI command is a
 * function here with typed inputs and outputs; nothing here prints or exits.
 */
export { ComityError, type ErrorCode } from "./errors/comity-error.js";
export { compareStrings, type Diagnostic, type Severity } from "./errors/diagnostic.js";
export { nodeSyncFs, type SyncFs } from "./fs/sync-fs.js";

export { discoverRepos, findOwningRepo, DEFAULT_PRUNE, RACY_FOLDER_MS, type DiscoverOptions, type Discovery } from "./workspace/discover-repos.js";
export { createDiscoveryCache, type DiscoveryCache, type WalkRecord, type WalkedFolder } from "./workspace/discovery-cache.js";
export { createRouter, type Route, type Router, type RouterOptions } from "./workspace/create-router.js";
export type { Repo, RepoKind } from "./workspace/repo.js";

export { canonicalizeRemoteUrl, type CanonicalRemote } from "./remotes/canonicalize-remote-url.js";
export { remoteFingerprint, remoteFingerprints } from "./remotes/fingerprint.js";
export { applyInsteadOf, insteadOfRules, type InsteadOfRule } from "./remotes/apply-instead-of.js";
export { readRemotes, primaryRemote, type Remote } from "./remotes/read-remotes.js";

export { parseGitConfig, type GitConfigEntry, type ParsedGitConfig } from "./git/parse-git-config.js";
export { gitConfigFiles, loadGitConfig, type GitConfigEnv, type LoadedGitConfig } from "./git/load-git-config.js";
export { parseHead, parsePackedRefs, RefReader, type HeadState } from "./git/read-refs.js";

export {
  readRepoState,
  processConfigEnv,
  type MergeBaseFn,
  type RepoState,
  type RepoStateOptions,
} from "./state/read-repo-state.js";

export { relativePosix } from "./fs/relative-posix.js";
export {
  analyzeWorkspace,
  ANALYZE_SCHEMA,
  type AnalyzeOptions,
  type AnalyzeReport,
  type RepoReport,
  type FileChangeReport,
} from "./analyze/analyze-workspace.js";

export { comityHooks, isComityHookCommand, INIT_HOSTS, type InitHost, type HookTable, type HookGroup, type CommandHook } from "./init/host-configs.js";
export { mergeHooks, hooksAreCurrent } from "./init/merge-hooks.js";
export { planInit, hostConfigFile, type InitOptions, type InitPlan, type InitFile } from "./init/plan-init.js";
export { applyInit, type AppliedFile } from "./init/apply-init.js";

export { runDoctor, type DoctorOptions, type DoctorReport, type DoctorCheck, type CheckStatus } from "./doctor/run-doctor.js";
export { httpRequest, apiUrl, type HttpAnswer } from "./api/http-request.js";

export { runCli } from "./cli/main.js";
export type { CliIo } from "./cli/io.js";
export { CLI_VERSION } from "./version.js";

export type { Snapshot, SnapshotEntry, EntryType, PathChange, ChangeKind } from "./snapshot/snapshot.js";
export { diffSnapshots } from "./snapshot/diff-snapshots.js";
export { takeSnapshot, DEFAULT_RACY_MARGIN_MS, type SnapshotOptions, type SnapshotResult } from "./snapshot/take-snapshot.js";
export { loadContentHasher, nodeWorktreeFs, type ContentHasher, type WorktreeFs } from "./snapshot/content-hasher.js";
export { parseGitIndex, type GitIndex, type IndexEntry } from "./git/read-git-index.js";
export { worktreeHash, type WorktreeHashResult } from "./snapshot/worktree-hash.js";
export { privateStatusIndex, STATUS_INDEX_MIN_ENTRIES, type StatusIndexOptions } from "./snapshot/status-index.js";
export { encodeSnapshot, decodeSnapshot } from "./snapshot/snapshot-codec.js";
export { createSnapshotStore, type SnapshotKey, type SnapshotStore, type SnapshotStoreOptions } from "./snapshot/snapshot-store.js";
export { configDir } from "./config/config-dir.js";
export { resolveApi, readApiCredentials, writeApiCredentials, credentialsFile, type ApiCredentials, type ApiSource, type ResolvedApi } from "./config/api-credentials.js";
export { loadShellParser, type ShellParser } from "./shell/load-shell-parser.js";
export { shellWritePaths, type ShellWritePaths, type ShellWritePathsOptions } from "./shell/shell-write-paths.js";
export {
  snapshotBeforeCommand,
  changesAfterCommand,
  type CommandSnapshotOptions,
  type BeforeResult,
  type AfterResult,
} from "./snapshot/command-snapshots.js";

export type {
  SymbolKind,
  SymbolRecord,
  SignatureInfo,
  ParamInfo,
  TypeParamInfo,
  SourceRange,
  ReferenceRecord,
  FileSymbols,
  LanguageId,
} from "./symbols/types.js";
export {
  createSymbolExtractor,
  EXTRACTOR_VERSION,
  DEFAULT_MAX_FILE_BYTES,
  type SymbolExtractor,
  type ParserBackend,
} from "./symbols/symbol-extractor.js";
export { extractSymbols } from "./symbols/extract-symbols.js";
export { compareSymbols, type SymbolChange, type SymbolChangeKind, type Compatibility } from "./symbols/compare-symbols.js";
export type { ChangeReason } from "./symbols/change-reason.js";
export { newReferences } from "./symbols/new-references.js";
export { analyzeFile, headReader, stripLocal, type FileAnalysis, type ReadHeadFile } from "./symbols/analyze-file.js";
export { cachedExtract, extractWithCache } from "./symbols/extract-with-cache.js";
export { createSymbolCache, type SymbolCache } from "./symbols/symbol-cache.js";
export { LANGUAGES, languageOf, type LanguageSpec } from "./symbols/languages.js";

export { discoverPackages, goWorkUses, type PackageInfo, type PackagesResult, type Ecosystem } from "./packages/discover-packages.js";
export { mergeBriefings, shareFairly, charLength, type RepoBriefing, type MergeOptions } from "./briefing/merge-briefings.js";
export { buildLocalBriefing, type LocalBriefingInput } from "./briefing/build-local-briefing.js";
export { repoActivityMs, rankByActivity } from "./workspace/repo-activity.js";
export { aheadBehind, type AheadBehind } from "./state/ahead-behind.js";
export { extractMany, type ExtractJob, type ExtractManyOptions } from "./symbols/extract-pool.js";
export { runHook, checkHookEvent, MAX_PATHS, PRE_TIMEOUT_MS, OTHER_TIMEOUT_MS, type HookInput, type HookOutput } from "./hook/run-hook.js";
export { createComityMcpServer, type McpContext } from "./mcp/mcp-server.js";
export { parseApplyPatch, patchPaths, carriesPatch, type PatchOperation } from "./hook/apply-patch.js";
export { detectHost, normalizeTool, classifyTool, mapEvent, type HostId, type ComityEvent, type ToolClass } from "./hook/hosts.js";
export { parseEvaluateResponse, type EvaluateResponse } from "./hook/evaluate-response.js";

export type { Database, Sql, Dialect } from "./store/database.js";
export { openDatabase } from "./store/open-database.js";
export { migrate, MIGRATIONS } from "./store/migrations.js";
export { createToken, setTeamPolicy, teamPolicy, teamForToken, hashToken, type Team, type TeamPolicy } from "./serve/teams.js";
export { evaluateEvent, evaluateLockKeys, DEFAULT_LEASE_MS, type EvaluateOptions } from "./coordination/evaluate-event.js";
export {
  EVALUATE_REQUEST_SCHEMA,
  loadRequestValidator,
  POLICIES,
  CONFLICT_KINDS,
  type EvaluateRequest,
  type EvaluateAnswer,
  type ConflictRef,
  type ConflictKind,
  type UseRecord,
  type RequestProblem,
} from "./coordination/wire.js";
export { deliversContext } from "./coordination/host-delivery.js";
export { filesUsing, importNamesModule, resolveRelative, moduleStem } from "./coordination/uses-symbol.js";
export { listSessions, type ActiveSession } from "./coordination/list-sessions.js";
export { pruneExpired, RETENTION } from "./store/prune.js";
export { createCoordinationServer, MAX_BODY_BYTES, type ServerOptions } from "./serve/create-server.js";
