import { statSync } from "node:fs";
import * as path from "node:path";
import { diagnostic } from "../errors/diagnostic.js";
import { parseLimitsOf, type ParseLimits } from "../parse/parse-limits.js";
import type { ContentHasher } from "../snapshot/content-hasher.js";
import { extractJob } from "./extract-job.js";
import { createFileIndex, type FileIndex, type FileStamp } from "./file-index.js";
import { createFolderLines, type Line as FolderLine } from "./folder-lines.js";
import { languageOf } from "./languages.js";
import { jobBytes, type ExtractJob } from "./parse-work.js";
import { printedFileBytes, printedSymbols } from "./printed-symbols.js";
import { runPool } from "./run-pool.js";
import { startExtractPool, type ExtractPool, type StartPoolOptions } from "./start-extract-pool.js";
import { cachedFor, createSymbolCache, fromEntryText, printedOfEntryText, type EntryText, type SymbolCache } from "./symbol-cache.js";
import type { ParserBackend } from "./symbol-extractor.js";
import { parseTimeoutDiagnostic } from "./tree-parser.js";
import type { FileSymbols, LanguageId } from "./types.js";
import { SYMBOLS_LAYOUT } from "../config/config-layout.js";

export { jobBytes, type ExtractJob } from "./parse-work.js";

export { extractJob } from "./extract-job.js";
export { startExtractPool, type ExtractPool } from "./start-extract-pool.js";

/** The parser backend and parse limits these options ask for, as the extractor's and the pool's options. */
function backendOf(options: ExtractManyOptions): { backend?: "flat" | "wasm" } {
  return options.backend === undefined ? {} : { backend: options.backend };
}
function limitsOf(options: ExtractManyOptions): { parseLimits?: ParseLimits; deadlineAt?: number } {
  return { ...(options.parseLimits === undefined ? {} : { parseLimits: options.parseLimits }), ...(options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt }) };
}

/** The result of a file whose parse was stopped at its limits: it counts as not parsing. */
function timedOutSymbols(path: string, why: string): FileSymbols {
  return { path, language: languageOf(path)?.id ?? null, symbols: [], references: [], diagnostics: [parseTimeoutDiagnostic(path, why)] };
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
 * The bytes to parse that make a thread worth taking on 2 cores, when the
 * work sets how many there are ({@link defaultMinBytesPerWorker}): two threads
 * (a worker that parses, and this thread, which extracts and parses while no
 * tree waits) from 1 MB. The worker takes a fraction of a second to start and
 * load its grammars, which this thread spends parsing: the two finish first
 * from about half that (`comity symbols --jobs 1` against `--jobs 2` over real
 * files of several total sizes finds the break-even).
 */
export const DEFAULT_MIN_BYTES_PER_WORKER = 512 * 1024;

/**
 * The bytes a worker needs to parse, when no number of workers is asked for, on a machine of `cores`:
 * {@link DEFAULT_MIN_BYTES_PER_WORKER} on 2 cores or fewer, where the workers' start-up and this thread's extraction
 * take the same cores as the parsing (measured there); 0, a worker per core, on more, where the break-even was not
 * measured.
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
  /** Who parses: `flat` by default (Comity's native parser when it is built, else web-tree-sitter); `wasm`: web-tree-sitter always. */
  readonly backend?: ParserBackend;
  /** The limits of every parse (by default each text's `defaultParseLimits`). */
  readonly parseLimits?: ParseLimits;
  /**
   * When the whole extraction must end (epoch ms): each parse's limits are cut to the time left, and a file not
   * parsed by then counts as not parsing (`parse_timeout`).
   */
  readonly deadlineAt?: number;
  /** How long a pool's worker may spend on one file before it is stopped and replaced (by default, `workerDeadlineMs` of its size). */
  readonly workerDeadlineMs?: number;
  /** Workers started ahead ({@link startExtractPool}): used if the pool is needed, and closed either way. */
  readonly pool?: ExtractPool;
  /** How a pool is started when one is needed and none was given (by default {@link startExtractPool}). */
  readonly startPool?: (options: StartPoolOptions) => ExtractPool;
  /**
   * With a cache: files given by path are looked up by their stat, so that a run over unchanged files reads none of
   * them: {@link extractMany} in a file index of their content hashes (`<cacheDir>/files`, see
   * {@link createFileIndex}), {@link printedEach} in each folder's printed lines (`<cacheDir>/lines`, see
   * {@link createFolderLines}). For runs over many files that a person may run again (`comity symbols`); off by
   * default. `now`: the clock it judges whether a file has settled by (Date.now unless given).
   */
  readonly fileIndex?: boolean | { readonly now: () => number };
  /**
   * Called once before a pool's workers start on their jobs: where the process's owner tunes it for the long run
   * ahead (the CLI raises V8's interrupt budget there, `tuneForPools`). The library changes nothing process-wide.
   */
  readonly beforePool?: () => void;
}

