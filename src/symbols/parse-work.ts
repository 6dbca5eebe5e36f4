/**
 * The symbol pool's wire format, imported by both sides: the pool's thread
 * (extract-pool.ts) and its parse workers (parse-worker.ts).
 */
import { readFileSync } from "node:fs";
import type { FileSymbols, LanguageId } from "./types.js";
import type { FlatParserKind } from "../parse/native-parser.js";
import type { ParseLimits } from "../parse/parse-limits.js";
import type { FileStamp } from "./file-index.js";

/** One file to analyse: the path to report, and where to read it or its bytes (an old version read from git). */
export interface ExtractJob {
  readonly path: string;
  readonly abs?: string;
  readonly bytes?: Uint8Array;
  /** The result, already read from the cache by the caller: used as it is. */
  readonly known?: Omit<FileSymbols, "path">;
  /** False: the result is not stored in the cache (the caller keeps what it needs of it elsewhere). */
  readonly store?: boolean;
  /** The file's stat, taken before anything read it (a file index looks it up instead of hashing the bytes). */
  readonly stamp?: FileStamp;
}

/** The bytes of a job. */
export function jobBytes(job: ExtractJob): Buffer {
  if (job.bytes !== undefined) return Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  return readFileSync(job.abs ?? "");
}

/**
 * What a pool's worker is started with: the languages to load (null: all, for a pool started before its jobs were
 * known), and whether it extracts too ({@link EXTRACT_IN_WORKERS_FROM}).
 */
export interface ParseWorkerData {
  readonly languages: readonly LanguageId[] | null;
  readonly extract: boolean;
  /** Who parses: the pool's thread's choice, so that its extraction reads trees of the grammars it loaded. */
  readonly kind: FlatParserKind;
  /** The limits of every parse (null: each text's `defaultParseLimits`). */
  readonly parseLimits: ParseLimits | null;
}

/**
 * From this many workers, each worker extracts the files it parses and sends back results, not trees. Below it,
 * the pool's thread extracts every file from the trees the workers send: with few workers on few cores the CPU is
 * what limits, and a worker that extracts compiles the extraction's code once more (TurboFan's time, taken from a
 * core that would parse), which costs more than the one thread saves. With many workers on as many cores, that one
 * thread would be the limit. The extraction is about a third of a file's CPU and the parse two thirds, so from 3
 * parse workers the extracting thread is as slow as each of them, and from 4 the slowest.
 */
export const EXTRACT_IN_WORKERS_FROM = 4;

/**
 * The pool's thread sends each worker the jobs once; the workers take them in turn through a shared counter, parse
 * each file and send its tree back as a flat copy ({@link ParsedTree}); the pool's thread extracts the symbols from
 * the copies as they come, so that the extraction's code is compiled in one thread. A worker of a wide pool sends
 * each file's result instead ({@link ExtractedFile}, as UTF-8 bytes).
 */
export interface ParseWork {
  /** The files, as the pool's jobs say (path, where to read it, or its bytes). */
  readonly jobs: ReadonlyArray<Pick<ExtractJob, "path" | "abs" | "bytes" | "store">>;
  /** Shared between the threads: {@link CONTROL}'s slots. */
  readonly control: SharedArrayBuffer;
  /** This worker's slot in `control`, where it writes the job it is parsing (a worker that dies names the file it died on). */
  readonly slot: number;
  /** How many slots the pool has (after the slots' jobs in `control` come their cancel flags: {@link cancelIndex}). */
  readonly size: number;
  /** For a worker that extracts: whether results go into the cache (a job's own `store` may still say no). */
  readonly cached: boolean;
  /** For a worker that extracts: whether the pool's thread reads only a result's printed form (an entry text not stored is then sent without its first line). */
  readonly printedOnly: boolean;
  /** When every parse of this work must end (epoch ms; null: each parse only has its own limits). */
  readonly deadlineAt: number | null;
}

/**
 * The slots of a {@link ParseWork}'s control array (Int32): the next job to take, the jobs extracted, the messages
 * the workers posted (counted before each is posted: the pool's thread, having read as many, has nothing waiting for
 * it), the bytes of the trees posted and not yet extracted ({@link heldBytes}), then each worker's current job (-1:
 * none), then each worker's cancel flag (set: its parse stops at once).
 */
export const CONTROL = { next: 0, extracted: 1, posted: 2, held: 3, workers: 4 } as const;

/** Where a slot's cancel flag is in the control array of a pool of `size` slots. */
export function cancelIndex(size: number, slot: number): number {
  return CONTROL.workers + size + slot;
}

/**
 * How many jobs the workers may parse ahead of the extraction, and how many bytes of trees (with their texts) may wait
 * for it: they wait in the pool's thread's memory until then. A worker that reaches either waits until both are
 * down by half. The count is for the start of a run, where the extraction's code is not yet compiled and each file
 * takes it several times as long as later: with 64, the worker waited there, 20 to 100 ms of a two-second run over
 * the JDK's java.base sources (a core idle while the other extracted), and with 256 not at all. The bytes bound what that costs in memory, and
 * large files in particular (64 trees of 2 MB files were half a gigabyte).
 */
export const PARSE_AHEAD = 256;
export const PARSE_AHEAD_BYTES = 64 * 1024 * 1024;

/** The bytes a posted tree holds in the pool's thread until it is extracted (its text's and its arrays'), as {@link CONTROL}'s `held` counts them. */
export function heldBytes(tree: Pick<ParsedTree, "bytes" | "buffer">): number {
  return (tree.bytes?.byteLength ?? 0) + (tree.buffer?.byteLength ?? 0);
}

/** Whether the backlog ({@link PARSE_AHEAD}) is full: a worker waits before it takes another job. */
export function backlogFull(control: Int32Array): boolean {
  return Atomics.load(control, CONTROL.next) - Atomics.load(control, CONTROL.extracted) >= PARSE_AHEAD || Atomics.load(control, CONTROL.held) >= PARSE_AHEAD_BYTES;
}

/** Whether the backlog ({@link PARSE_AHEAD}) is down to where a waiting worker goes on. */
export function backlogLow(control: Int32Array): boolean {
  return Atomics.load(control, CONTROL.next) - Atomics.load(control, CONTROL.extracted) <= PARSE_AHEAD / 2 && Atomics.load(control, CONTROL.held) <= PARSE_AHEAD_BYTES / 2;
}

/**
 * One parsed job: its index in {@link ParseWork.jobs}, the bytes the worker read and parsed (null: it could not read
 * them, and the pool's thread reads them to say why), and their tree packed by `packFlatTreeData`, or no tree (count
 * -1: the pool's thread parses them, or says why not). The bytes come back with their tree: a file read again could
 * have changed since, and its symbols would be read from another text's tree (and cached under the new text's hash).
 */
export interface ParsedTree {
  readonly index: number;
  readonly bytes: Uint8Array | null;
  readonly count: number;
  readonly buffer: ArrayBuffer | null;
  /** The parse went past its limits (no tree): the file counts as not parsing, and is not parsed again. */
  readonly timedOut?: true;
}

/**
 * One job a worker extracted itself ({@link ParseWorkerData.extract}): its index, its result as its entry text
 * (`entryText`: a string clones faster than records), and the content hash the pool's thread stores it under (null:
 * not stored).
 */
export interface ExtractedFile {
  readonly index: number;
  readonly text: string;
  readonly storeAs: string | null;
}

/** What a worker posts: "ready" once its parsers are loaded, a {@link ParsedTree} or {@link ExtractedFile} for each job it took, "done" when no job is left. */
export type ParseMessage = "ready" | "done" | ParsedTree | ExtractedFile;
