import { type Coordination, type Outcome, QUIET } from "./coordination.js";
import { afterEdit } from "./events/after-edit.js";
import { beforeEdit } from "./events/before-edit.js";
import { beforePlan } from "./events/before-plan.js";
import { deliverQueued } from "./events/deliver-queued.js";
import { endTurn } from "./events/end-turn.js";
import { atSessionStart } from "./events/session-start.js";
import { familyReps, resolveRepo, touchSession } from "./rows/session-rows.js";
import { uniqueSorted } from "./rows/sql-rows.js";
import { asPolicy, type EvaluateAnswer, type EvaluateRequest } from "./wire.js";
import { type Database, first, type Sql } from "../store/database.js";
import { ComityError } from "../errors/comity-error.js";

export type { ConflictRef, EvaluateAnswer } from "./wire.js";
export { BREAKING_HISTORY_MS, DEFAULT_LEASE_MS } from "./coordination.js";

/** The team an event belongs to; its policy is read afresh at every request. */
export interface TeamRef {
  readonly id: string;
}

export interface EvaluateOptions {
  readonly now: number;
  readonly leaseMs: number;
  /** Until when the event's transaction may wait for another process's (`TransactionOptions`). */
  readonly waitUntil?: number;
  /**
   * The answer reaches nobody: an event applied after its hook ran out of time (`EmbeddedStore.applyLate`). What
   * the agent did is recorded as if allowed (it went on without an answer), and what it should have been told stays
   * untold, for its next event to tell.
   */
  readonly unheard?: boolean;
}

/**
 * The lock keys an event's transaction needs: one per remote fingerprint of its repo, within the team. Events
 * of one repo are then applied one at a time (they see each other's intents), other repos' side by side.
 */
export function evaluateLockKeys(team: TeamRef, request: EvaluateRequest): string[] {
  return uniqueSorted(request.repo.remote_fingerprints.map((fp) => `${team.id}:${fp}`));
}

/** Thrown inside a dry run's transaction to undo it: what the event wrote is rolled back, its answer kept. */
class DryRunDone {
  constructor(readonly answer: EvaluateAnswer) {}
}

/**
 * One event in a transaction of `database` (locked on its repos): applied, or, for a `dry_run` request (`pre_edit`,
 * `pre_shell`), evaluated and rolled back, so that its answer is what the event would be told and nothing is
 * recorded. The embedded store and `comity serve` both evaluate through here.
 */
export async function evaluateInTransaction(database: Pick<Database, "transaction">, team: TeamRef, request: EvaluateRequest, options: EvaluateOptions): Promise<EvaluateAnswer> {
  const keys = evaluateLockKeys(team, request);
  const wait = options.waitUntil === undefined ? undefined : { waitUntil: options.waitUntil };
  if (request.dry_run !== true) return database.transaction(keys, (sql) => evaluateEvent(sql, team, request, options), wait);
  if (request.event !== "pre_edit" && request.event !== "pre_shell") throw new ComityError("INVALID_ARGUMENT", `dry_run is for pre_edit and pre_shell, not ${request.event}`);
  try {
    await database.transaction(
      keys,
      async (sql) => {
        throw new DryRunDone(await evaluateEvent(sql, team, request, options));
      },
      wait,
    );
  } catch (error) {
    if (error instanceof DryRunDone) return error.answer;
    throw error;
  }
  throw new ComityError("INTERNAL", "a dry run's transaction ended without its answer");
}

/**
 * The coordination core: applies one hook event of a team inside the caller's transaction (locked on
 * {@link evaluateLockKeys}) and decides the answer, as `docs/coordination.md` says. The HTTP
 * server calls it; it takes the storage as a parameter so that an embedded store can too.
 *
 * A collision is a conflict row between the session to tell and the other one, told once: to the session it
 * affects as a denial before its next related edit (policy `first_contact`, the default, or `block`) or as
 * context (`advisory`, and at prompts, session starts and after tools on hosts that show context there); to the
 * other session, as context, that someone joined. A `dedupe_key` seen before returns the first answer and
 * changes nothing.
 */
