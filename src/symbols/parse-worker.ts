/**
 * Worker thread of the symbol pool: loads the parsers once, then takes the
 * jobs it is sent in turn with the other workers (a shared counter), parses
 * each file and posts back its tree as a flat copy, which the pool's thread
 * extracts symbols from (extract-pool.ts, `ParseWork`). In a wide pool
 * (`EXTRACT_IN_WORKERS_FROM`), it extracts each file itself and posts back
 * the result instead.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CONTROL, jobBytes, PARSE_AHEAD, type ParseMessage, type ParseWork, type ParseWorkerData } from "./parse-work.js";
import { packFlatTreeData } from "./flat-tree.js";
import type { SymbolExtractor } from "./symbol-extractor.js";
import type { ContentHasher } from "../snapshot/content-hasher.js";
import { createTreeParser, type TreeParser } from "./tree-parser.js";

const data = workerData as ParseWorkerData;
const languages = data.languages === null ? {} : { languages: data.languages };
// A worker that extracts loads the whole extractor (which parses too); one that only parses, the parsers alone.
const backend = data.kind === "wasm" ? "wasm" : "flat";
const extractor: SymbolExtractor | null = data.extract ? await (await import("./symbol-extractor.js")).createSymbolExtractor({ backend, ...languages }) : null;
const parser: TreeParser | null = extractor === null ? await createTreeParser({ ...languages, kind: data.kind }) : null;
const entryText = extractor === null ? null : (await import("./symbol-cache.js")).entryText;
// A worker that parses hashes the files it extracts natively for the cache (loaded when first needed).
let hasher: ContentHasher | null = null;
const post = (m: ParseMessage, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(m, transfer);

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
  if (extractor !== null && entryText !== null && source !== null) {
    const store = work.cached && job.store !== false;
    const r = extractor.extract(job.path, source);
    return post({ index: k, text: entryText(r, { printedOnly: work.printedOnly && !store }), storeAs: store ? extractor.hasher.xxh64(source) : null });
  }
  // The native extraction's result, for the languages it handles: the entry text, sent as a worker that extracts does.
  const store = work.cached && job.store !== false;
  const made = source === null || parser === null ? null : parser.parseOrExtract(job.path, source, work.printedOnly && !store);
  if (made instanceof Uint8Array && source !== null) {
    return post({ index: k, text: made, storeAs: store && hasher !== null ? hasher.xxh64(source) : null }, [made.buffer as ArrayBuffer]);
  }
  // A copy of the bytes with a buffer of its own, which is transferred (a small file's bytes share Node's buffer pool).
  const bytes = source === null ? null : new Uint8Array(source);
  const tree = made instanceof Uint8Array ? null : made;
  const buffer = tree === null ? null : packFlatTreeData(tree);
  const transfer = [...(bytes === null ? [] : [bytes.buffer as ArrayBuffer]), ...(buffer === null ? [] : [buffer])];
  post({ index: k, bytes, count: tree?.count ?? -1, buffer }, transfer);
}

parentPort?.on("message", async (work: ParseWork) => {
  if (work.cached && parser !== null) hasher ??= await (await import("../snapshot/content-hasher.js")).loadContentHasher();
  const control = new Int32Array(work.control);
  for (;;) {
    // No more than PARSE_AHEAD trees wait for the extraction (they are held in its thread's memory).
    for (let extracted = Atomics.load(control, CONTROL.extracted); Atomics.load(control, CONTROL.next) - extracted >= PARSE_AHEAD; extracted = Atomics.load(control, CONTROL.extracted)) {
      Atomics.wait(control, CONTROL.extracted, extracted, 50);
    }
    const k = Atomics.add(control, CONTROL.next, 1);
    const job = work.jobs[k];
    if (job === undefined) break;
    Atomics.store(control, CONTROL.workers + work.slot, k);
    // Test hook: makes this worker die on one file, to check that the pool survives a crash.
    if (process.env["COMITY_TEST_CRASH_ON"] !== undefined && job.path === process.env["COMITY_TEST_CRASH_ON"]) process.exit(70);
    answer(work, k);
  }
  post("done");
});
post("ready");
