import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * How long the checkpointer lets commits gather before each checkpoint while
 * they keep coming. Each checkpoint leaves less for the request connection's
 * own one when the WAL must start over, which stalls every waiting request
 * for its fsyncs: checkpoints every 250 ms left stalls of tens of
 * milliseconds in the burst load test (`npm run bench:serve`); every 50 ms
 * they shrink.
 */
export const CHECKPOINT_EVERY_MS = 50;

// Shared with the worker, as 32-bit slots: commits counted by the writer, a stop flag, checkpoints made.
const COMMITS = 0;
const STOP = 1;
const CHECKPOINTS = 2;

// Runs in the worker: its own connection, PASSIVE checkpoints (they never block the writer). It sleeps until the
// writer counts a commit (no wake-ups on an idle server), lets commits gather for everyMs, checkpoints, and goes
// round again; a last checkpoint at stop. It never needs its event loop, so it blocks in Atomics.wait.
const WORKER = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
const shared = new Int32Array(workerData.shared);
const sleep = new Int32Array(new SharedArrayBuffer(4));
const checkpoint = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {} Atomics.add(shared, ${CHECKPOINTS}, 1); };
let seen = 0;
for (;;) {
  while (Atomics.load(shared, ${STOP}) === 0 && Atomics.load(shared, ${COMMITS}) === seen) Atomics.wait(shared, ${COMMITS}, seen);
  if (Atomics.load(shared, ${STOP}) !== 0) break;
  Atomics.wait(sleep, 0, 0, workerData.everyMs);
  seen = Atomics.load(shared, ${COMMITS});
  checkpoint();
}
checkpoint();
db.close();
`;

export interface Checkpointer {
  /** Called by the writer after each commit: cheap (an atomic add; a wake-up only when the worker sleeps). */
  committed(): void;
  /** How many checkpoints the worker has made (for a status; a test tells an idle worker from a busy one by it). */
  checkpoints(): number;
  stop(): Promise<void>;
}

/**
 * Checkpoints a WAL-mode SQLite file from a worker thread. A checkpoint ends
 * in an fsync, which on the request thread stalls every request waiting
 * behind it (measured: 6–8 ms every ~65 events under load); here it does
 * not. The caller turns its own connection's automatic checkpoints down, and
 * back to SQLite's default if the worker fails.
 */
export function startCheckpointer(file: string, onFailure: (error: Error) => void, everyMs = CHECKPOINT_EVERY_MS): Checkpointer {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  const shared = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(WORKER, { eval: true, workerData: { file, module, everyMs, shared: shared.buffer } });
  worker.unref();
  worker.on("error", (error) => onFailure(error));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    committed(): void {
      Atomics.add(shared, COMMITS, 1);
      Atomics.notify(shared, COMMITS, 1);
    },
    checkpoints: () => Atomics.load(shared, CHECKPOINTS),
    async stop(): Promise<void> {
      // Held open until the worker is done, or a process with nothing else to do would exit under our feet.
      worker.ref();
      Atomics.store(shared, STOP, 1);
      Atomics.notify(shared, COMMITS, 1);
      await exited;
    },
  };
}
