/**
 * The wire between `comity hook` and the per-user daemon (`comity daemon`): one JSON line each way over a Unix socket
 * (a named pipe on Windows). Defined once; the thin client and the server both import it: the shapes here, what the
 * thin client needs at run time (where the socket is, a build's id, the size bound) in `daemon-client.cts`.
 */

/** What a process's command line got, as a call to the daemon carries it: its arguments, folder and environment. */
export interface CommandLine {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** One hook event, as the command line got it: its arguments, folder, environment and stdin. */
export interface HookCall extends CommandLine {
  readonly kind: "hook";
  /** The caller's build ({@link buildId}): a daemon of another build answers `stale` and ends. */
  readonly build: string;
  readonly stdin: string;
  /**
   * `env` holds none of the session's own variables (`SESSION_ENV`): the event takes them from its session's state
   * (a Claude Code HTTP hook as `comity init --http` writes it).
   */
  readonly envFromSession?: true;
}

/**
 * One hook event from the native client (`native/hook-client/comity_hook.c`, `comity-hook`): a {@link HookCall} whose
 * `build` is replaced by `root`, the absolute folder of the package it belongs to; the daemon reads that package's
 * build (its version and its CLI's mtime) as the Node client does. Its answer is the same {@link DaemonAnswer}.
 */
export interface NativeHookCall extends Omit<HookCall, "build"> {
  readonly root: string;
}

export interface StatusCall {
  readonly kind: "status" | "stop";
  readonly build: string;
}

/**
 * A warm `comity analyze`: `key` names the question whole (its arguments, folder, the environment that shapes its
 * output, whether stdout is a terminal); the daemon answers from memory or with a miss.
 */
export interface AnalyzeCall {
  readonly kind: "analyze";
  readonly build: string;
  readonly key: string;
}

/** Each watched root and its generation when an analyze question was asked: a cold answer is stored with it. */
export type AnalyzeToken = Readonly<Record<string, number>>;

/** A cold run's answer to an {@link AnalyzeCall}, with the roots it read (real paths: the folder, git folders). */
export interface AnalyzeStoreCall {
  readonly kind: "analyze-store";
  readonly build: string;
  readonly key: string;
  readonly token: AnalyzeToken | null;
  readonly stdout: string;
  readonly code: number;
  readonly roots: readonly string[];
}

export type AnalyzeAnswer =
  | { readonly kind: "analyze"; readonly stdout: string; readonly code: number }
  /** Not kept, or changed since: run it, and store the answer with this token (null: the daemon cannot keep it). */
  | { readonly kind: "analyze-miss"; readonly token: AnalyzeToken | null }
  | { readonly kind: "stored"; readonly stored: boolean };

/**
 * A read-only command run in the daemon instead of a new process (`DAEMON_COMMANDS` in `daemon-commands.cts`: `comity
 * status`, `who`, a small `symbols`): its arguments (the command first), folder, environment, and whether stdout is a
 * terminal.
 */
export interface CliCall extends CommandLine {
  readonly kind: "cli";
  readonly build: string;
  readonly tty: boolean;
}

/**
 * One JSON-RPC message to Comity's MCP server from `comity mcp` on stdio, which passes its host's messages to the
 * daemon instead of loading the server itself: the folder and environment it was started in, its `--host`, the message.
 */
export interface McpCall {
  readonly kind: "mcp";
  readonly build: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly host: string | null;
  readonly message: string;
}

export type DaemonCall = HookCall | StatusCall | AnalyzeCall | AnalyzeStoreCall | CliCall | McpCall;

export interface DaemonStatus {
  readonly pid: number;
  readonly build: string;
  readonly startedAt: string;
  /** Hook events answered since it started. */
  readonly served: number;
  /** Commands (`comity status`, `comity who`) run in it since it started. */
  readonly commands: number;
  /** Requests to Comity's MCP server on its HTTP front (`init --http`) answered since it started. */
  readonly mcpRequests?: number;
  /** Hook events running or waiting now. */
  readonly waiting: number;
  /** It ends itself after this long without a request. */
  readonly idleMs: number;
  /** The port on 127.0.0.1 where it answers Claude Code's HTTP hooks, or null (not asked for, or down). */
  readonly httpPort: number | null;
  /** Its HTTP front started again after it ended on its own (in the last 10 minutes), and why it is down, if it is. */
  readonly http?: { readonly restarts: number; readonly problem: string | null };
  /**
   * True while its HTTP front is still starting: the socket answers (status, hook events) a moment before the front
   * listens, so a caller that needs the HTTP hooks waits for this to clear. Older builds answer without it.
   */
  readonly httpStarting?: boolean;
  /** Resident memory now. */
  readonly rssBytes: number;
  /** How many working folders its events came from (up to a bound). */
  readonly folders: number;
  /** Per host and event (`claude_code PreToolUse`): events answered, and the time to answer the recent ones. */
  readonly events: Readonly<Record<string, EventTimes>>;
  /** `comity analyze` answered from memory: hits, misses, answers kept, roots watched, why it cannot (or null). */
  readonly analyze: { readonly hits: number; readonly misses: number; readonly entries: number; readonly roots: number; readonly problem: string | null };
  /** A shell command's snapshots: taken anew, and reused because nothing under the repo changed since the last one. */
  readonly snapshots: { readonly taken: number; readonly reused: number };
}

/** The time a daemon takes to answer one kind of event, over its last events of that kind (at most 1,000). */
export interface EventTimes {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export type DaemonAnswer =
  | { readonly kind: "hook"; readonly stdout: string }
  | AnalyzeAnswer
  | { readonly kind: "cli"; readonly stdout: string; readonly stderr: string; readonly code: number }
  /** The MCP server's answer to an {@link McpCall}: its HTTP status and body (empty for a notification). */
  | { readonly kind: "mcp"; readonly status: number; readonly body: string }
  | ({ readonly kind: "status" } & DaemonStatus)
  | { readonly kind: "stopping" }
  /** Another build answers nothing and ends: the caller runs the event itself and starts the new build's daemon. */
  | { readonly kind: "stale"; readonly build: string }
  /** Too many events waiting: the caller runs this one itself. */
  | { readonly kind: "busy" }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Why no answer came: nothing listens (`absent`), it did not answer in time or in shape (`failed`), or its process
 * is stopped (`stopped`: SIGSTOP, a debugger), which no wait would end.
 */
export type DaemonMiss = { readonly miss: "absent" | "failed" | "stopped"; readonly reason: string };
