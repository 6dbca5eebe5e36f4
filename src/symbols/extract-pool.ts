import { readFileSync, statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { diagnostic } from "../errors/diagnostic.js";
import { loadContentHasher } from "../snapshot/content-hasher.js";
import { languageOf } from "./languages.js";
import { cachedFor, createSymbolCache, entryText, fromEntryText, printedOfEntryText, type SymbolCache } from "./symbol-cache.js";
import type { ParserBackend, SymbolExtractor } from "./symbol-extractor.js";
import type { FileSymbols, LanguageId } from "./types.js";
import { printedFile, printedFileBytes, printedSymbols } from "./printed-symbols.js";

/** One file to analyse: the path to report, and where to read it or its bytes (an old version read from git). */
export interface ExtractJob {
  readonly path: string;
  readonly abs?: string;
  readonly bytes?: Uint8Array;
  /** The result, already read from the cache by the caller: used as it is. */
  readonly known?: Omit<FileSymbols, "path">;
  /** False: the result is not stored in the cache (the caller keeps what it needs of it elsewhere). */
  readonly store?: boolean;
}

/** The bytes of a job. */
export function jobBytes(job: ExtractJob): Buffer {
  if (job.bytes !== undefined) return Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  return readFileSync(job.abs ?? "");
}

/** One job's symbols, extracted and stored in the cache under its content hash (the caller has looked there already). */
export function extractJob(job: ExtractJob, extractor: SymbolExtractor, cache: SymbolCache | null): FileSymbols {
  try {
    const bytes = jobBytes(job);
    const r = extractor.extract(job.path, bytes);
    if (job.store !== false) cache?.set(extractor.hasher.xxh64(bytes), languageOf(job.path)?.id ?? "none", r);
    return r;
  } catch (error) {
    return unreadable(job.path, error);
  }
}

function unreadable(path: string, error: unknown): FileSymbols {
  return { path, language: null, symbols: [], references: [], diagnostics: [diagnostic("unreadable_file", "warning", path, error instanceof Error ? error.message : String(error))] };
}

/** What a worker sends back for one job: the result as its {@link entryText}, and the key the pool's thread stores it under (null: nothing to store). */
export type PoolResult = readonly [path: string, text: string, storeAs: string | null];

/**
 * One job in a pool's worker: as {@link extractJob}, but the result goes
 * back as its entry text, which the pool's thread stores once the workers
 * are done (see {@link extractMany}): worker threads creating files at once
 * stall each other.
 */
export function extractForPool(job: ExtractJob, extractor: SymbolExtractor, cached: boolean, printedOnly = false): PoolResult {
  const store = cached && job.store !== false;
  const text = (r: FileSymbols): string => entryText(r, { printedOnly: printedOnly && !store });
  try {
    const bytes = jobBytes(job);
    return [job.path, text(extractor.extract(job.path, bytes)), store ? extractor.hasher.xxh64(bytes) : null];
  } catch (error) {
    return [job.path, text(unreadable(job.path, error)), null];
  }
}

/** What the pool's thread sends a worker: a batch of jobs, and whether only the printed form of their results is wanted. */
export interface PoolBatch {
  readonly jobs: readonly ExtractJob[];
  readonly printedOnly: boolean;
}

/** Worker threads for {@link extractMany}, which may be started before the jobs are known (their start-up then overlaps the caller's reading). */
export interface ExtractPool {
  readonly workers: readonly Worker[];
  /** Settles when each worker has loaded its extractor (or died). */
  readonly ready: ReadonlyArray<Promise<void>>;
  /** Whether a worker has not exited. */
  alive(worker: Worker): boolean;
  close(): Promise<void>;
}

/** Starts the worker threads of a pool; {@link extractMany} given it closes it, whether it needs it or not. */
export function startExtractPool(options: Pick<ExtractManyOptions, "workers" | "cacheDir" | "backend"> & { readonly languages?: readonly LanguageId[] }): ExtractPool {
  // The languages to load, when the jobs are known (all of them for a pool started ahead of its jobs).
  const workerData = { cacheDir: options.cacheDir, backend: options.backend ?? "wasm", languages: options.languages ?? null };
  const workers = Array.from({ length: Math.max(1, options.workers) }, () => new Worker(workerUrl(), { workerData }));
  const exited = new Set<Worker>();
  const ready = workers.map(
    (w) =>
      new Promise<void>((resolve) => {
        w.on("message", (m) => {
          if (m === "ready") resolve();
        });
        w.once("error", () => resolve());
        w.once("exit", () => {
          exited.add(w);
          resolve();
        });
      }),
  );
  let closed: Promise<void> | null = null;
  return { workers, ready, alive: (w) => !exited.has(w), close: () => (closed ??= Promise.all(workers.map((w) => w.terminate())).then(() => undefined)) };
}

/** The languages of these jobs' files (their grammars are what an extractor for them loads). */
function languagesOf(jobs: readonly ExtractJob[]): LanguageId[] {
  const ids = new Set<LanguageId>();
  for (const job of jobs) {
    const id = languageOf(job.path)?.id;
    if (id !== undefined) ids.add(id);
  }
  return [...ids].sort();
}

/** Below this many files a pool is not worth its start-up. */
export const DEFAULT_MIN_FILES_FOR_POOL = 32;

/**
 * The bytes to parse that make a worker worth starting on 2 cores, when the
 * work sets how many there are ({@link defaultMinBytesPerWorker}). Each
 * worker loads its grammars and compiles the extractor's code for itself
 * (`node --trace-opt`: 2.75-3 s of TurboFan's time over a 611-file run), time
 * taken from the cores the others parse on. On 2 cores, two workers against
 * this thread alone (benchmarks/README.md):
 * 1 MB of TypeScript 1.56 s against 1.39 s, 2 MB 2.26 against 2.23, 4 MB 3.09
 * against 3.45; `comity analyze` of 2,000 small changed files (0.9 MB, both
 * versions) 4.1 s against 3.4 s.
 */
export const DEFAULT_MIN_BYTES_PER_WORKER = 2 * 1024 * 1024;

/**
 * The bytes a worker needs to parse, when no number of workers is asked for, on a machine of `cores`:
 * {@link DEFAULT_MIN_BYTES_PER_WORKER} on 2 cores or fewer, where what each worker compiles is taken from the other's
 * parsing (measured there); 0, a worker per core, on more, where the compilers have cores to spare and the break-even
 * was not measured.
 */
export function defaultMinBytesPerWorker(cores: number): number {
  return cores <= 2 ? DEFAULT_MIN_BYTES_PER_WORKER : 0;
}

/** How many workers `bytes` to parse are worth: one for each `minBytesPerWorker`, at most `workers` (below two: none, this thread does it all). */
export function workersFor(bytes: number, workers: number, minBytesPerWorker: number): number {
  return minBytesPerWorker <= 0 ? workers : Math.min(workers, Math.floor(bytes / minBytesPerWorker));
}

/** The bytes a job has to parse: those it carries, or its file's size (0 when it cannot be read: the extraction says why). */
function bytesToParse(job: ExtractJob): number {
  if (job.bytes !== undefined) return job.bytes.byteLength;
  try {
    return statSync(job.abs ?? "").size;
  } catch {
    return 0;
  }
}

export interface ExtractManyOptions {
  /** Worker threads; one per core is the caller's usual choice. 0 or 1 runs here. */
  readonly workers: number;
  /**
   * When set, the work decides how many of those `workers` start: one for each this many bytes to parse, and none
   * below two (this thread does it all); {@link defaultMinBytesPerWorker} is the measured choice. Unset: `workers`
   * as given (a number of threads the user asked for).
   */
  readonly minBytesPerWorker?: number;
  /** Symbol cache folder, or null for none. */
  readonly cacheDir: string | null;
  /** Below this many files the pool is not started (its start-up costs more). Default 32. */
  readonly minFilesForPool?: number;
  /** Backend for many files (the pool's workers, or this thread when one is asked for); WASM by default (faster on many files). A few files here use the native default. */
  readonly backend?: ParserBackend;
  /** Workers started ahead ({@link startExtractPool}): used if the pool is needed, and closed either way. */
  readonly pool?: ExtractPool;
}

/** Where the compiled worker lives: beside this module in `dist/`, or in `dist/` when running from sources (tests). */
function workerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts") ? new URL("../../dist/symbols/extract-worker.js", here) : new URL("./extract-worker.js", here);
}

