import type { KeptConnections } from "../api/http-request.js";
import type { GitSpawn } from "../git/load-git-config.js";
import type { SnapshotMemo } from "../snapshot/command-snapshots.js";
import type { KeptStores } from "./kept-stores.js";

/** What the `comity hook` process was given. */
export interface HookInput {
  readonly tool: string;
  readonly event: string;
  readonly stdin: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The process's folder, used when the payload has no `cwd`. */
  readonly cwd: string;
  readonly now?: () => Date;
  /** What the process running the event lends it; a one-shot hook process lends nothing. */
  readonly runtime?: HookRuntime;
  /**
   * When the process running the event ends it (epoch ms): a one-shot hook process's watchdog. The event waits its
   * turn for the embedded store until a little before, rather than give up at the store's own busy timeout.
   */
  readonly endsAt?: number;
  /**
   * Evaluated, not recorded (`checkHookEvent`): a `pre_edit` or `pre_shell` is answered as it would be, its requests
   * marked `dry_run` so the core undoes them, and the session's state is left as it was.
   */
  readonly dryRun?: boolean;
}

/**
 * What a long-lived process (`comity daemon`) keeps between the events it runs, given to each event rather than set
 * on modules, so that nothing a library user imports changes for the process as a whole.
 */
export interface HookRuntime {
  /** How a git that holds the thread is started (the native addon's posix_spawn, without forking a large process). */
  readonly spawnGit?: GitSpawn;
  /** Snapshots kept between events, on the daemon's change watch. */
  readonly snapshotMemo?: SnapshotMemo;
  /** A team server's connections, kept: one handshake per server, not per event. */
  readonly connections?: KeptConnections;
  /** Embedded stores kept open between events. */
  readonly stores?: KeptStores;
  /**
   * Takes what an event still has to do once its answer is known (its session's state written), to run after the
   * answer has gone and before the next event: the host waits on the answer, not on the bookkeeping. Without it, the
   * event does that work before it answers.
   */
  readonly defer?: (work: () => void) => void;
  /**
   * The event came with none of the session's own variables (`SESSION_ENV`: a Claude Code HTTP hook): they are taken
   * from the session's state, as its last event run as a command recorded them.
   */
  readonly sessionEnvFromState?: boolean;
}

/** What to print. The exit code is always 0: a hook never breaks the agent. */
export interface HookOutput {
  readonly stdout: string;
  readonly exitCode: 0;
  /** Why the hook failed open, when it did (one line was appended to hook.log). */
  readonly failedOpen: string | null;
}
