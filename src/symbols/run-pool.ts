import { statSync } from "node:fs";
import type { FlatTreeData } from "../parse/flat-tree.js";
import { defaultParseLimits, parseLimitsOf, type ParseLimits } from "../parse/parse-limits.js";
import { languageOf } from "./languages.js";
import { backlogLow, cancelIndex, CONTROL, heldBytes, type ExtractJob, type ParseMessage, type ParsedTree, type ParseWork } from "./parse-work.js";
import type { ExtractPool, PoolWorker } from "./start-extract-pool.js";
import { extractJob } from "./extract-job.js";
import { createSymbolCache, entryText, keepable, type EntryText } from "./symbol-cache.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import { TIMED_OUT } from "./tree-parser.js";
import type { FileSymbols } from "./types.js";

export interface RunPoolOptions {
  readonly cacheDir: string | null;
  /** Whether the caller reads only a result's printed form (a worker that extracts then leaves out what is not stored). */
  readonly printedOnly: boolean;
  /** The limits of every parse (by default each text's `defaultParseLimits`). */
  readonly parseLimits?: ParseLimits;
  /** When every parse must end (epoch ms): a file not parsed by then counts as not parsing. */
  readonly deadlineAt?: number;
  /**
   * How long a worker may spend on one file before it is stopped and replaced (by default {@link workerDeadlineMs}
   * of the file's size). Its parse stops itself at its own deadline: this is for a worker stuck anywhere else.
   */
  readonly workerDeadlineMs?: number;
  /** Job `k`'s result was stored in the cache under `key` (told before the result is handed over). */
  stored?(k: number, key: string): void;
  /** Job `k`'s result, extracted here from the tree a worker sent. */
  result(k: number, r: FileSymbols): void;
  /** Job `k`'s result as a worker extracted it (its entry text), stored under `storedAs` (null: not stored); false when it is not one. */
  text(k: number, path: string, text: EntryText, storedAs: string | null): boolean;
}

export interface PoolOutcome {
  /** Jobs no result came back for (a worker died on them, or none took them): for the caller to do itself. */
  readonly leftovers: readonly number[];
  /** Jobs a worker was stopped on past its deadline: not to be done again. */
  readonly timedOut: ReadonlySet<number>;
  /** Jobs a worker died on. */
  readonly crashed: ReadonlySet<number>;
}

/** How often the pool's thread looks at what each worker is doing. */
const WATCH_EVERY_MS = 250;
/** At most this many workers are replaced in one run: a pool whose workers keep dying is left to the caller's thread. */
const MAX_REPLACEMENTS = 8;

/**
 * How long a worker may take on a file of `bytes` (twice its parse deadline, and 5 s for the rest): beyond it the
 * worker is stuck, whatever on.
 */
export function workerDeadlineMs(bytes: number, limits?: ParseLimits): number {
  return 2 * (limits ?? defaultParseLimits(bytes)).deadlineMs + 5000;
}

/**
 * Runs `list` through the pool: each worker takes the next job through a shared counter and parses it (a wide
 * pool's worker extracts it too); this thread extracts from the trees as they come (see `ParseWork`), and in a pool
 * that shares takes jobs itself whenever no tree waits. A worker that
 * died, or that spent past its deadline on one file (then stopped), is replaced by a fresh one, which goes on with
 * the jobs left; the file it was on is named in the outcome. Closes the pool.
 */