/**
 * Extracts the symbols of many files on a pool of worker threads, results in
 * input order (deterministic output whatever finishes first). Files go out in
 * batches; a worker that dies takes no more work, and the files of its batch
 * are done here, one by one, so one bad file costs a diagnostic, not the run.
 */
export async function extractMany(jobs: readonly ExtractJob[], options: ExtractManyOptions): Promise<FileSymbols[]> {
  // The cache answers first, here: a warm run starts no worker and loads no grammar.
  const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
  const hasher = cache === null ? null : await loadContentHasher();
  return extractManyAs(jobs, options, {
    cached: (job) => {
      const lang = languageOf(job.path)?.id ?? "none";
      const hit = job.known ?? (cache === null || hasher === null ? null : cache.get(hasher.xxh64(jobBytes(job)), lang));
      return cachedFor(job.path, hit) ?? undefined;
    },
    fromText: fromEntryText,
    fromResult: (r) => r,
    printedOnly: false,
  });
}

/**
 * Each file's line of `comity.symbols/1` JSON ({@link printedFile}) as UTF-8
 * pieces, in input order: copied from the cache's printed form where it has
 * one (its bytes: nothing is decoded nor encoded again, which is most of a
 * warm run), extracted as {@link extractMany} does for the rest. A worker's
 * result is copied from its entry text too: the printed form is its second
 * line, so this thread decodes and prints nothing of it (with two workers on
 * two cores, decoding and printing every result here took a core's share
 * from them).
 */
