import * as fs from "node:fs";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import type { Diagnostic } from "../errors/diagnostic.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import { EXTRACTOR_VERSION } from "../symbols/extractor-version.js";
import type { ReferenceRecord } from "../symbols/types.js";

/** Bump when what a changed file's analysis holds, or how it is compared, changes. */
const MEMO_VERSION = 1;

/** A changed file's analysis, as `comity analyze` reports it, and what it was computed from. */
export interface MemoEntry {
  /** Blob id of the compared (old) version; null when the file is new. */
  readonly base: string | null;
  /** Blob id of the working version; null when the file is deleted. */
  readonly after: string | null;
  readonly symbols: readonly SymbolChange[];
  readonly new_references: readonly ReferenceRecord[];
  /** The working version's extraction diagnostics, paths relative to the repo. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The analyses of one repo's changed files from the last `comity analyze`,
 * by path: a file whose old and working versions have the same blob ids as
 * then is not looked up in the symbol cache or compared again (a second run
 * of an unchanged workspace reads one file here instead of two cache entries
 * a changed file). Only the current changes are kept, so it never grows past
 * them; a corrupt or older file is empty.
 */
export interface ChangeMemo {
  get(path: string, base: string | null, after: string | null): MemoEntry | null;
  /** The entries of this run, replacing the last run's; written by `save` only if they differ. */
  set(path: string, entry: MemoEntry): void;
  save(): void;
}

type Stored = { v: number; x: string; entries: Record<string, MemoEntry> };

export function loadChangeMemo(file: string): ChangeMemo {
  let last: Record<string, MemoEntry> = {};
  try {
    const stored = JSON.parse(fs.readFileSync(file, "utf8")) as Stored;
    if (stored.v === MEMO_VERSION && stored.x === EXTRACTOR_VERSION && typeof stored.entries === "object" && stored.entries !== null) last = stored.entries;
  } catch {
    // none yet, or unreadable: every file is analysed
  }
  const next: Record<string, MemoEntry> = {};
  let reused = 0;
  return {
    get(p, base, after) {
      const e = Object.hasOwn(last, p) ? last[p] : undefined;
      if (e === undefined || e.base !== base || e.after !== after) return null;
      reused++;
      return e;
    },
    set(p, entry) {
      next[p] = entry;
    },
    save() {
      if (reused === Object.keys(next).length && reused === Object.keys(last).length) return; // all reused: the file is up to date
      try {
        writeFileAtomic(file, JSON.stringify({ v: MEMO_VERSION, x: EXTRACTOR_VERSION, entries: next } satisfies Stored));
      } catch {
        // A memo that cannot be written is only slower.
      }
    },
  };
}
