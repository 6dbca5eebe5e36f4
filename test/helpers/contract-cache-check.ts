import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, vi } from "vitest";
import type { ContractCache } from "../../src/contracts/contract-cache.js";
import type { ContractAnalysis } from "../../src/contracts/contract-files.js";

/**
 * Checks that a version before taken from the contract cache gives each pair the analysis of one read anew, and is
 * never parsed again: the cache is filled by one module instance and read by a fresh one (nothing of the first
 * version left in memory), with the parser's entry point (`spyOn(parsers)`) watched.
 */
export async function expectCachedBeforeEqualsFresh(
  file: string,
  pairs: ReadonlyArray<readonly [name: string, before: string, after: string]>,
  hash: (s: string) => string,
  parserEntry: (parsers: typeof import("../../src/contracts/parsers.js")) => { object: object; method: string },
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-contract-cache-"));
  try {
    const first = await import("../../src/contracts/contract-files.js");
    const fresh = pairs.map(([, b, a]) => first.analyzeContract(file, Buffer.from(b), Buffer.from(a), hash));
    const { createContractCache } = await import("../../src/contracts/contract-cache.js");
    for (const b of new Set(pairs.map(([, b]) => b))) first.analyzeContract(file, Buffer.from(b), Buffer.from(b), hash, { beforeCache: createContractCache(dir) });
    expect(fs.readdirSync(dir).length).toBe(new Set(pairs.map(([, b]) => b)).size);
    vi.resetModules();
    const second = await import("../../src/contracts/contract-files.js");
    const { object, method } = parserEntry(await import("../../src/contracts/parsers.js"));
    // (the cache's module anew too: it keeps the entries it wrote in memory, and these must come from the disk)
    const disk = (await import("../../src/contracts/contract-cache.js")).createContractCache(dir);
    let hits = 0;
    const counting: ContractCache = {
      get: (kind, key) => {
        const v = disk.get(kind, key);
        if (v !== null) hits++;
        return v;
      },
      set: disk.set,
    };
    const seen = vi.spyOn(object as Record<string, (...args: unknown[]) => unknown>, method);
    let parses = 0;
    try {
      pairs.forEach(([name, b, a], i) => {
        seen.mockClear();
        const r: ContractAnalysis | null = second.analyzeContract(file, Buffer.from(b), Buffer.from(a), hash, { beforeCache: counting });
        expect(r, name).toEqual(fresh[i]);
        parses += seen.mock.calls.length;
        // (the version after is parsed, with its positions, even where its text is the one kept)
        if (a !== b)
          expect(
            seen.mock.calls.filter(([text]) => text === b),
            name,
          ).toEqual([]);
      });
    } finally {
      seen.mockRestore();
    }
    expect(parses).toBeGreaterThanOrEqual(pairs.filter(([, b, a]) => a !== b).length / 2);
    expect(hits).toBe(pairs.length);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