export async function printedMany(jobs: readonly ExtractJob[], options: ExtractManyOptions): Promise<Array<readonly Uint8Array[]>> {
  const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
  const hasher = cache === null ? null : await loadContentHasher();
  const line = (text: string): readonly Uint8Array[] => [Buffer.from(text)];
  return extractManyAs(jobs, options, {
    cached: (job) => {
      const printed = cache === null || hasher === null ? null : cache.printed(hasher.xxh64(jobBytes(job)), languageOf(job.path)?.id ?? "none");
      // (diagnostics name the path they were found under, as a cache hit's do: see cachedFor)
      return printed === null ? undefined : printedFileBytes(job.path, printed.bytes, printed.diagnostics.map((d) => ({ ...d, path: job.path })));
    },
    fromText: (path, text) => {
      // (its diagnostics name the path the worker was given: this one)
      const parts = printedOfEntryText(text);
      if (parts === null) return null;
      try {
        return line(printedFile(path, parts.printed, JSON.parse(parts.diagnostics) as FileSymbols["diagnostics"]));
      } catch {
        return null;
      }
    },
    fromResult: (r) => line(printedFile(r.path, printedSymbols(r), r.diagnostics)),
    printedOnly: true,
  });
}

/** How {@link extractManyAs} makes its results: from the cache (undefined: a miss), from a worker's entry text (null: not one), from an extraction here. */
interface ResultsAs<T> {
  cached(job: ExtractJob): T | undefined;
  fromText(path: string, text: string): T | null;
  fromResult(r: FileSymbols): T;
  /** Whether `fromText` reads only an entry text's printed form and diagnostics (its first line is then not made unless stored). */
  readonly printedOnly: boolean;
}

