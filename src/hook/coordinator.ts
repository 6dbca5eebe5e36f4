import type { CoordinationMode } from "../config/coordination-mode.js";
import type { EvaluateRequest } from "../coordination/wire.js";
import type { Repo } from "../workspace/repo.js";
import { sendEvaluate, type EvaluateResponse } from "./evaluate-response.js";
import { FailOpen } from "./fail-open.js";
import type { Ctx, RepoRequest } from "./hook-context.js";
import { logFailOpen } from "./hook-log.js";
import { errorCode } from "../fs/sync-fs.js";
import { PENDING_PER_EVENT, putBack, removePending, takePending, writePending } from "./pending-events.js";
import type { HookVerdict } from "./render-output.js";

/** How long the API gets before an edit or shell command, and for other events. */
export const PRE_TIMEOUT_MS = 400;
export const OTHER_TIMEOUT_MS = 1500;
/**
 * What a hook keeps of its time, once it has the store's lock, to apply its event, answer and exit before its
 * watchdog (`HookInput.endsAt`): an event takes tens of milliseconds, more on a machine many hooks share.
 */
export const ANSWER_MARGIN_MS = 500;
/** A hook with less time than this before its store wait ends applies no event left by others before its own. */
const CATCH_UP_MARGIN_MS = 2000;
/** At most this many takes of {@link PENDING_PER_EVENT} left events by one hook event. */
const CATCH_UP_ROUNDS = 8;

/** Who decides: the API over HTTP under a deadline, or the embedded store in this process. */
export interface Coordinator {
  evaluate(body: EvaluateRequest, timeoutMs: number): Promise<EvaluateResponse>;
  close(): Promise<void>;
}

type EmbeddedStore = import("../coordination/embedded-store.js").EmbeddedStore;

export function coordinatorFor(ctx: Ctx, mode: Exclude<CoordinationMode, { kind: "off" }>): Coordinator {
  if (mode.kind === "served") return { evaluate: (body, timeoutMs) => sendEvaluate(mode.url, mode.token, body, timeoutMs, ctx.input.runtime?.connections), close: async () => undefined };
  const openNew = () =>
    import("../coordination/embedded-store.js").then(({ openEmbeddedStore }) =>
      openEmbeddedStore(mode.file, {
        onMovedAside: (reason, movedTo) =>
          logFailOpen(ctx.configDir, { time: new Date(), tool: ctx.input.tool, event: ctx.nativeEvent, reason: `embedded store unusable (${reason}): moved to ${movedTo} and rebuilt` }),
      }),
    );
  const kept = ctx.input.runtime?.stores;
  // Opened at the first request and kept for the others of this event (and, in the daemon, the next events);
  // requests are applied one after another.
  let store: Promise<EmbeddedStore> | null = null;
  const open = (): Promise<EmbeddedStore> => (store ??= kept === undefined ? openNew() : kept.open(mode.file, openNew));
  let failed = false;
  let chain: Promise<unknown> = Promise.resolve();
  // A one-shot hook waits its turn for the store for as long as its watchdog allows (many hooks at once on few cores
  // queue for the one writer; the store never waits less than its own busy timeout). A daemon's event waits the
  // store's own busy timeout, which holds the daemon's thread.
  const endsAt = ctx.input.endsAt;
  const waitUntil = endsAt === undefined || kept !== undefined ? undefined : endsAt - ANSWER_MARGIN_MS;
  // Events hooks before this one wrote down and could not apply in their time: applied first, at the time they
  // happened, once an event of this hook (for many repos, once); not by a hook that is itself short of time, whose
  // own event comes first.
  let caughtUp = false;
  const shortOfTime = (): boolean => waitUntil !== undefined && Date.now() > waitUntil - CATCH_UP_MARGIN_MS;
  const catchUp = async (s: EmbeddedStore): Promise<void> => {
    if (caughtUp || shortOfTime()) return;
    caughtUp = true;
    // A few at a time, and more while this hook has the time (many hooks out of time at once leave more than a few,
    // and a quiet moment after them may have no other hook to apply the rest before they are too old).
    for (let rounds = 0; rounds < CATCH_UP_ROUNDS; rounds++) {
      const taken = takePending(ctx.configDir, Date.now());
      for (const [i, left] of taken.entries()) {
        try {
          await s.applyLate(left.request, left.at, waitUntil);
        } catch (error) {
          // (the store still held by others: these are left for the next hook, written back as they were)
          if (isBusy(error)) {
            for (const back of taken.slice(i)) putBack(back.file);
            return;
          }
        }
        removePending(left.file);
      }
      if (taken.length < PENDING_PER_EVENT || shortOfTime()) return;
    }
  };
  return {
    evaluate(body) {
      const next = chain.then(async () => {
        const now = Date.now();
        // A one-shot hook writes its event down before it opens or waits for the store, and before it applies what
        // others left: where it runs out of time in any of them (its watchdog ends it, or the store stays held past
        // its budget), the next hook applies it.
        const written = kept === undefined && body.dry_run !== true ? writePending(ctx.configDir, body, now) : null;
        try {
          const s = await open();
          await catchUp(s).catch(() => undefined);
          const answer = await s.evaluate(body, now, waitUntil);
          if (written !== null) removePending(written);
          return answer;
        } catch (error) {
          // (an event the store refused for what it is, not for being busy, is not tried again)
          if (written !== null && !isBusy(error)) removePending(written);
          throw error;
        }
      });
      chain = next.catch(() => {
        failed = true;
      });
      return next;
    },
    async close() {
      if (store === null) return;
      await chain;
      const s = await store.catch(() => null);
      if (s === null) return;
      // Pruned at the quiet moments of a session (its start, each turn's end, its end), as the server does each minute.
      if (ctx.event === "session_start" || ctx.event === "stop" || ctx.event === "session_end") await s.prune(Date.now()).catch(() => undefined);
      // A kept store stays open for the next event, unless a request failed on it (the next event opens it anew).
      if (kept?.keeps(mode.file, store) === true) {
        if (!failed) return;
        kept.drop(mode.file);
      }
      await s.close().catch(() => undefined);
    },
  };
}

