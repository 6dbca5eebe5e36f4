import { Worker } from "node:worker_threads";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { decodeWalkResult, type WalkWorkerData, type WireResult, type WireTask, type WorkerMessage } from "./walk-wire.js";
import type { StatEntry } from "./stat-entry.js";
import { rootTask, walkTask, type WalkInput, type WalkResult, type WalkTask } from "./walk-worktree.js";
import { workerScriptUrl } from "../async/worker-script-url.js";

/** Where the compiled worker lives: beside this module in `dist/`, or in `dist/` when running from sources (tests). */
function workerUrl(): URL {
  return workerScriptUrl(import.meta.url, "walk-worker.js");
}

/** Helper threads for one parallel walk, started early so their start-up overlaps reading the index. */
export interface WalkPool {
  readonly workers: readonly Worker[];
  close(): Promise<void>;
}

export function startWalkPool(data: WalkWorkerData, helpers: number): WalkPool {
  const workers = Array.from({ length: Math.max(1, helpers) }, () => new Worker(workerUrl(), { workerData: data }));
  return { workers, close: async () => void (await Promise.all(workers.map((w) => w.terminate()))) };
}

/**
 * The same walk as `walkWorktree`, shared between this thread and the pool's
 * helpers: this thread lists the top folders breadth-first until there are a
 * few folders per participant, then everyone takes batches from one queue
 * (this thread yields to the event loop between its own folders so helpers
 * are fed). A helper that fails hands its batch back to this thread: nothing
 * is lost.
 */
export async function walkParallel(input: WalkInput, pool: WalkPool): Promise<WalkResult> {
  const entries: StatEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const nested: string[] = [];
  let sawAttributes = false;
  const add = (r: WalkResult): void => {
    for (const e of r.entries) entries.push(e);
    for (const d of r.diagnostics) diagnostics.push(d);
    nested.push(...r.nested);
    sawAttributes ||= r.sawAttributes;
  };

  let queue: WalkTask[] = [rootTask(input)];
  const target = (pool.workers.length + 1) * 6;
  while (queue.length > 0 && queue.length < target) {
    const next: WalkTask[] = [];
    for (const t of queue) {
      const r = walkTask(input, t, 0);
      add(r);
      next.push(...r.pending);
    }
    queue = next;
  }

  let head = 0;
  const take = (): WalkTask[] => {
    const size = Math.max(1, Math.ceil((queue.length - head) / ((pool.workers.length + 1) * 2)));
    const batch = queue.slice(head, head + size);
    head += batch.length;
    return batch;
  };
  const helper = async (w: Worker): Promise<void> => {
    while (head < queue.length) {
      const batch = take();
      try {
        const r = await call(w, { tasks: batch.map(toWire) });
        decodeWalkResult(r, entries);
        for (const d of r.diagnostics) diagnostics.push(d);
        nested.push(...r.nested);
        sawAttributes ||= r.sawAttributes;
      } catch (error) {
        diagnostics.push(diagnostic("walk_worker_failed", "info", null, `${batch.length} folder(s) walked in the main thread instead: ${error instanceof Error ? error.message : String(error)}`));
        for (const t of batch) add(walkTask(input, t, Infinity));
        return;
      }
    }
  };
  const self = async (): Promise<void> => {
    while (head < queue.length) {
      const task = queue[head++] as WalkTask;
      add(walkTask(input, task, Infinity));
      // Let helpers' results and requests through between folders.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all([self(), ...pool.workers.map(helper)]);
  return { entries, sawAttributes, diagnostics, nested };
}

function toWire(t: WalkTask): WireTask {
  return { abs: t.abs, rel: t.rel, insideIgnored: t.insideIgnored, levels: t.levels.map((l) => ({ base: l.base, text: l.text })) };
}

/** Sends a message to a worker and waits for its answer; rejects if the worker errors or exits first. */
function call(w: Worker, message: WorkerMessage): Promise<WireResult> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      w.off("message", onMessage);
      w.off("error", onError);
      w.off("exit", onExit);
    };
    const onMessage = (r: WireResult): void => {
      cleanup();
      resolve(r);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`worker exited with code ${code}`));
    };
    w.on("message", onMessage);
    w.on("error", onError);
    w.on("exit", onExit);
    w.postMessage(message);
  });
}