/** {@link extractMany}'s pool, making each result as `as` says. */
async function extractManyAs<T>(jobs: readonly ExtractJob[], options: ExtractManyOptions, as: ResultsAs<T>): Promise<T[]> {
  const results: Array<T | undefined> = Array.from({ length: jobs.length }, () => undefined);
  // Jobs done on this thread. Each result becomes what is kept of it (`keep`) as soon as it is extracted, so that the
  // extraction's objects die young: kept until the end, every scavenge copied them (a third more time collecting
  // garbage in a 611-file run).
  const local = async (indices: readonly number[], keep: (r: FileSymbols, i: number) => T): Promise<void> => {
    const list = indices.map((i) => jobs[i] as ExtractJob);
    // Loaded only when something is not cached: a warm run loads no extractor code.
    const { createSymbolExtractor } = await import("./symbol-extractor.js");
    // Many files here (one thread asked for): the backend the pool would use; a few: the default, quicker to start.
    const many = list.length >= (options.minFilesForPool ?? DEFAULT_MIN_FILES_FOR_POOL);
    // Only the grammars these files need: each costs a process tens of milliseconds to load.
    const languages = languagesOf(list);
    const extractor = await createSymbolExtractor(many ? { backend: options.backend ?? "wasm", languages } : { languages });
    const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
    indices.forEach((i, k) => (results[i] = keep(extractJob(list[k] as ExtractJob, extractor, cache), i)));
  };
  jobs.forEach((job, i) => {
    try {
      results[i] = as.cached(job);
    } catch {
      // unreadable: the extraction below reports it
    }
  });
  const todo = results.flatMap((r, i) => (r === undefined ? [i] : []));
  // A pool started by the caller is used as it is; otherwise as many workers as the work is worth, when asked (the
  // files' sizes are added up only until there is enough for all of them).
  let workers = options.workers;
  if (options.pool === undefined && options.minBytesPerWorker !== undefined) {
    const enough = options.workers * options.minBytesPerWorker;
    let bytes = 0;
    for (let k = 0; k < todo.length && bytes < enough; k++) bytes += bytesToParse(jobs[todo[k] as number] as ExtractJob);
    workers = workersFor(bytes, options.workers, options.minBytesPerWorker);
  }
  if (todo.length === 0 || workers <= 1 || todo.length < (options.minFilesForPool ?? DEFAULT_MIN_FILES_FOR_POOL)) {
    await options.pool?.close();
    if (todo.length === 0) return results as T[];
    await local(todo, (r) => as.fromResult(r));
    return results as T[];
  }

  const failed: number[] = [];
  let next = 0;
  // Small batches, two in flight per worker: a worker has its next batch at hand while its last result travels
  // back, and the last batches end close together.
  const pool = options.pool ?? startExtractPool({ ...options, workers, languages: languagesOf(todo.map((i) => jobs[i] as ExtractJob)) });
  const batchSize = Math.max(1, Math.min(32, Math.ceil(todo.length / (pool.workers.length * 16))));
  const run = (w: Worker, ready: Promise<void>): Promise<void> =>
    new Promise((resolve) => {
      // The batches sent and not answered yet, oldest first (a worker answers in order).
      const inFlight: number[][] = [];
      const send = (): void => {
        if (next >= todo.length) return;
        const batch: number[] = [];
        for (let k = 0; k < batchSize && next < todo.length; k++) batch.push(todo[next++] as number);
        inFlight.push(batch);
        w.postMessage({ jobs: batch.map((i) => jobs[i] as ExtractJob), printedOnly: as.printedOnly } satisfies PoolBatch);
        // (a job's bytes are copied to the worker; files on disk are read there)
      };
      void ready.then(() => {
        // A worker that died before it was ready takes nothing: what it would have had is done here afterwards.
        if (!pool.alive(w)) return resolve();
        send();
        send();
        if (inFlight.length === 0) resolve();
      });
      w.on("message", (m: PoolResult[] | "ready") => {
        if (m !== "ready") {
          const batch = inFlight.shift() ?? [];
          // The next batch goes out first: the worker computes while this thread stores and decodes.
          send();
          m.forEach(([path, text, storeAs], k) => {
            if (storeAs !== null) toStore.push([storeAs, languageOf(path)?.id ?? "none", text]);
            const r = as.fromText(path, text);
            if (r !== null) results[batch[k] as number] = r;
          });
        }
        if (m !== "ready" && inFlight.length === 0) resolve();
      });
      const die = (): void => {
        for (const batch of inFlight.splice(0)) failed.push(...batch);
        resolve();
      };
      w.once("error", die);
      w.once("exit", (code) => {
        if (code !== 0) die();
      });
    });
  // Stored once the workers are gone: files created while other threads of the process run are slow to create (two
  // worker threads creating 2,000 small files each took 0.9 s, one alone 0.06 s; a cold `comity analyze` of 2,000
  // changed files spent up to 2 s storing its 4,000 entries as they came, 0.1-0.2 s after).
  const toStore: Array<[key: string, language: string, text: string]> = [];
  try {
    await Promise.all(pool.workers.map((w, k) => run(w, pool.ready[k] as Promise<void>)));
  } finally {
    await pool.close();
  }
  if (options.cacheDir !== null) {
    const cache = createSymbolCache(options.cacheDir);
    for (const [key, language, text] of toStore) cache.setText(key, language, text);
  }
  // Files of a batch whose worker died, and any never sent: done here, each on its own.
  const leftovers = results.flatMap((r, i) => (r === undefined ? [i] : []));
  if (leftovers.length > 0) {
    await local(leftovers, (r, i) =>
      as.fromResult(failed.includes(i) ? { ...r, diagnostics: [...r.diagnostics, diagnostic("worker_crashed", "info", r.path, "a worker died on this batch: analysed in the main thread")] } : r),
    );
  }
  return results as T[];
}