/** A job's content hash: the file index's when the file's stat is the one recorded, else its bytes' (recorded for next time). */
function contentHashOf(job: ExtractJob, hasher: ContentHasher, index: FileIndex | null): string {
  if (index === null || job.bytes !== undefined || job.abs === undefined) return hasher.xxh64(jobBytes(job));
  // (stat before the bytes are read: a change after it shows in the next stat)
  const stamp = job.stamp ?? statSync(job.abs);
  const known = index.lookup(job.abs, stamp);
  if (known !== null) return known;
  const hash = hasher.xxh64(jobBytes(job));
  index.record(job.abs, stamp, hash);
  return hash;
}

/** The content hasher, loaded when first needed (its module and WASM are a tenth of a warm run that needs none). */
async function loadHasher(): Promise<ContentHasher> {
  return (await import("../snapshot/content-hasher.js")).loadContentHasher();
}

/** Where and by which clock these options ask for files to be looked up by their stat: null when they do not, or have no cache. */
function byStatOf(options: ExtractManyOptions): { dir: string; clock: { now?: () => number } } | null {
  const asked = options.fileIndex ?? false;
  if (asked === false || options.cacheDir === null) return null;
  return { dir: options.cacheDir, clock: asked === true ? {} : { now: asked.now } };
}

/**
 * Extracts the symbols of many files, results in input order (deterministic
 * output whatever finishes first): a pool of worker threads parses them, and
 * this thread extracts from their trees as they come, and takes files itself
 * while none waits (see `ParseWork` and `ExtractPool.shares`; in a wide pool
 * the workers extract too). A worker that dies takes no more work; the file
 * it was parsing, and any no worker parsed, are done here, one by one, so one
 * bad file costs a diagnostic, not the run.
 */
export async function extractMany(jobs: readonly ExtractJob[], options: ExtractManyOptions): Promise<FileSymbols[]> {
  // The cache answers first, here: a warm run starts no worker and loads no grammar.
  const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
  const hasher = cache === null ? null : await loadHasher();
  const byStat = byStatOf(options);
  const index = byStat === null ? null : createFileIndex(path.join(byStat.dir, SYMBOLS_LAYOUT.files), byStat.clock);
  return extractManyAs(jobs, options, {
    cached: (job) => {
      const lang = languageOf(job.path)?.id ?? "none";
      const hit = job.known ?? (cache === null || hasher === null ? null : cache.get(contentHashOf(job, hasher, index), lang));
      return cachedFor(job.path, hit) ?? undefined;
    },
    lookedUp: () => index?.save(),
    fromText: fromEntryText,
    fromResult: (r) => r,
    printedOnly: false,
  });
}

/**
 * Each file's line of `comity.symbols/1` JSON ({@link printedFileBytes}) as UTF-8 pieces, handed to `emit` in input
 * order, each as soon as it and those before it are known: copied from the printed form that the folder's lines (with
 * `fileIndex`) or the cache have (its bytes: nothing is decoded nor encoded again, which is most of a warm run),
 * extracted and printed as {@link extractMany} extracts the rest. Not kept: a warm run holds no file's line longer
 * than it takes to write it (holding all of them, then joining them, was a third of a warm run over 611 files, most
 * of it the first touch of fresh memory); only the lines that a folder's file did not have are held, to be kept
 * there at the end. The pieces are valid during the call only (a cached line's bytes are read into a buffer that the
 * next one reuses).
 * `room`: after each line, the cache's answers wait for the promise it gives (the consumer's writes catch up), if any.
 */
