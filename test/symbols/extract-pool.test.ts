import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultMinBytesPerWorker, extractMany, printedEach, startExtractPool, workersFor, type ExtractJob, type ExtractManyOptions, type ExtractPool } from "../../src/symbols/extract-pool.js";
import type { StartPoolOptions } from "../../src/symbols/start-extract-pool.js";
import { SETTLED_MS } from "../../src/symbols/file-index.js";
import { EXTRACT_IN_WORKERS_FROM } from "../../src/symbols/parse-work.js";
import { crashingPools } from "../helpers/crashing-pool.js";

/** Every printed line, in order, each piece copied (a cached line's bytes are borrowed only during the call). */
async function printedMany(list: readonly ExtractJob[], options: ExtractManyOptions): Promise<Array<readonly Uint8Array[]>> {
  const lines: Array<readonly Uint8Array[]> = [];
  await printedEach(list, options, (pieces) => void lines.push(pieces.map((p) => Buffer.from(p))));
  return lines;
}

let dir: string;
let jobs: ExtractJob[];
/** When the first of the jobs' files was last changed: by that clock, none has settled. */
const firstWritten = (): number => Math.min(...jobs.filter((j) => fs.existsSync(j.abs ?? "")).map((j) => Math.max(fs.statSync(j.abs ?? "").mtimeMs, fs.statSync(j.abs ?? "").ctimeMs)));
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-pool-"));
  jobs = [];
  for (let i = 0; i < 40; i++) {
    const ts = `f${i}.ts`;
    fs.writeFileSync(path.join(dir, ts), `export function f${i}(a: number, b = ${i}): number { return a + b; }\nexport interface I${i} { x: string }\n`);
    const py = `m${i}.py`;
    fs.writeFileSync(path.join(dir, py), `def g${i}(a, b=${i}):\n    return helper(a)\n\nclass C${i}:\n    def m(self): pass\n`);
    jobs.push({ path: ts, abs: path.join(dir, ts) }, { path: py, abs: path.join(dir, py) });
  }
  jobs.push({ path: "missing.ts", abs: path.join(dir, "missing.ts") });
});
afterEach(() => {
  delete process.env["COMITY_TEST_CRASH_ON"];
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("extractMany (worker pool)", () => {
  it("gives the same results as the main thread, in input order, on every backend", async () => {
    const here = await extractMany(jobs, { workers: 1, cacheDir: null });
    const pooled = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1 });
    // The workers parse with web-tree-sitter (by default, with Comity's native parser when it is built).
    const wasmPool = startExtractPool({ workers: 2, backend: "wasm" });
    expect(wasmPool.kind).toBe("wasm");
    const wasm = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, backend: "wasm", pool: wasmPool });
    expect(pooled.map((r) => r.path)).toEqual(jobs.map((j) => j.path));
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(here));
    expect(JSON.stringify(wasm)).toBe(JSON.stringify(here));
    expect(here.at(-1)?.diagnostics.map((d) => d.code)).toEqual(["unreadable_file"]);
    expect(here[0]?.symbols.map((s) => s.qualified_name)).toEqual(["I0", "I0.x", "f0"]);
  });

  it("changes nothing process-wide itself: the caller's beforePool runs once where a pool starts, never without one", async () => {
    let calls = 0;
    const beforePool = () => void calls++;
    await extractMany(jobs, { workers: 1, cacheDir: null, beforePool });
    expect(calls).toBe(0);
    await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, beforePool });
    expect(calls).toBe(1);
    // The library itself names no V8 flag (the CLI tunes its own process: src/cli/tune-for-pools.ts).
    for (const file of ["run-pool.ts", "extract-pool.ts", "start-extract-pool.ts"]) expect(fs.readFileSync(path.resolve("src/symbols", file), "utf8")).not.toContain("setFlagsFromString");
  });

  it("gives the same results with a wide pool, whose workers extract too, and survives one of them dying", async () => {
    expect(EXTRACT_IN_WORKERS_FROM).toBe(4);
    const [narrowPool, widePool] = [startExtractPool({ workers: 3 }), startExtractPool({ workers: 4 })];
    expect([narrowPool.extract, widePool.extract]).toEqual([false, true]);
    await Promise.all([narrowPool.close(), widePool.close()]);
    const here = await extractMany(jobs, { workers: 1, cacheDir: null });
    const wide = await extractMany(jobs, { workers: 4, cacheDir: null, minFilesForPool: 1 });
    expect(JSON.stringify(wide)).toBe(JSON.stringify(here));
    // Printed (the CLI's path), and through the cache: the same lines, and the entries stored are read back.
    const cacheDir = path.join(dir, "cache");
    const printedHere = await printedMany(jobs, { workers: 1, cacheDir: null });
    const printedWide = await printedMany(jobs, { workers: 4, cacheDir, minFilesForPool: 1 });
    expect(Buffer.concat(printedWide.flat()).toString()).toBe(Buffer.concat(printedHere.flat()).toString());
    expect(JSON.stringify(await extractMany(jobs, { workers: 4, cacheDir, minFilesForPool: 1 }))).toBe(JSON.stringify(here));
    const crashed = await extractMany(jobs, { workers: 4, cacheDir: null, minFilesForPool: 1, startPool: crashingPools("f3.ts") });
    expect(crashed[6]?.diagnostics.map((d) => d.code)).toEqual(["worker_crashed"]);
    expect(crashed[6]?.symbols.map((s) => s.qualified_name)).toEqual(["I3", "I3.x", "f3"]);
    expect(crashed.filter((r) => r.diagnostics.some((d) => d.code === "worker_crashed"))).toHaveLength(1);
  });

  it("shares the jobs with its thread in a narrow pool: one worker fewer, and the thread takes jobs while no tree waits", async () => {
    const [narrow, unshared, wide] = [startExtractPool({ workers: 2 }), startExtractPool({ workers: 2, share: false }), startExtractPool({ workers: 4 })];
    expect([narrow.size, narrow.shares, unshared.size, unshared.shares, wide.size, wide.shares]).toEqual([1, true, 2, false, 4, false]);
    await Promise.all([narrow.close(), unshared.close(), wide.close()]);
    const here = await extractMany(jobs, { workers: 1, cacheDir: null });
    // The worker would die on f3.ts, but loads only after 2 s: by then this thread has taken the first jobs, f3.ts among them.
    const shared = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, startPool: crashingPools("f3.ts", { share: true, readyAfterMs: 2000 }) });
    expect(JSON.stringify(shared)).toBe(JSON.stringify(here));
    // Not shared, a worker takes f3.ts and dies on it.
    const unsharedRun = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, startPool: crashingPools("f3.ts", { readyAfterMs: 200 }) });
    expect(unsharedRun[6]?.diagnostics.map((d) => d.code)).toEqual(["worker_crashed"]);
  });

  it("answers from the cache without the pool, and sees a changed file", async () => {
    const cacheDir = path.join(dir, "cache");
    const first = await extractMany(jobs, { workers: 2, cacheDir, minFilesForPool: 1 });
    const second = await extractMany(jobs, { workers: 2, cacheDir, minFilesForPool: 1 });
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    fs.writeFileSync(path.join(dir, "f3.ts"), "export function f3(a: string): void {}\n");
    const third = await extractMany(jobs, { workers: 2, cacheDir, minFilesForPool: 1 });
    expect(third[6]?.symbols.map((s) => s.signature)).toEqual(["function f3(a: string): void"]);
    expect(third[6]?.symbols[0]?.signature_hash).not.toBe(first[6]?.symbols.find((s) => s.name === "f3")?.signature_hash);
  });

  it("stops a worker stuck on one file past its deadline, puts a fresh one in its place, and finishes the rest", async () => {
    const here = await extractMany(jobs, { workers: 1, cacheDir: null });
    // A TSX text whose parse never ends, given a parse deadline far past the worker's: the worker is stuck in it.
    const stuck: ExtractJob = { path: "x.tsx", bytes: Buffer.from("<a {{b:>c:d(e f)") };
    const list = [...jobs.slice(0, 10), stuck, ...jobs.slice(10)];
    // (a narrow pool that does not share: its thread, taking the stuck file, would be stuck itself, past the watch)
    for (const workers of [2, EXTRACT_IN_WORKERS_FROM]) {
      const startPool = (o: StartPoolOptions): ExtractPool => startExtractPool({ ...o, share: false });
      const pooled = await extractMany(list, { workers, cacheDir: dir, minFilesForPool: 1, parseLimits: { deadlineMs: 600_000, maxBytes: 2 ** 34 }, workerDeadlineMs: 500, startPool });
      expect(pooled[10]?.diagnostics.map((d) => [d.code, d.message])).toEqual([["parse_timeout", "its worker was stopped past its deadline: no symbols are read from this file"]]);
      expect(JSON.stringify([...pooled.slice(0, 10), ...pooled.slice(11)])).toBe(JSON.stringify(here));
    }
    // Nothing timed out is kept in the cache: a later run parses the file again.
    const again = await extractMany([stuck], { workers: 1, cacheDir: dir, parseLimits: { deadlineMs: 50, maxBytes: 2 ** 30 } });
    expect(again[0]?.diagnostics.map((d) => d.message)).toEqual(["the parse took longer than 50 ms and was stopped: no symbols are read from this file"]);
  });

  it("starts as many workers as the bytes to parse are worth when asked to, none for little work", async () => {
    expect(workersFor(10 * 2 ** 20, 8, 2 * 2 ** 20)).toBe(5);
    expect(workersFor(3 * 2 ** 20, 2, 2 * 2 ** 20)).toBe(1);
    expect(workersFor(0, 2, 0)).toBe(2);
    // Measured on 2 cores only: with more, a worker per core as before.
    expect(defaultMinBytesPerWorker(2)).toBe(2 ** 19);
    expect(defaultMinBytesPerWorker(8)).toBe(0);
    // A worker dies on f3.ts: a worker_crashed diagnostic says the pool ran, its absence that this thread did.
    const crashed = (rs: Awaited<ReturnType<typeof extractMany>>): boolean => rs[6]?.diagnostics.some((d) => d.code === "worker_crashed") === true;
    const bytes = jobs.reduce((n, j) => n + (fs.existsSync(j.abs ?? "") ? fs.statSync(j.abs ?? "").size : 0), 0);
    const here = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, minBytesPerWorker: Math.floor(bytes / 2) + 1, startPool: crashingPools("f3.ts") });
    expect(crashed(here)).toBe(false);
    expect(here[6]?.symbols.map((s) => s.qualified_name)).toEqual(["I3", "I3.x", "f3"]);
    expect(crashed(await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, minBytesPerWorker: Math.floor(bytes / 2), startPool: crashingPools("f3.ts") }))).toBe(true);
    // Unset, the workers asked for run, whatever the work.
    expect(crashed(await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, startPool: crashingPools("f3.ts") }))).toBe(true);
  });

  it("hands each printed line over in input order as soon as it can, cached or not, and borrows nothing it keeps", async () => {
    const expected = (await printedMany(jobs, { workers: 1, cacheDir: null })).map((line) => Buffer.concat(line).toString());
    // Every third file cached: hits wait behind misses (kept, as copies), and go out as soon as those are done, on
    // this thread and from a pool's workers.
    for (const workers of [1, 2]) {
      const cacheDir = path.join(dir, `cache-${workers}`);
      await printedMany(
        jobs.filter((_, i) => i % 3 === 0),
        { workers: 1, cacheDir },
      );
      const seen: Array<[number, string]> = [];
      await printedEach(jobs, { workers, cacheDir, minFilesForPool: 1 }, (pieces, i) => void seen.push([i, Buffer.concat(pieces).toString()]));
      expect(seen.map(([i]) => i)).toEqual(jobs.map((_, i) => i));
      expect(seen.map(([, text]) => text)).toEqual(expected);
    }
    // All cached now: each line's bytes are borrowed, and the next lookup reuses them; copies made during the call hold.
    const copies: string[] = [];
    await printedEach(jobs, { workers: 1, cacheDir: path.join(dir, "cache-2") }, (pieces) => void copies.push(Buffer.concat(pieces).toString()));
    expect(copies).toEqual(expected);
  });

  it("with a file index, prints from each folder's lines by the files' stats, without the files or the cache, and sees a change", async () => {
    const later = { now: () => Date.now() + SETTLED_MS + 1000 };
    const stamped = (): ExtractJob[] => jobs.map((j) => (fs.existsSync(j.abs ?? "") ? { ...j, stamp: fs.statSync(j.abs ?? "") } : j));
    const text = async (list: readonly ExtractJob[], options: ExtractManyOptions): Promise<string[]> => (await printedMany(list, options)).map((l) => Buffer.concat(l).toString());
    // The symbol cache's entries removed: what answers then is the folder's lines, or a new extraction.
    const dropEntries = (cacheDir: string): void => {
      for (const name of fs.readdirSync(cacheDir)) if (/^[0-9a-f]{2}$/.test(name)) fs.rmSync(path.join(cacheDir, name), { recursive: true });
    };
    // ...and the sources' folder moved away too (the jobs carry their stats; moving the folder changes none of
    // them): only the lines can answer.
    const caches = fs.mkdtempSync(path.join(os.tmpdir(), "comity-pool-caches-"));
    const linesAlone = async (cacheDir: string): Promise<string[]> => {
      const list = stamped();
      dropEntries(cacheDir);
      fs.renameSync(dir, `${dir}.away`);
      try {
        return await text(list, { workers: 1, cacheDir, fileIndex: later });
      } finally {
        fs.renameSync(`${dir}.away`, dir);
      }
    };
    const expected = await text(jobs, { workers: 1, cacheDir: null });
    // Lines made on this thread, by a pool's workers' trees, and by a wide pool's workers: each kept under the hash
    // of the bytes it was printed from.
    for (const workers of [1, 2, EXTRACT_IN_WORKERS_FROM]) {
      const cacheDir = path.join(caches, `cache-${workers}`);
      expect(await text(stamped(), { workers, cacheDir, fileIndex: later, minFilesForPool: 1 })).toEqual(expected);
      expect(fs.readdirSync(path.join(cacheDir, "lines"))).toHaveLength(1);
      expect(await linesAlone(cacheDir)).toEqual(expected);
    }
    const cacheDir = path.join(caches, "cache-1");
    // f3.ts changes, but its job carries the stat kept before: its old line answers, so the file was not read.
    const before = stamped();
    fs.writeFileSync(path.join(dir, "f3.ts"), "export function changed(): void {}\n");
    expect(await text(before, { workers: 1, cacheDir, fileIndex: later })).toEqual(expected);
    // With its real stat: read, hashed, extracted (no entry has it), and kept; the next run answers from the lines.
    const seen = await text(stamped(), { workers: 1, cacheDir, fileIndex: later });
    expect(seen[6]).toContain('"name":"changed"');
    expect(seen.filter((_, i) => i !== 6)).toEqual(expected.filter((_, i) => i !== 6));
    expect(await linesAlone(cacheDir)).toEqual(seen);
    // At the moment the files were written, they have not settled: their lines are kept by content hash only. (A
    // clock at the first file's writing, not the real one: on a busy machine the real clock passes the settling time
    // mid-test.)
    const fresh = path.join(caches, "fresh");
    const justWritten = { now: () => firstWritten() };
    expect(await text(stamped(), { workers: 1, cacheDir: fresh, fileIndex: justWritten })).toEqual(seen);
    const [file] = fs.readdirSync(path.join(fresh, "lines"));
    const head = JSON.parse(
      fs
        .readFileSync(path.join(fresh, "lines", file ?? ""))
        .toString("utf8")
        .split("\n")[0] ?? "",
    ) as { files: unknown[][] };
    expect(head.files.every((row) => row.length === 5)).toBe(true);
    dropEntries(fresh);
    expect(await text(stamped(), { workers: 1, cacheDir: fresh, fileIndex: justWritten })).toEqual(seen);
    fs.rmSync(caches, { recursive: true, force: true });
  });

  it("keeps no stat with a line printed from other bytes than the ones hashed after it (a file changed between the two reads)", async () => {
    const later = { now: () => Date.now() + SETTLED_MS + 1000 };
    const cacheDir = path.join(dir, "cache");
    const f3 = path.join(dir, "f3.ts");
    const original = fs.readFileSync(f3);
    const before = jobs.map((j) => (fs.existsSync(j.abs ?? "") ? { ...j, stamp: fs.statSync(j.abs ?? "") } : j));
    const expected = (await printedMany(jobs, { workers: 1, cacheDir: null })).map((l) => Buffer.concat(l).toString());
    // f3.ts is hashed at its lookup (the 7th), then changes before it is extracted.
    let lookups = 0;
    const room = (): null => {
      if (++lookups === 7) fs.writeFileSync(f3, "export function other(): void {}\n");
      return null;
    };
    await printedEach(before, { workers: 1, cacheDir, fileIndex: later }, () => undefined, room);
    // Back to the bytes it had at that stat: were the other bytes' line kept with it, it would answer now.
    fs.writeFileSync(f3, original);
    const lines = (await printedMany(before, { workers: 1, cacheDir, fileIndex: later })).map((l) => Buffer.concat(l).toString());
    expect(lines[6]).toBe(expected[6]);
  });

  it("with a file index, answers by each file's stat without reading it, and sees a change the stat shows", async () => {
    const cacheDir = path.join(dir, "cache");
    const later = { now: () => Date.now() + SETTLED_MS + 1000 };
    const stamped = (): ExtractJob[] => jobs.map((j) => (fs.existsSync(j.abs ?? "") ? { ...j, stamp: fs.statSync(j.abs ?? "") } : j));
    const first = await extractMany(stamped(), { workers: 1, cacheDir, fileIndex: later });
    expect(fs.readdirSync(path.join(cacheDir, "files"))).toHaveLength(1);
    // f3.ts changes, but the job carries the stat recorded before (what a change within the file system's timestamp
    // granularity could look like, were the file not settled): the index answers, so the file was not read.
    const before = stamped();
    fs.writeFileSync(path.join(dir, "f3.ts"), "export function changed(): void {}\n");
    const blind = await extractMany(before, { workers: 1, cacheDir, fileIndex: later });
    expect(blind[6]?.symbols.map((s) => s.qualified_name)).toEqual(first[6]?.symbols.map((s) => s.qualified_name));
    // With the file's real stat: read, hashed and seen; and without a file index, always.
    const seen = await extractMany(stamped(), { workers: 1, cacheDir, fileIndex: later });
    expect(seen[6]?.symbols.map((s) => s.qualified_name)).toEqual(["changed"]);
    expect((await extractMany(before, { workers: 1, cacheDir }))[6]?.symbols.map((s) => s.qualified_name)).toEqual(["changed"]);
    // At the moment the files were written, they have not settled: nothing is recorded for them.
    const fresh = path.join(dir, "fresh");
    await extractMany(stamped(), { workers: 1, cacheDir: fresh, fileIndex: { now: () => firstWritten() } });
    expect(fs.existsSync(path.join(fresh, "files"))).toBe(false);
  });
});
