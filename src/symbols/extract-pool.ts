import { statSync } from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";
import { diagnostic } from "../errors/diagnostic.js";
import type { ContentHasher } from "../snapshot/content-hasher.js";
import { bestFlatParserKind, type FlatParserKind } from "../tree-sitter/load-flat-parser.js";
import { createFileIndex, type FileIndex, type FileStamp } from "./file-index.js";
import { createFolderLines, type Line as FolderLine } from "./folder-lines.js";
import { languageOf } from "./languages.js";
import { CONTROL, EXTRACT_IN_WORKERS_FROM, jobBytes, type ExtractJob, type ParseMessage, type ParsedTree, type ParseWork, type ParseWorkerData } from "./parse-work.js";
import { printedFileBytes, printedSymbols } from "./printed-symbols.js";
import { cachedFor, createSymbolCache, entryText, fromEntryText, printedOfEntryText, type EntryText, type SymbolCache } from "./symbol-cache.js";
import type { ParserBackend, SymbolExtractor } from "./symbol-extractor.js";
import type { FileSymbols, LanguageId } from "./types.js";
import type { FlatTreeData } from "./flat-tree.js";

export { jobBytes, type ExtractJob } from "./parse-work.js";

/**
 * One job's symbols, extracted and stored in the cache under its content hash (the caller has looked there already).
 * `parsed`: the bytes a parse worker read and their tree, read instead of the job's file (the tree is theirs).
 */
export function extractJob(job: ExtractJob, extractor: SymbolExtractor, cache: Pick<SymbolCache, "set"> | null, parsed?: { bytes: Buffer; tree: FlatTreeData | null }): FileSymbols {
  try {
    const bytes = parsed?.bytes ?? jobBytes(job);
    const r = extractor.extract(job.path, bytes, parsed?.tree ?? null);
    if (job.store !== false) cache?.set(extractor.hasher.xxh64(bytes), languageOf(job.path)?.id ?? "none", r);
    return r;
  } catch (error) {
    return unreadable(job.path, error);
  }
}

/**
 * One job's result as its entry text, made by the native extraction ({@link SymbolExtractor.extractText}) and stored
 * in the cache under its content hash; null when that extraction does not handle it ({@link extractJob} it then).
 * `printedOnly`: when nothing stores it, its first line is left empty (see `entryText`).
 */
export function extractJobText(job: ExtractJob, extractor: SymbolExtractor, cache: Pick<Required<SymbolCache>, "setText"> | null, printedOnly = false): Uint8Array | null {
  const extractText = extractor.extractText;
  if (extractText === undefined) return null;
  let bytes: Buffer;
  try {
    bytes = jobBytes(job);
  } catch {
    return null;
  }
  const store = cache !== null && job.store !== false;
  const text = extractText.call(extractor, job.path, bytes, printedOnly && !store);
  if (text !== null && store) cache.setText(extractor.hasher.xxh64(bytes), languageOf(job.path)?.id ?? "none", text);
  return text;
}

function unreadable(path: string, error: unknown): FileSymbols {
  return { path, language: null, symbols: [], references: [], diagnostics: [diagnostic("unreadable_file", "warning", path, error instanceof Error ? error.message : String(error))] };
}

/** Worker threads for {@link extractMany}, which may be started before the jobs are known (their start-up then overlaps the caller's reading). */
export interface ExtractPool {
  readonly workers: readonly Worker[];
  /** Whether the workers extract too (a wide pool: {@link EXTRACT_IN_WORKERS_FROM}), or only parse. */
  readonly extract: boolean;
  /** Who parses in the workers. */
  readonly kind: FlatParserKind;
  /** Settles when each worker has loaded its parsers (or died). */
  readonly ready: ReadonlyArray<Promise<void>>;
  /** Whether a worker has not exited. */
  alive(worker: Worker): boolean;
  close(): Promise<void>;
}

