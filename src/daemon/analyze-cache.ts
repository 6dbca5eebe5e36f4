import type { AnalyzeAnswer, AnalyzeCall, AnalyzeStoreCall } from "./daemon-wire.js";
import type { WatchedRoots } from "./watched-roots.js";

export interface AnalyzeCacheOptions {
  /** The roots the daemon watches (shared with its other caches). */
  readonly roots: WatchedRoots;
  /** At most this many answers kept (the least recently used go first). */
  readonly maxEntries?: number;
  /** At most this many bytes of answers kept. */
  readonly maxBytes?: number;
}

export interface AnalyzeCache {
  /** A warm answer, or a miss with the token the cold run's answer must be stored with. */
  query(call: AnalyzeCall): AnalyzeAnswer;
  /** Keeps a cold run's answer, where nothing it depends on can have changed unseen since its token. */
  store(call: AnalyzeStoreCall): AnalyzeAnswer;
  stats(): { readonly hits: number; readonly misses: number; readonly entries: number; readonly roots: number; readonly problem: string | null };
}

interface Entry {
  readonly stdout: string;
  readonly code: number;
  /** Each root the answer depends on, and its generation when the answer was made. */
  readonly gens: ReadonlyMap<string, number>;
}

/**
 * `comity analyze` answered from memory: an answer is kept with the generations of the roots it read (the folder
 * analysed, and its repos' git folders where they lie outside it), and given again while none of them saw a change.
 * The daemon asks its watch at once at each question, so a change finished before the question is always seen
 * (`native/watch_tree.c` says why that needs no delay). A root is watched from the first cold run that reads it, and
 * an answer is kept only where every root it read was watched before that run began: so the third run of a folder
 * is the first warm one. Pure but for the watch it is given.
 */
export function createAnalyzeCache(options: AnalyzeCacheOptions): AnalyzeCache {
  const { roots } = options;
  const maxEntries = options.maxEntries ?? 32;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const drop = (key: string): void => {
    const e = entries.get(key);
    if (e === undefined) return;
    bytes -= e.stdout.length;
    entries.delete(key);
  };

  return {
    query(call) {
      const watching = roots.refresh();
      const e = entries.get(call.key);
      if (watching && e !== undefined && roots.unchanged(e.gens)) {
        // Most recently used last.
        entries.delete(call.key);
        entries.set(call.key, e);
        hits++;
        return { kind: "analyze", stdout: e.stdout, code: e.code };
      }
      drop(call.key);
      misses++;
      return { kind: "analyze-miss", token: watching ? roots.generations() : null };
    },
    store(call) {
      const token = call.token;
      if (!roots.refresh() || token === null) return { kind: "stored", stored: false };
      // Each root the run read, watched since before it began (else watched from now, kept from the next run on) and
      // unchanged since: else the answer may be older than the tree.
      const gens = roots.generationsOf(call.roots);
      if (gens === null || [...gens].some(([root, gen]) => token[root] !== gen) || call.stdout.length > maxBytes) return { kind: "stored", stored: false };
      drop(call.key);
      entries.set(call.key, { stdout: call.stdout, code: call.code, gens });
      bytes += call.stdout.length;
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        drop(key);
      }
      return { kind: "stored", stored: true };
    },
    stats: () => ({ hits, misses, entries: entries.size, roots: roots.size, problem: roots.problem }),
  };
}