export async function runPool(pool: ExtractPool, list: readonly ExtractJob[], options: RunPoolOptions): Promise<PoolOutcome> {
  // Stored once the workers are gone: files created while other threads of the process run are slow to create (two
  // worker threads creating 2,000 small files each took 0.9 s, one alone 0.06 s; a cold `comity analyze` of 2,000
  // changed files spent up to 2 s storing its 4,000 entries as they came, 0.1-0.2 s after).
  const toStore: Array<[key: string, language: string, text: EntryText]> = [];
  const answered = new Uint8Array(list.length);
  const crashed = new Set<number>();
  const timedOut = new Set<number>();
  let replacements = 0;
  try {
    // Loaded while the workers start (their start-up is longer); workers that extract need none of it.
    const { unpackFlatTreeData } = await import("../parse/flat-tree.js");
    const languages = [...new Set(list.map((j) => languageOf(j.path)?.id).filter((l) => l !== undefined))].sort();
    // The parser the workers use: this thread's extraction reads their trees with its grammars' tables.
    const extractor: SymbolExtractor | null = pool.extract
      ? null
      : await (await import("./symbol-extractor.js")).createSymbolExtractor({ backend: pool.kind === "wasm" ? "wasm" : "flat", languages, parseLimits: parseLimitsOf(options) });
    const control = new Int32Array(new SharedArrayBuffer(4 * (CONTROL.workers + 2 * pool.size)));
    control.fill(-1, CONTROL.workers, CONTROL.workers + pool.size);
    const work: Omit<ParseWork, "slot"> = {
      size: pool.size,
      jobs: list.map((j) => ({
        path: j.path,
        ...(j.abs === undefined ? {} : { abs: j.abs }),
        ...(j.bytes === undefined ? {} : { bytes: j.bytes }),
        ...(j.store === undefined ? {} : { store: j.store }),
      })),
      control: control.buffer as SharedArrayBuffer,
      cached: options.cacheDir !== null,
      printedOnly: options.printedOnly,
      deadlineAt: options.deadlineAt ?? null,
    };
    const extracted = (): void => {
      // A worker waits only once the backlog is full, until it is down by half: the workers are woken from then on, not
      // at each extraction above it (each such wake-up only found the backlog still too long, and cost CPU the
      // extraction needed).
      Atomics.add(control, CONTROL.extracted, 1);
      if (backlogLow(control)) Atomics.notify(control, CONTROL.extracted);
    };
    // (stored as entry texts, once the workers are gone)
    const deferred = options.cacheDir === null ? null : { set: (key: string, language: string, r: FileSymbols) => keepable(r) && toStore.push([key, language, entryText(r)]) > 0 };
    // Job k, from its tree as a worker parsed it. (A wide pool's worker sends one only for a file it could not read:
    // that file is left for the caller.)
    const fromTree = (k: number, tree: ParsedTree): void => {
      // (no longer the workers' backlog: it is extracted just below, then dropped)
      Atomics.sub(control, CONTROL.held, heldBytes(tree));
      if (extractor === null) return;
      const bytes = tree.bytes === null ? null : Buffer.from(tree.bytes.buffer, tree.bytes.byteOffset, tree.bytes.byteLength);
      const given: FlatTreeData | typeof TIMED_OUT | null = tree.timedOut === true ? TIMED_OUT : tree.buffer === null ? null : unpackFlatTreeData(tree.count, tree.buffer);
      const parsed = bytes === null ? undefined : { bytes, tree: given };
      const r = extractJob(list[k] as ExtractJob, extractor, deferred, parsed, (key) => options.stored?.(k, key));
      answered[k] = 1;
      options.result(k, r);
    };
    // The workers' messages this thread has read: as many as they posted, and it has no tree to extract.
    let read = 0;
    let sharing = false;
    // A pool that shares (`ExtractPool.shares`): with no tree to extract, this thread takes the next job itself, parses
    // and extracts it, rather than wait: at the start, while the workers load their parsers, and wherever the parse is
    // slower than the extraction (Python's). One job at a time, then back to the event loop, through which the workers'
    // trees come (and, at the start, their work goes).
    const share = (): void => {
      if (!pool.shares || extractor === null || sharing || Atomics.load(control, CONTROL.posted) !== read) return;
      const k = Atomics.add(control, CONTROL.next, 1);
      if (k >= list.length) return;
      const r = extractJob(list[k] as ExtractJob, extractor, deferred, undefined, (key) => options.stored?.(k, key));
      answered[k] = 1;
      options.result(k, r);
      extracted();
      sharing = true;
      setImmediate(() => {
        sharing = false;
        share();
      });
    };
    const run = (slot: number, first: PoolWorker): Promise<void> =>
      new Promise((resolve) => {
        let current = first;
        let watching: NodeJS.Timeout | null = null;
        // What the slot's worker is on, and since when (as this thread saw it).
        let seen = { job: -1, since: 0, deadline: 0 };
        const finish = (): void => {
          if (watching !== null) clearInterval(watching);
          resolve();
        };
        const attach = (w: PoolWorker): void => {
          let over = false;
          // The worker is gone (died, or stopped by the watch): the file it was on is named, and another worker takes
          // its slot while jobs are left.
          const gone = (): void => {
            if (over) return;
            over = true;
            const job = Atomics.load(control, CONTROL.workers + slot);
            if (job >= 0 && answered[job] === 0 && !timedOut.has(job)) crashed.add(job);
            Atomics.store(control, CONTROL.workers + slot, -1);
            if (Atomics.load(control, CONTROL.next) >= list.length || replacements >= MAX_REPLACEMENTS) {
              finish();
              return;
            }
            replacements++;
            current = pool.replace(slot);
            attach(current);
          };
          void w.ready.then(() => {
            // A worker that died before it was ready takes nothing.
            if (!w.alive()) return gone();
            Atomics.store(control, cancelIndex(pool.size, slot), 0);
            w.worker.postMessage({ ...work, slot } satisfies ParseWork);
          });
          w.worker.on("message", (m: ParseMessage) => {
            if (m === "ready" || over) return;
            if (m === "done") {
              over = true;
              return finish();
            }
            read++;
            if ("text" in m) {
              const job = list[m.index] as ExtractJob;
              if (m.storeAs !== null) toStore.push([m.storeAs, languageOf(job.path)?.id ?? "none", m.text]);
              if (options.text(m.index, job.path, m.text, m.storeAs)) answered[m.index] = 1;
            } else fromTree(m.index, m);
            extracted();
            share();
          });
          w.worker.once("error", gone);
          w.worker.once("exit", gone);
        };
        attach(current);
        watching = setInterval(() => {
          const job = Atomics.load(control, CONTROL.workers + slot);
          if (job < 0) return;
          const now = performance.now();
          if (job !== seen.job) {
            seen = { job, since: now, deadline: options.workerDeadlineMs ?? workerDeadlineMs(bytesOf(list[job] as ExtractJob), options.parseLimits) };
            return;
          }
          if (now - seen.since < seen.deadline) return;
          // Stuck on one file: it is not done again (it would hang whoever does it), and the worker is stopped.
          timedOut.add(job);
          seen = { job: -1, since: 0, deadline: 0 };
          // Its parse, if that is where it is stuck, stops at this flag; then the thread can end.
          Atomics.store(control, cancelIndex(pool.size, slot), 1);
          void current.worker.terminate();
        }, WATCH_EVERY_MS);
      });
    const runs = Array.from({ length: pool.size }, (_, slot) => run(slot, pool.slot(slot)));
    share();
    await Promise.all(runs);
  } finally {
    await pool.close();
  }
  if (options.cacheDir !== null) {
    const cache = createSymbolCache(options.cacheDir);
    for (const [key, language, text] of toStore) cache.setText(key, language, text);
  }
  const leftovers: number[] = [];
  for (let k = 0; k < list.length; k++) if (answered[k] === 0 && !timedOut.has(k)) leftovers.push(k);
  return { leftovers, timedOut, crashed };
}

/** A job's size, for its deadline (0 when it cannot be read: the parse of nothing is quick). */
function bytesOf(job: ExtractJob): number {
  if (job.bytes !== undefined) return job.bytes.byteLength;
  try {
    return statSync(job.abs ?? "").size;
  } catch {
    return 0;
  }
}
