/**
 * Everything Comity keeps in its config folder (`configDir`), in one place: where each store lives and how
 * much of it is kept. Every store follows one pruning policy: it is a cache of what can be computed again (or, for
 * the coordination store, of what expires), so it is bounded, the least recently written goes first, and it is
 * pruned by the process that writes it, a little at a time, never by a scan of the whole folder on a read path.
 */
export const CONFIG_LAYOUT = {
  /** One line per fail-open of a hook; rotated to `hook.log.1`. */
  hookLog: "hook.log",
  /** The team server and token `comity login` saved. */
  api: "api.json",
  /** This machine's coordination store (SQLite), and its settings beside it. */
  store: "coordination.sqlite",
  /** Per-session hook state (queued context, this turn's files), one file per session. */
  sessions: "sessions",
  /** Snapshots between a shell command's two hook processes; the latest per repo is the next one's stat cache. */
  snapshots: "snapshots",
  /** Private copies of large repos' git index, for `git status` to keep its untracked cache in. */
  statusIndex: "status-index",
  /** `comity analyze`'s discovery walks, per folder. */
  discovery: "discovery",
  /** Symbols by content hash, and under it the stores below. */
  symbols: "symbols",
  /** Content hashes of HEAD's files, per commit. */
  headHashes: "head-hashes",
  /** The per-user daemon's socket (`comity daemon`), 0600. */
  daemon: "daemon.sock",
  /** The daemon's port on 127.0.0.1 and secret for Claude Code's HTTP hooks (`comity init --http`), 0600. */
  daemonHttp: "daemon-http.json",
  /** What each git binary said about itself (its system config file), by its path, size and change time; 32 at most. */
  gitFacts: "git-facts.json",
  /** Events a hook process wrote down before applying them to the embedded store, left where it ran out of time. */
  pendingEvents: "pending-events",
} as const;

/** The stores under {@link CONFIG_LAYOUT}.symbols. */
export const SYMBOLS_LAYOUT = {
  /** Each file's content hash by its stat, one file per source folder (`comity symbols`). */
  files: "files",
  /** Each file's printed line by its content hash and stat, one file per source folder (`comity symbols --json`). */
  lines: "lines",
  /** The symbols of old versions read from git, by blob id, in packs (`comity analyze`). */
  oldVersions: "old-versions",
  /** Each changed file's comparison by the blob ids of its two versions, per repo (`comity analyze`). */
  changes: "changes",
  /** Service contracts' versions read from git (symbols, and an OpenAPI document's data), by content hash. */
  contracts: "contracts",
} as const;

/** How much of each store is kept: the bounds of the pruning policy. */
export const KEEP = {
  hookLogBytes: 1024 * 1024,
  /** Snapshots: an hour, and 256 MiB in all. */
  snapshotAgeMs: 60 * 60 * 1000,
  snapshotBytes: 256 * 1024 * 1024,
  /** Symbol cache entries, spread over 256 folders by hash, each kept to its share. */
  symbolEntries: 50_000,
  /** Source folders in `files/` and in `lines/` each. */
  symbolFolders: 4096,
  /** Old-version packs: the newest 16, and 32 MiB in all (the newest always). */
  oldVersionPacks: 16,
  oldVersionBytes: 32 * 1024 * 1024,
  /** Commits whose HEAD hashes are kept. */
  headHashCommits: 2000,
  /** Contract versions: few per workspace, and large. */
  contractEntries: 256,
} as const;
