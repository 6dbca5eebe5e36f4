import * as fs from "node:fs";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import type { GitFactsCache } from "./load-git-config.js";

/** At most this many facts are kept (a machine has a few gits). */
const MAX_FACTS = 32;

/**
 * What git binaries said about themselves, kept in a small JSON file (`<config dir>/git-facts.json`): read once, at
 * the first question, and written when a fact is learnt. A file that cannot be read or written is no cache, never
 * an error.
 */
export function gitFactsFile(file: string): GitFactsCache {
  let facts: Record<string, string> | null = null;
  const load = (): Record<string, string> => {
    if (facts !== null) return facts;
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
      facts = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string")) : {};
    } catch {
      facts = {};
    }
    return facts;
  };
  return {
    get: (key) => load()[key] ?? null,
    set: (key, value) => {
      const next = Object.fromEntries([...Object.entries(load()).filter(([k]) => k !== key), [key, value]].slice(-MAX_FACTS));
      facts = next;
      try {
        writeFileAtomic(file, `${JSON.stringify(next)}\n`);
      } catch {
        // (unwritable: asked again next time)
      }
    },
  };
}