export async function printedEach(
  jobs: readonly ExtractJob[],
  options: ExtractManyOptions,
  emit: (pieces: readonly Uint8Array[], index: number) => void,
  room?: () => Promise<void> | null,
): Promise<void> {
  const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
  // With the file index asked for: each folder's lines (`<cacheDir>/lines`), by stat, which a warm run reads instead
  // of each file (to hash it) and each cache entry. They keep this run's lines that they did not have.
  const byStat = byStatOf(options);
  const lines = byStat === null ? null : createFolderLines(path.join(byStat.dir, SYMBOLS_LAYOUT.lines), byStat.clock);
  let hasher: ContentHasher | null = null;
  // For a job looked up by path: the stat taken before its bytes were read, the content hash they had, and the hash
  // its line was found or stored under in the cache (what its folder's lines keep it by: with the stat when the two
  // hashes are the same bytes').
  const stamps: Array<FileStamp | undefined> = [];
  const hashes: Array<string | undefined> = [];
  const keys: Array<string | undefined> = [];
  const languageId = (job: ExtractJob): string => languageOf(job.path)?.id ?? "none";
  const kept = (job: ExtractJob, line: FolderLine, fresh: boolean): Line => {
    // (most files have none: `[]` is not parsed)
    const none = line.diagnostics.length === 2 && line.diagnostics[0] === 0x5b && line.diagnostics[1] === 0x5d;
    const pieces = printedFileBytes(job.path, line.printed, none ? [] : diagnosticsAt(JSON.parse(line.diagnostics.toString("utf8")) as FileSymbols["diagnostics"], job.path));
    return fresh ? { pieces, fresh: { printed: line.printed, diagnostics: line.diagnostics.toString("utf8"), borrowed: true } } : { pieces };
  };
  const found = (job: ExtractJob, i: number, hasher: ContentHasher): Line | undefined => {
    const language = languageId(job);
    const hash = hasher.xxh64(jobBytes(job));
    hashes[i] = hash;
    // (the same bytes under a newer stat: the line is kept again, with it)
    const line = lines === null || job.abs === undefined ? null : lines.byHash(job.abs, hash, language);
    if (line !== null) {
      keys[i] = hash;
      return kept(job, line, true);
    }
    const printed = cache === null ? null : cache.printed(hash, language, { borrow: true });
    if (printed === null) return undefined;
    keys[i] = hash;
    // (diagnostics name the path they were found under, as a cache hit's do: see cachedFor)
    return {
      pieces: printedFileBytes(job.path, printed.bytes, diagnosticsAt(printed.diagnostics, job.path)),
      fresh: { printed: printed.bytes, diagnostics: JSON.stringify(printed.diagnostics), borrowed: true },
    };
  };
  const made = (path: string, printed: string | Uint8Array, diagnostics: FileSymbols["diagnostics"], json: string): Line => {
    const bytes = typeof printed === "string" ? Buffer.from(printed) : printed;
    return { pieces: printedFileBytes(path, bytes, diagnostics), fresh: { printed: bytes, diagnostics: json, borrowed: false } };
  };
  await extractManyAs<Line>(jobs, options, {
    cached: (job, i) => {
      if (cache === null) return undefined;
      if (lines !== null && job.abs !== undefined && job.bytes === undefined) {
        // (stat before the bytes are read: a change after it shows in the next stat)
        const stamp = job.stamp ?? statSync(job.abs);
        stamps[i] = stamp;
        const line = lines.byStamp(job.abs, stamp, languageId(job));
        if (line !== null) return kept(job, line, false);
      }
      if (hasher !== null) return found(job, i, hasher);
      // The content hasher loads for the first file that must be hashed: a run that the lines answer whole needs none.
      return loadHasher().then((loaded) => found(job, i, (hasher = loaded)));
    },
    stored: (i, key) => {
      keys[i] = key;
    },
    // A cached line that waits for an earlier file's extraction: its borrowed bytes copied.
    keep: (line) => {
      const pieces = line.pieces.map((p) => Buffer.from(p));
      return line.fresh === undefined ? { pieces } : { pieces, fresh: { ...line.fresh, printed: pieces[1] as Buffer, borrowed: false } };
    },
    emit: (line, i) => {
      emit(line.pieces, i);
      const job = jobs[i] as ExtractJob;
      const key = keys[i];
      if (lines === null || line.fresh === undefined || key === undefined || job.abs === undefined) return;
      const stamp = key === hashes[i] ? (stamps[i] ?? null) : null;
      lines.put(job.abs, stamp, key, languageId(job), line.fresh.borrowed ? Buffer.from(line.fresh.printed) : line.fresh.printed, line.fresh.diagnostics);
    },
    ...(room === undefined ? {} : { room }),
    fromText: (path, text) => {
      // (its diagnostics name the path the worker was given: this one)
      const parts = printedOfEntryText(text);
      if (parts === null) return null;
      try {
        return made(path, parts.printed, JSON.parse(parts.diagnostics) as FileSymbols["diagnostics"], parts.diagnostics);
      } catch {
        return null;
      }
    },
    fromResult: (r) => made(r.path, printedSymbols(r), r.diagnostics, JSON.stringify(r.diagnostics)),
    printedOnly: true,
  });
  lines?.save();
}

