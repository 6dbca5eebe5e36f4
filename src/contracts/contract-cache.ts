import * as fs from "node:fs";
import * as path from "node:path";
import { KEEP } from "../config/config-layout.js";
import type { Diagnostic } from "../errors/diagnostic.js";
import { pruneFolder } from "../fs/prune-folder.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { EXTRACTOR_VERSION } from "../symbols/extractor-version.js";
import type { ContractKind, SymbolRecord } from "../symbols/types.js";

/**
 * One version of a contract as read: its symbols and diagnostics, and what comparing it needs besides them as
 * JSON data (an OpenAPI document's data, a `.proto` file's facts; a GraphQL schema is compared on its text). A version read from git never changes: an edit's "before" is HEAD's
 * blob, edit after edit, and reading it again is what made a hook on a large OpenAPI document slow.
 */
export interface CachedContract {
  readonly symbols: readonly SymbolRecord[];
  readonly diagnostics: readonly Diagnostic[];
  readonly data?: unknown;
}

/** Contract versions by kind and content hash (`contractVersions`); a miss, a corrupt or an older entry is null. */
export interface ContractCache {
  get(kind: ContractKind, contentHash: string): CachedContract | null;
  set(kind: ContractKind, contentHash: string, value: CachedContract): void;
}

/**
 * A cache in a folder, one JSON file per (extraction fingerprint, kind, content hash), at most `maxEntries` of them,
 * the least recently written going first (contracts are few in a workspace, and large). Failing to write is not
 * an error: the next read computes the version again.
 */
export function createContractCache(dir: string, options: { maxEntries?: number } = {}): ContractCache {
  const maxEntries = options.maxEntries ?? KEEP.contractEntries;
  const file = (kind: ContractKind, hash: string): string => path.join(dir, `v${EXTRACTOR_VERSION}-${kind}-${hash.replace(/[^0-9a-zA-Z]/g, "")}.json`);
  return {
    get(kind, hash) {
      const at = file(kind, hash);
      const kept = recent.get(at);
      if (kept !== undefined) {
        keepRecent(at, kept);
        return kept;
      }
      let text: string;
      try {
        text = fs.readFileSync(at, "utf8");
      } catch {
        return null;
      }
      try {
        const v = JSON.parse(text) as Partial<CachedContract>;
        if (!Array.isArray(v.symbols) || !Array.isArray(v.diagnostics)) return null;
        keepRecent(at, v as CachedContract);
        return v as CachedContract;
      } catch {
        return null;
      }
    },
    set(kind, hash, value) {
      try {
        const target = file(kind, hash);
        writeFileAtomic(target, JSON.stringify(value));
        keepRecent(target, value);
        pruneFolder(dir, maxEntries, target);
      } catch {
        // (a cache: the version is read again next time)
      }
    },
  };
}

/**
 * The entries this process read or wrote last, by file: an entry is named by its content, so what a file held once
 * it holds for good. A daemon answers edit after edit of one contract against the same HEAD version, and reading
 * that entry again (a large JSON file) was a tenth of such an event.
 */
const recent = new Map<string, CachedContract>();
const RECENT_ENTRIES = 8;

function keepRecent(file: string, value: CachedContract): void {
  recent.delete(file);
  recent.set(file, value);
  if (recent.size > RECENT_ENTRIES) recent.delete(recent.keys().next().value as string);
}
