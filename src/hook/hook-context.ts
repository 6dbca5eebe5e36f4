import type { EvaluateRequest } from "../coordination/wire.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import type { GitStatusView } from "../snapshot/git-status-view.js";
import type { RepoState } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import type { HookInput } from "./hook-input.js";
import type { ComityEvent, HostId } from "./hosts.js";
import type { SessionState } from "./session-state.js";

/** Everything one hook event knows once its payload is read. */
export interface Ctx {
  readonly input: HookInput;
  readonly payload: Record<string, unknown>;
  readonly host: HostId;
  readonly nativeEvent: string;
  readonly event: ComityEvent;
  readonly tool: string;
  readonly toolInput: Record<string, unknown>;
  readonly cwd: string;
  /** The workspace's folders: the cwd, or several (a Cursor multi-root workspace). */
  readonly roots: readonly string[];
  readonly sessionId: string;
  /** The user's prompt text, on prompt events (each host names it its own way). */
  readonly prompt: string | null;
  readonly agentId: string | null;
  readonly configDir: string;
  readonly configEnv: GitConfigEnv;
  readonly state: SessionState;
  /** The session's turn as this event counts it (part of the dedupe key). */
  readonly turn: number;
  /** A hash of the host event (host, native event, payload). */
  readonly eventHash: string;
  /**
   * When the event's analysis must end (epoch ms), inside the host's timeout: a file not analysed by then is sent as
   * a path only, and the request says `analysis_truncated`.
   */
  readonly deadlineAt: number;
  /**
   * Each repo's git status as this event took it, by root: its request and its briefing read the same one, so a
   * session start runs one git process per repo, not two (each is a fork of the hook's process, which costs).
   */
  readonly statusViews: Map<string, Promise<GitStatusView | { readonly walk: string }>>;
}

export interface RepoRequest {
  readonly repo: Repo;
  readonly state: RepoState;
  readonly body: EvaluateRequest;
}