/** A line of {@link printedEach}: its UTF-8 pieces, and (when its folder's lines do not have it) what they are to keep. */
interface Line {
  readonly pieces: readonly Uint8Array[];
  /** Its printed form (`borrowed`: valid until the next lookup) and diagnostics' JSON. */
  readonly fresh?: { readonly printed: Uint8Array; readonly diagnostics: string; readonly borrowed: boolean };
}

/** Diagnostics found under another path, as they read under this one. */
function diagnosticsAt(diagnostics: FileSymbols["diagnostics"], path: string): FileSymbols["diagnostics"] {
  return diagnostics.length === 0 ? diagnostics : diagnostics.map((d) => ({ ...d, path }));
}

/** How {@link extractManyAs} makes its results: from the cache (undefined: a miss), from a worker's entry text (null: not one), or from an extraction here. */
interface ResultsAs<T> {
  /** A promise when the answer needs something loaded first (awaited before the next lookup). */
  cached(job: ExtractJob, index: number): T | undefined | Promise<T | undefined>;
  /** Job `index`'s result was stored in the cache under `key` (told before the result is handed over). */
  stored?(index: number, key: string): void;
  /** Called once every job was looked up in the cache (before any is extracted). */
  lookedUp?(): void;
  fromText(path: string, text: EntryText): T | null;
  fromResult(r: FileSymbols): T;
  /** Whether `fromText` reads only an entry text's printed form and diagnostics (a worker then leaves out the first line of what is not stored). */
  readonly printedOnly: boolean;
  /**
   * Given: each result is handed to it in input order, as soon as it and all before it are known, and not kept (the
   * results returned are then placeholders). A cached result that cannot be handed over at once goes through `keep`
   * first (its bytes may be borrowed until the next lookup).
   */
  readonly emit?: (t: T, index: number) => void;
  readonly keep?: (t: T) => T;
  /** After each cached result, the lookups wait for the promise it gives, if any (what `emit` feeds catches up). */
  readonly room?: () => Promise<void> | null;
}

