/**
 * Worker thread of the symbol pool: loads the parsers once, then takes the
 * jobs it is sent in turn with the other workers (a shared counter), parses
 * each file and posts back its tree as a flat copy, which the pool's thread
 * extracts symbols from (run-pool.ts, `ParseWork`). In a wide pool
 * (`EXTRACT_IN_WORKERS_FROM`), it extracts each file itself and posts back
 * the result instead.
 */
import { parentPort, workerData } from "node:worker_threads";
import { packFlatTreeData } from "../parse/flat-tree.js";
import { parseLimitsOf, type ParseLimits } from "../parse/parse-limits.js";
import { backlogFull, backlogLow, cancelIndex, CONTROL, heldBytes, jobBytes, type ParseMessage, type ParseWork, type ParseWorkerData } from "./parse-work.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import { createTreeParser, TIMED_OUT, type TreeParser } from "./tree-parser.js";

const data = workerData as ParseWorkerData;
const languages = data.languages === null ? {} : { languages: data.languages };
// Each parse's limits: the pool's, cut at the deadline of the work at hand, and stopped by this slot's cancel flag (the
// pool's thread sets it for a worker stuck past its deadline: terminating a thread does not stop native code).
let limitsNow = parseLimitsOf({ parseLimits: data.parseLimits });
let cancel: Int32Array | null = null;
const parseLimits = (length: number): ParseLimits => (cancel === null ? limitsNow(length) : { ...limitsNow(length), cancel });
// A worker that extracts loads the whole extractor (which parses too); one that only parses, the parsers alone.
const extractor: SymbolExtractor | null = data.extract
  ? await (await import("./symbol-extractor.js")).createSymbolExtractor({ backend: data.kind === "wasm" ? "wasm" : "flat", ...languages, parseLimits })
  : null;
const parser: TreeParser | null = extractor === null ? await createTreeParser({ ...languages, kind: data.kind, parseLimits }) : null;
const cacheText = extractor === null ? null : await import("./symbol-cache.js");
let control: Int32Array | null = null;
const post = (m: ParseMessage, transfer: ArrayBuffer[] = []): void => {
  // (counted before it is posted: see CONTROL.posted; a tree's bytes before they are transferred away)
  if (typeof m === "object" && control !== null) {
    if ("count" in m) Atomics.add(control, CONTROL.held, heldBytes(m));
    Atomics.add(control, CONTROL.posted, 1);
  }
  parentPort?.postMessage(m, transfer);
};

/** Job k: its tree for the pool's thread, or (a worker that extracts) its result. */
function answer(work: ParseWork, k: number): void {
  const job = work.jobs[k];
  if (job === undefined) return;
  let source: Buffer | null = null;
  try {
    source = jobBytes(job);
  } catch {
    // unreadable: the pool's thread reads it again and says why
  }
  if (extractor !== null && cacheText !== null && source !== null) {
    const r = extractor.extract(job.path, source);
    const store = work.cached && job.store !== false && cacheText.keepable(r);
    post({ index: k, text: cacheText.entryText(r, { printedOnly: work.printedOnly && !store }), storeAs: store ? extractor.hasher.xxh64(source) : null });
    return;
  }
  const made = source === null || parser === null ? null : parser.parse(job.path, source);
  // A copy of the bytes with a buffer of its own, which is transferred (a small file's bytes share Node's buffer pool).
  const bytes = source === null ? null : new Uint8Array(source);
  if (made === TIMED_OUT) {
    post({ index: k, bytes, count: -1, buffer: null, timedOut: true }, bytes === null ? [] : [bytes.buffer as ArrayBuffer]);
    return;
  }
  const buffer = made === null ? null : packFlatTreeData(made);
  const transfer = [...(bytes === null ? [] : [bytes.buffer as ArrayBuffer]), ...(buffer === null ? [] : [buffer])];
  post({ index: k, bytes, count: made?.count ?? -1, buffer }, transfer);
}

parentPort?.on("message", (work: ParseWork) => {
  limitsNow = parseLimitsOf({ parseLimits: data.parseLimits, deadlineAt: work.deadlineAt });
  cancel = new Int32Array(work.control, 4 * cancelIndex(work.size, work.slot), 1);
  const shared = new Int32Array(work.control);
  control = shared;
  const mine = CONTROL.workers + work.slot;
  for (;;) {
    // No more than PARSE_AHEAD trees, nor PARSE_AHEAD_BYTES of them, wait for the extraction (they are held in its
    // thread's memory); once either is reached, the worker waits until both are down by half.
    if (backlogFull(shared)) {
      for (let extracted = Atomics.load(shared, CONTROL.extracted); !backlogLow(shared); extracted = Atomics.load(shared, CONTROL.extracted)) {
        Atomics.wait(shared, CONTROL.extracted, extracted, 50);
      }
    }
    const k = Atomics.add(shared, CONTROL.next, 1);
    const job = work.jobs[k];
    if (job === undefined) break;
    // The job this worker is on, for the pool's thread: the one named if it dies, or stopped if it takes too long.
    Atomics.store(shared, mine, k);
    answer(work, k);
    Atomics.store(shared, mine, -1);
  }
  post("done");
});
post("ready");
