import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";
import { bestFlatParserKind, type FlatParserKind } from "../parse/native-parser.js";
import type { ParseLimits } from "../parse/parse-limits.js";
import { EXTRACT_IN_WORKERS_FROM, type ParseWorkerData } from "./parse-work.js";
import type { LanguageId } from "./types.js";
import { workerScriptUrl } from "../async/worker-script-url.js";

/** One worker of a pool, and when it is ready (its parsers loaded) or gone. */
export interface PoolWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** Whether it has not exited. */
  alive(): boolean;
}

/**
 * The worker threads of `extractMany`, which may be started before the jobs are known (their start-up then overlaps
 * the caller's reading). A worker that died or was stopped can be replaced by a fresh one in its slot.
 */
export interface ExtractPool {
  /** How many slots (workers at once). */
  readonly size: number;
  /** Whether the workers extract too (a wide pool: {@link EXTRACT_IN_WORKERS_FROM}), or only parse. */
  readonly extract: boolean;
  /**
   * Whether the pool's thread takes jobs too (parses and extracts them) whenever it has no tree to extract: a narrow
   * pool's does, and has one worker fewer than the threads asked for: the extraction, this thread's work, is the
   * longest, and with a worker for every core it would share a core with one of them; sharing the parse instead keeps
   * every thread on a core of its own.
   */
  readonly shares: boolean;
  /** Who parses in the workers. */
  readonly kind: FlatParserKind;
  /** The worker now in a slot. */
  slot(index: number): PoolWorker;
  /** Stops the slot's worker (if it still runs) and starts another in its place. */
  replace(index: number): PoolWorker;
  close(): Promise<void>;
}

export interface StartPoolOptions {
  /** The threads the work may take: a wide pool's workers, or a narrow pool's workers and its thread (see `shares`). */
  readonly workers: number;
  /** False: a narrow pool's thread only extracts, and it has as many workers as `workers` (a test whose workers must take every job). */
  readonly share?: boolean;
  /** The languages to parse, when the jobs are known (all of them for a pool started ahead of its jobs). */
  readonly languages?: readonly LanguageId[];
  readonly backend?: "flat" | "wasm";
  /** The limits of every parse (by default each text's `defaultParseLimits`). */
  readonly parseLimits?: ParseLimits;
  /** The workers' script: parse-worker.js by default (a test runs it behind a wrapper that makes a worker die). */
  readonly workerUrl?: URL;
}

/** Starts the worker threads of a pool; `extractMany` given it closes it, whether it needs it or not. */
export function startExtractPool(options: StartPoolOptions): ExtractPool {
  const threads = Math.max(1, options.workers);
  const extract = threads >= EXTRACT_IN_WORKERS_FROM;
  const shares = !extract && options.share !== false;
  const size = shares ? Math.max(1, threads - 1) : threads;
  const kind = options.backend === "wasm" ? "wasm" : bestFlatParserKind();
  const workerData: ParseWorkerData = { languages: options.languages ?? null, extract, kind, parseLimits: options.parseLimits ?? null };
  // node:worker_threads loads when a pool starts: a warm run, which needs none, spent 6 ms of 230 loading it.
  const { Worker: WorkerThread } = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
  const start = (): PoolWorker => {
    const worker = new WorkerThread(options.workerUrl ?? workerUrl(), { workerData });
    let exited = false;
    const ready = new Promise<void>((resolve) => {
      worker.on("message", (m) => {
        if (m === "ready") resolve();
      });
      worker.once("error", () => resolve());
      worker.once("exit", () => {
        exited = true;
        resolve();
      });
    });
    return { worker, ready, alive: () => !exited };
  };
  const slots = Array.from({ length: size }, start);
  let closed: Promise<void> | null = null;
  return {
    size,
    extract,
    shares,
    kind,
    slot: (index) => slots[index] as PoolWorker,
    replace(index) {
      void (slots[index] as PoolWorker).worker.terminate();
      const fresh = start();
      slots[index] = fresh;
      return fresh;
    },
    close: () => (closed ??= Promise.all(slots.map((s) => s.worker.terminate())).then(() => undefined)),
  };
}

/** Where the compiled worker lives: beside this module in `dist/`, or in `dist/` when running from sources (tests). */
function workerUrl(): URL {
  return workerScriptUrl(import.meta.url, "parse-worker.js");
}