/** Whether the embedded store refused for being held by another process (SQLite's busy), not for the event. */
function isBusy(error: unknown): boolean {
  return errorCode(error) === "SQLITE_BUSY";
}

/** Sends every request at once under the event's deadline and merges the answers. */
export async function evaluateRequests(ctx: Ctx, requests: readonly RepoRequest[], coordinator: Coordinator): Promise<HookVerdict> {
  const timeout = ctx.event === "pre_edit" || ctx.event === "pre_shell" ? PRE_TIMEOUT_MS : OTHER_TIMEOUT_MS;
  const settled = await Promise.allSettled(requests.map((r) => coordinator.evaluate(r.body, timeout)));
  const answers: Array<{ repo: Repo; answer: EvaluateResponse }> = [];
  const failures: string[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") answers.push({ repo: (requests[i] as RepoRequest).repo, answer: s.value });
    else failures.push(s.reason instanceof Error ? s.reason.message : String(s.reason));
  });
  if (answers.length === 0) throw new FailOpen(failures[0] ?? "no answer");
  if (failures.length > 0) logFailOpen(ctx.configDir, { time: new Date(), tool: ctx.input.tool, event: ctx.nativeEvent, reason: `${failures.length} of ${requests.length} repos: ${failures[0]}` });
  const blocks = answers.filter((a) => a.answer.decision === "block").map((a) => a.answer.reason ?? "blocked by Comity");
  const texts = answers.flatMap((a) => [
    ...(a.answer.decision === "warn" && a.answer.reason !== null && a.answer.inject_context === null ? [a.answer.reason] : []),
    ...(a.answer.inject_context === null ? [] : [a.answer.inject_context]),
  ]);
  return { block: blocks.length > 0 ? blocks.join("\n") : null, context: texts.length > 0 ? texts.join("\n\n") : null };
}