/** {@link extractMany}'s pool, making each result as `as` says. */
async function extractManyAs<T>(jobs: readonly ExtractJob[], options: ExtractManyOptions, as: ResultsAs<T>): Promise<T[]> {
  const results: Array<T | undefined> = Array.from({ length: jobs.length }, () => undefined);
  // With `emit`: results[i] for i < next were handed over, and hold this placeholder.
  const handed = {} as T;
  let next = 0;
  const put = (i: number, t: T): void => {
    results[i] = t;
    const { emit } = as;
    if (emit === undefined) return;
    // (past the last job, results[next] is undefined too)
    for (let r = results[next]; r !== undefined; r = results[next]) {
      emit(r, next);
      results[next++] = handed;
    }
  };
  // Jobs done on this thread. Each result becomes what is kept of it (`keep`) as soon as it is extracted, so that the
  // extraction's objects die young: kept until the end, every scavenge copied them (a third more time collecting
  // garbage in a 611-file run).
  const local = async (indices: readonly number[], keep: (r: FileSymbols, i: number) => T): Promise<void> => {
    const list = indices.map((i) => jobs[i] as ExtractJob);
    // Loaded only when something is not cached: a warm run loads no extractor code.
    const { createSymbolExtractor } = await import("./symbol-extractor.js");
    // Only the grammars these files need: each costs a process tens of milliseconds to load.
    const extractor = await createSymbolExtractor({ languages: languagesOf(list), ...backendOf(options), parseLimits: parseLimitsOf(options) });
    const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
    const { stored } = as;
    const storeFor = (i: number): Pick<SymbolCache, "set"> | null =>
      cache === null || stored === undefined
        ? cache
        : {
            set: (key, language, r) => {
              const kept = cache.set(key, language, r);
              if (kept) stored(i, key);
              return kept;
            },
          };
    indices.forEach((i, k) => {
      put(i, keep(extractJob(list[k] as ExtractJob, extractor, storeFor(i)), i));
    });
  };
  for (const [i, job] of jobs.entries()) {
    try {
      let hit = as.cached(job, i);
      if (hit instanceof Promise) hit = await hit;
      // (handed over now, or kept: the next lookup may reuse what it borrowed)
      if (hit !== undefined) put(i, i === next || as.keep === undefined ? hit : as.keep(hit));
    } catch {
      // unreadable: the extraction below reports it
    }
    const wait = as.room?.();
    if (wait !== undefined && wait !== null) await wait;
  }
  as.lookedUp?.();
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
  // The pool's workers parse, and this thread extracts from their trees as they come and parses too while none waits
  // (see ParseWork, ExtractPool.shares); in a wide pool each worker extracts too (EXTRACT_IN_WORKERS_FROM).
  if (todo.length === 0 || workers <= 1 || todo.length < (options.minFilesForPool ?? DEFAULT_MIN_FILES_FOR_POOL)) {
    await options.pool?.close();
    if (todo.length === 0) return results as T[];
    await local(todo, (r) => as.fromResult(r));
    return results as T[];
  }
  const list = todo.map((i) => jobs[i] as ExtractJob);
  const pool =
    options.pool ??
    (options.startPool ?? startExtractPool)({ workers, languages: languagesOf(list), ...backendOf(options), ...(options.parseLimits === undefined ? {} : { parseLimits: options.parseLimits }) });
  options.beforePool?.();
  const { leftovers, timedOut, crashed } = await runPool(pool, list, {
    cacheDir: options.cacheDir,
    printedOnly: as.printedOnly,
    ...(options.workerDeadlineMs === undefined ? {} : { workerDeadlineMs: options.workerDeadlineMs }),
    ...limitsOf(options),
    stored: (k, key) => as.stored?.(todo[k] as number, key),
    result: (k, r) => put(todo[k] as number, as.fromResult(r)),
    text: (k, path, text, storedAs) => {
      if (storedAs !== null) as.stored?.(todo[k] as number, storedAs);
      const r = as.fromText(path, text);
      if (r !== null) put(todo[k] as number, r);
      return r !== null;
    },
  });
  // A job its worker was stopped on, past its deadline: the file counts as not parsing (it is not done again here,
  // where it would hang this thread).
  for (const k of timedOut) {
    const job = list[k] as ExtractJob;
    put(todo[k] as number, as.fromResult(timedOutSymbols(job.path, "its worker was stopped past its deadline")));
  }
  // Jobs a worker died on, and any never parsed: done here, each on its own.
  const crashedJobs = new Set([...crashed].map((k) => todo[k] as number));
  const rest = leftovers.filter((k) => results[todo[k] as number] === undefined);
  if (rest.length > 0) {
    await local(
      rest.map((k) => todo[k] as number),
      (r, i) =>
        as.fromResult(crashedJobs.has(i) ? { ...r, diagnostics: [...r.diagnostics, diagnostic("worker_crashed", "info", r.path, "a worker died on this file: analysed in the main thread")] } : r),
    );
  }
  return results as T[];
}