/** Starts the worker threads of a pool; {@link extractMany} given it closes it, whether it needs it or not. */
export function startExtractPool(options: Pick<ExtractManyOptions, "workers"> & { readonly languages?: readonly LanguageId[]; readonly backend?: "flat" | "wasm" }): ExtractPool {
  // The languages to parse, when the jobs are known (all of them for a pool started ahead of its jobs).
  const count = Math.max(1, options.workers);
  const kind = options.backend === "wasm" ? "wasm" : bestFlatParserKind();
  const workerData: ParseWorkerData = { languages: options.languages ?? null, extract: count >= EXTRACT_IN_WORKERS_FROM, kind };
  // node:worker_threads loads when a pool starts: a warm run, which needs none, spent 6 ms of 230 loading it.
  const { Worker: WorkerThread } = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
  const workers = Array.from({ length: count }, () => new WorkerThread(workerUrl(), { workerData }));
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
  return { workers, extract: workerData.extract, kind, ready, alive: (w) => !exited.has(w), close: () => (closed ??= Promise.all(workers.map((w) => w.terminate())).then(() => undefined)) };
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
 * work sets how many there are ({@link defaultMinBytesPerWorker}). The
 * workers parse and this thread extracts, on the same 2 cores; each worker
 * starts in 0.15-0.25 s and loads its grammars. Measured when each worker
 * also extracted (and compiled the extraction's code for itself), two
 * workers against this thread alone: 1 MB of TypeScript 1.56 s against 1.39
 * s, 2 MB 2.26 against 2.23, 4 MB 3.09 against 3.45; `comity analyze` of
 * 2,000 small changed files (0.9 MB, both versions) 4.1 s against 3.4 s.
 * With the workers parsing only (2026-12-02, interleaved, medians of 5):
 * 2.1 MB 1.36 s against 1.31, 4.5 MB 2.15 against 2.48 (benchmarks/README.md).
 */
export const DEFAULT_MIN_BYTES_PER_WORKER = 2 * 1024 * 1024;

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
  /**
   * Backend for many files; `flat` by default (faster on many files), whose trees the pool's workers parse for this
   * thread (with Comity's native parser when it is built, else web-tree-sitter; `wasm`: web-tree-sitter always).
   * Native: this thread does it all, whatever `workers` says (its trees cannot be handed from a thread to another).
   * A few files here use the native default.
   */
  readonly backend?: ParserBackend;
  /** Workers started ahead ({@link startExtractPool}): used if the pool is needed, and closed either way. */
  readonly pool?: ExtractPool;
  /**
   * With a cache: files given by path are looked up by their stat, so that a run over unchanged files reads none of
   * them: {@link extractMany} in a file index of their content hashes (`<cacheDir>/files`, see
   * {@link createFileIndex}), {@link printedEach} in each folder's printed lines (`<cacheDir>/lines`, see
   * {@link createFolderLines}). For runs over many files that a person may run again (`comity symbols`); off by
   * default. `now`: the clock it judges whether a file has settled by (Date.now unless given).
   */
  readonly fileIndex?: boolean | { readonly now: () => number };
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

/** Where the compiled worker lives: beside this module in `dist/`, or in `dist/` when running from sources (tests). */
function workerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts") ? new URL("../../dist/symbols/parse-worker.js", here) : new URL("./parse-worker.js", here);
}

/**
 * Extracts the symbols of many files, results in input order (deterministic
 * output whatever finishes first): a pool of worker threads parses them, and
 * this thread extracts from their trees as they come (see `ParseWork`; in a
 * wide pool the workers extract too, and so does the native parser, for the
 * languages it extracts itself). A worker that dies takes no more work;
 * the file it was parsing, and any no worker parsed, are done here, one by
 * one, so one bad file costs a diagnostic, not the run.
 */
export async function extractMany(jobs: readonly ExtractJob[], options: ExtractManyOptions): Promise<FileSymbols[]> {
  // The cache answers first, here: a warm run starts no worker and loads no grammar.
  const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
  const hasher = cache === null ? null : await loadHasher();
  const byStat = byStatOf(options);
  const index = byStat === null ? null : createFileIndex(path.join(byStat.dir, "files"), byStat.clock);
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
  const lines = byStat === null ? null : createFolderLines(path.join(byStat.dir, "lines"), byStat.clock);
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
      const stamp = key === hashes[i] ? stamps[i] ?? null : null;
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
  // `native`: the native extraction's entry texts may answer (not for results that `keep` must see as records).
  const local = async (indices: readonly number[], keep: (r: FileSymbols, i: number) => T, native = true): Promise<void> => {
    const list = indices.map((i) => jobs[i] as ExtractJob);
    // Loaded only when something is not cached: a warm run loads no extractor code.
    const { createSymbolExtractor } = await import("./symbol-extractor.js");
    // Many files here (one thread asked for): the backend the pool would use; a few: the default, quicker to start.
    const many = list.length >= (options.minFilesForPool ?? DEFAULT_MIN_FILES_FOR_POOL);
    // Only the grammars these files need: each costs a process tens of milliseconds to load.
    const languages = languagesOf(list);
    const extractor = await createSymbolExtractor(many ? { backend: options.backend ?? "flat", languages } : { languages });
    const cache = options.cacheDir === null ? null : createSymbolCache(options.cacheDir);
    const { stored } = as;
    const storeFor = (i: number): Pick<Required<SymbolCache>, "set" | "setText"> | null =>
      cache === null || stored === undefined
        ? cache
        : {
            set: (key, language, r) => {
              cache.set(key, language, r);
              stored(i, key);
            },
            setText: (key, language, text) => {
              cache.setText(key, language, text);
              stored(i, key);
            },
          };
    indices.forEach((i, k) => {
      const job = list[k] as ExtractJob;
      // The native extraction's entry text when it has one; the JavaScript extraction otherwise.
      const text = native ? extractJobText(job, extractor, storeFor(i), as.printedOnly) : null;
      const fromText = text === null ? null : as.fromText(job.path, text);
      put(i, fromText ?? keep(extractJob(job, extractor, storeFor(i)), i));
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
  // The pool's workers parse, and this thread extracts from their trees as they come (see ParseWork); in a wide pool
  // each worker extracts too (EXTRACT_IN_WORKERS_FROM), and the native parser extracts the languages it can in any
  // pool. The native backend's trees cannot be handed over: with it, this thread does it all.
  if (todo.length === 0 || workers <= 1 || todo.length < (options.minFilesForPool ?? DEFAULT_MIN_FILES_FOR_POOL) || options.backend === "native") {
    await options.pool?.close();
    if (todo.length === 0) return results as T[];
    await local(todo, (r) => as.fromResult(r));
    return results as T[];
  }
  const list = todo.map((i) => jobs[i] as ExtractJob);
  const languages = languagesOf(list);
  const pool = options.pool ?? startExtractPool({ workers, languages, backend: options.backend === "wasm" ? "wasm" : "flat" });
  // Stored once the workers are gone: files created while other threads of the process run are slow to create (two
  // worker threads creating 2,000 small files each took 0.9 s, one alone 0.06 s; a cold `comity analyze` of 2,000
  // changed files spent up to 2 s storing its 4,000 entries as they came, 0.1-0.2 s after).
  const toStore: Array<[key: string, language: string, text: EntryText]> = [];
  const failed = new Set<number>();
  try {
    // Loaded while the workers start (their start-up is longer); workers that extract need none of it.
    const { unpackFlatTreeData } = await import("./flat-tree.js");
    // (the parser the workers use: this thread's extraction reads their trees with its grammars' tables). None when
    // the workers' native parser extracts the files' symbols itself: a tree that comes back all the same (a file it
    // does not handle) is left for the end, done here like a file no worker took.
    const extractor =
      pool.extract || (await import("./tree-parser.js")).nativeExtracts(pool.kind)
        ? null
        : await (await import("./symbol-extractor.js")).createSymbolExtractor({ backend: pool.kind === "wasm" ? "wasm" : "flat", languages });
    const control = new Int32Array(new SharedArrayBuffer(4 * (CONTROL.workers + pool.workers.length)));
    control.fill(-1, CONTROL.workers);
    const work = {
      jobs: list.map((j) => ({ path: j.path, ...(j.abs === undefined ? {} : { abs: j.abs }), ...(j.bytes === undefined ? {} : { bytes: j.bytes }), ...(j.store === undefined ? {} : { store: j.store }) })),
      control: control.buffer as SharedArrayBuffer,
      cached: options.cacheDir !== null,
      printedOnly: as.printedOnly,
    };
    const done = (): void => {
      Atomics.add(control, CONTROL.extracted, 1);
      Atomics.notify(control, CONTROL.extracted);
    };
    // Job k of the list, from its tree as a worker parsed it (or here, when it did not).
    // (a wide pool's worker sends one only for a file it could not read: that file is done here, at the end)
    // (stored as entry texts, once the workers are gone)
    const deferred = options.cacheDir === null ? null : { set: (key: string, language: string, r: FileSymbols) => void toStore.push([key, language, entryText(r)]) };
    const extracted = (k: number, tree: ParsedTree): void => {
      // (none here: see above)
      if (extractor === null) return;
      const parsed = tree.bytes === null ? undefined : { bytes: Buffer.from(tree.bytes.buffer, tree.bytes.byteOffset, tree.bytes.byteLength), tree: tree.buffer === null ? null : unpackFlatTreeData(tree.count, tree.buffer) };
      const i = todo[k] as number;
      const store = deferred === null ? null : { set: (key: string, language: string, r: FileSymbols) => (deferred.set(key, language, r), as.stored?.(i, key)) };
      put(i, as.fromResult(extractJob(list[k] as ExtractJob, extractor, store, parsed)));
    };
    const run = (w: Worker, slot: number, ready: Promise<void>): Promise<void> =>
      new Promise((resolve) => {
        let over = false;
        const end = (): void => {
          if (over) return;
          over = true;
          // The job it was parsing when it died, if its tree never came: done here, with a word that it was.
          const current = Atomics.load(control, CONTROL.workers + slot);
          if (current >= 0 && results[todo[current] as number] === undefined) failed.add(todo[current] as number);
          resolve();
        };
        void ready.then(() => {
          // A worker that died before it was ready takes nothing: what is left is done here afterwards.
          if (!pool.alive(w)) return resolve();
          w.postMessage({ ...work, slot } satisfies ParseWork);
          // (each message's jobs are copied to the worker: their bytes too, for jobs that carry them)
        });
        w.on("message", (m: ParseMessage) => {
          if (m === "ready") return;
          if (m === "done") {
            over = true;
            return resolve();
          }
          if ("text" in m) {
            // A result a worker extracted: not kept when it is not one (the job is then done here).
            const job = list[m.index] as ExtractJob;
            if (m.storeAs !== null) {
              toStore.push([m.storeAs, languageOf(job.path)?.id ?? "none", m.text]);
              as.stored?.(todo[m.index] as number, m.storeAs);
            }
            const r = as.fromText(job.path, m.text);
            if (r !== null) put(todo[m.index] as number, r);
          } else extracted(m.index, m);
          done();
        });
        w.once("error", end);
        w.once("exit", end);
      });
    await Promise.all(pool.workers.map((w, k) => run(w, k, pool.ready[k] as Promise<void>)));
  } finally {
    await pool.close();
  }
  if (options.cacheDir !== null) {
    const cache = createSymbolCache(options.cacheDir);
    for (const [key, language, text] of toStore) cache.setText(key, language, text);
  }
  // Jobs a worker died on, and any never parsed: done here, each on its own.
  const leftovers = todo.flatMap((i, k) => (results[i] === undefined ? [k] : []));
  if (leftovers.length > 0) {
    await local(
      leftovers.map((k) => todo[k] as number),
      (r, i) => as.fromResult(failed.has(i) ? { ...r, diagnostics: [...r.diagnostics, diagnostic("worker_crashed", "info", r.path, "a worker died on this file: analysed in the main thread")] } : r),
      false,
    );
  }
  return results as T[];
}
