import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import type { FileSymbols } from "./types.js";
import { EXTRACTOR_VERSION } from "./symbol-extractor.js";

/** Per-content cache of symbol results: an unchanged file costs a hash and a lookup. */
export interface SymbolCache {
  get(contentHash: string, language: string): Omit<FileSymbols, "path"> | null;
  set(contentHash: string, language: string, result: FileSymbols): void;
}

/**
 * A cache in a folder (`<config dir>/symbols`), one small JSON file per
 * (extractor version, language, xxhash64 of the content). Writes are atomic;
 * a corrupt entry is a miss. Past `maxEntries` the least recently written go.
 */
export function createSymbolCache(dir: string, options: { maxEntries?: number } = {}): SymbolCache {
  const maxEntries = options.maxEntries ?? 50_000;
  let pruned = false;
  const file = (hash: string, language: string): string => path.join(dir, hash.slice(0, 2), `v${EXTRACTOR_VERSION}-${language}-${hash}.json`);
  return {
    get(hash, language) {
      try {
        return JSON.parse(fs.readFileSync(file(hash, language), "utf8")) as Omit<FileSymbols, "path">;
      } catch {
        return null;
      }
    },
    set(hash, language, result) {
      try {
        const target = file(hash, language);
        fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
        const { path: _p, ...rest } = result;
        const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(rest));
        fs.renameSync(tmp, target);
        if (!pruned) {
          pruned = true;
          prune(dir, maxEntries);
        }
      } catch {
        // A cache that cannot be written is only slower.
      }
    },
  };
}

function prune(dir: string, maxEntries: number): void {
  const files: Array<{ file: string; mtimeMs: number }> = [];
  for (const sub of fs.readdirSync(dir)) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(dir, sub));
    } catch {
      continue;
    }
    for (const n of names) {
      const f = path.join(dir, sub, n);
      try {
        files.push({ file: f, mtimeMs: fs.statSync(f).mtimeMs });
      } catch {
        // gone already
      }
    }
  }
  if (files.length <= maxEntries) return;
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const f of files.slice(0, files.length - maxEntries)) fs.rmSync(f.file, { force: true });
}
