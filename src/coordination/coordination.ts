import type { ConflictKind, ConflictRef, EvaluateAnswer, EvaluateRequest, TeamPolicy } from "./wire.js";
import type { Sql } from "../store/database.js";

/** An intent's lease: a session silent for longer than this no longer holds its files. */
export const DEFAULT_LEASE_MS = 10 * 60 * 1000;

/** How far back a session-start briefing reports breaking changes. */
export const BREAKING_HISTORY_MS = 12 * 60 * 60 * 1000;

export interface SessionRow {
  id: string;
  external_id: string;
  tool: string;
  branch: string | null;
  started_at: number;
  status_excerpt: string | null;
  label: string | null;
  cwd_path: string | null;
  worktree: string | null;
  /** The agent it belongs to: its parent's external id for a subagent, else its own. */
  family: string;
  repo_id: string;
}

export const SESSION_GROUP = "s.id, s.external_id, s.tool, s.branch, s.started_at, s.status_excerpt, s.label, s.cwd_path, s.worktree, s.parent_external_id, s.repo_id";

export const SESSION_COLS = `${SESSION_GROUP}, COALESCE(s.parent_external_id, s.external_id) AS family`;

export interface Outcome {
  decision: "allow" | "warn" | "block";
  reason: string | null;
  inject_context: string | null;
  conflicts: ConflictRef[];
  intent: EvaluateAnswer["intent"];
}

export const QUIET: Outcome = { decision: "allow", reason: null, inject_context: null, conflicts: [], intent: null };

export interface Coordination {
  readonly sql: Sql;
  readonly teamId: string;
  readonly now: number;
  readonly leaseMs: number;
  readonly repoId: string;
  readonly policy: TeamPolicy;
  readonly request: EvaluateRequest;
  /** The agent this session belongs to: its parent for a subagent, else itself. A family never conflicts with itself. */
  readonly family: string;
  readonly session: SessionRow;
  /** The session that stands for this agent in conflicts (its parent's, for a subagent): a family is told once. */
  readonly familyId: string;
  /** The answer reaches nobody (`EvaluateOptions.unheard`): nothing is denied, nothing counts as told. */
  readonly unheard?: boolean;
}

/**
 * Other sessions of this repo that are active: not ended, heard from within the lease, and not of the same
 * agent (a subagent and its parent, or two subagents of one parent, work together). An intent holds
 * while its session is active and has not released it (the lease slides with every event of the session);
 * one made before the session fell silent or ended (`created_at < started_at`) no longer does.
 */
export const ACTIVE_OTHER = "s.team_id = ? AND s.repo_id = ? AND s.id <> ? AND s.ended_at IS NULL AND s.last_seen_at >= ? AND COALESCE(s.parent_external_id, s.external_id) <> ?";

export const activeOtherParams = (c: Coordination) => [c.teamId, c.repoId, c.session.id, c.now - c.leaseMs, c.family];

/** A collision to record: who is told (`session`), about whom (`other`), what, and which files it concerns. */
export interface Wanted {
  readonly kind: ConflictKind;
  /** `affected`: the session must be told before its next related edit; `informed`: told as context only. */
  readonly role: "affected" | "informed";
  readonly session: SessionRow;
  readonly other: SessionRow;
  readonly subject: string;
  /** The line's text after `- CF-n kind: `. */
  readonly body: string;
  /** The files an edit of which makes this conflict relevant (defining and using files). */
  readonly paths: readonly string[];
  /** When the change behind it was made: notices are told in that order. */
  readonly changeAt: number;
}