export async function evaluateEvent(sql: Sql, team: TeamRef, request: EvaluateRequest, options: EvaluateOptions): Promise<EvaluateAnswer> {
  // The team's policy and the answer already given to this dedupe key, in one round trip: on PostgreSQL each
  // statement of an event is one, and they are most of what an event costs there.
  const start = await first<{ policy: string | null; response: string | null }>(sql, "SELECT t.policy, d.response FROM teams t LEFT JOIN dedupe d ON d.team_id = t.id AND d.key = ? WHERE t.id = ?", [
    request.dedupe_key,
    team.id,
  ]);
  if (start?.response != null) return JSON.parse(start.response) as EvaluateAnswer;

  const { now, leaseMs } = options;
  const policy = asPolicy(start?.policy);
  const where = { sql, teamId: team.id, now, leaseMs, repoId: await resolveRepo(sql, team.id, request.repo.remote_fingerprints, now) };
  const session = await touchSession(where, request);
  const family = request.session.parent_external_id ?? request.session.external_id;
  const c: Coordination = {
    ...where,
    policy,
    request,
    family,
    session,
    familyId: (await familyReps(where, [family], [session])).get(family) ?? session.id,
    ...(options.unheard === true ? { unheard: true } : {}),
  };

  let outcome: Outcome = QUIET;
  switch (request.event) {
    case "session_start":
      outcome = await atSessionStart(c);
      break;
    case "prompt":
      outcome = await deliverQueued(c, "## Comity update — system-generated");
      break;
    case "pre_edit":
    case "pre_shell":
      outcome = await beforeEdit(c, uniqueSorted(request.paths ?? []));
      break;
    case "plan":
      outcome = await beforePlan(c, request.plan_text ?? "");
      break;
    case "post_edit":
      outcome = await afterEdit(c, request);
      break;
    case "stop":
    case "session_end":
      await endTurn(c, request);
      break;
    case "pre_push":
      break;
  }
  const version = await first<{ v: number }>(sql, "UPDATE repos SET index_version = index_version + 1 WHERE id = ? RETURNING index_version AS v", [c.repoId]);
  const answer: EvaluateAnswer = {
    decision: outcome.decision,
    reason: outcome.reason,
    inject_context: outcome.inject_context,
    conflicts: outcome.conflicts,
    intent: outcome.intent,
    session_id: c.session.id,
    index_version: Number(version?.v ?? 0),
  };
  // The event's last writes, which nothing in it reads again: with the COMMIT, where the storage sends them so.
  const write = async (text: string, params: readonly unknown[]): Promise<void> => {
    if (sql.runAtCommit !== undefined) sql.runAtCommit(text, params);
    else await sql.run(text, params);
  };
  await write("INSERT INTO dedupe (team_id, key, response, created_at) VALUES (?, ?, ?, ?)", [team.id, request.dedupe_key, JSON.stringify(answer), now]);
  // The session's history, for people (the dashboard): what happened, and what it was told.
  await write("INSERT INTO session_events (team_id, session_id, at, event, decision, refs, paths) VALUES (?, ?, ?, ?, ?, ?, ?)", [
    team.id,
    c.session.id,
    now,
    request.event,
    answer.decision,
    JSON.stringify(answer.conflicts.map((x) => x.ref)),
    JSON.stringify((request.paths ?? []).slice(0, 20)),
  ]);
  if (request.event === "session_start") {
    const rootPackage = (request.repo.packages ?? []).find((p) => p.path === ".") ?? (request.repo.packages ?? [])[0];
    if (rootPackage !== undefined) await write("UPDATE repos SET label = ? WHERE id = ? AND (label IS NULL OR label <> ?)", [rootPackage.name.slice(0, 200), c.repoId, rootPackage.name.slice(0, 200)]);
  }
  return answer;
}
