import type { AnalyzeAnswer, AnalyzeCall, AnalyzeStoreCall, AnalyzeToken } from "./daemon-wire.js";

/**
 * Whether anything changed under watched roots (in the daemon: inotify, `native/watch_tree.c`): `add` watches a
 * root and every folder under it (its id, or why not); `changed` says, at once, which roots saw a change since it
 * was last called (null: events were lost, every root must be taken as changed).
 */
export interface ChangeWatch {
  add(root: string): number | string;
  changed(): readonly number[] | null;
}

export interface AnalyzeCacheOptions {
  /** A new watch, or null where none can be had (not Linux, no native addon): then nothing is ever cached. */
  readonly openWatch: () => ChangeWatch | null;
  /** At most this many answers kept (the least recently used go first). */
  readonly maxEntries?: number;
  /** At most this many bytes of answers kept. */
  readonly maxBytes?: number;
  /** At most this many roots watched. */
  readonly maxRoots?: number;
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
  const maxEntries = options.maxEntries ?? 32;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxRoots = options.maxRoots ?? 64;
  let watch: ChangeWatch | null | undefined;
  let problem: string | null = null;
  /** Watched roots by path: id and generation. */
  let roots = new Map<string, { id: number; gen: number }>();
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
  /** Reads the watch: each root that changed moves to its next generation. False where there is no watch. */
  const refresh = (): boolean => {
    if (watch === undefined) {
      watch = options.openWatch();
      if (watch === null) problem = "no change watch on this platform (Linux with the native addon)";
    }
    if (watch === null) return false;
    const changed = watch.changed();
    if (changed === null) {
      // Events were lost: nothing kept can be trusted, and the next question starts over with a new watch.
      problem = "the change queue overflowed: the watch was started anew";
      watch = undefined;
      roots = new Map();
      for (const key of [...entries.keys()]) drop(key);
      return false;
    }
    const ids = new Set(changed);
    for (const r of roots.values()) if (ids.has(r.id)) r.gen++;
    return true;
  };
  /** The watched root `file` lies in, or null. */
  const rootOf = (file: string): string | null => {
    for (const root of roots.keys()) if (file === root || file.startsWith(root.endsWith("/") ? root : `${root}/`)) return root;
    return null;
  };

  return {
    query(call) {
      const watching = refresh();
      const e = entries.get(call.key);
      if (e !== undefined && [...e.gens].every(([root, gen]) => roots.get(root)?.gen === gen)) {
        // Most recently used last.
        entries.delete(call.key);
        entries.set(call.key, e);
        hits++;
        return { kind: "analyze", stdout: e.stdout, code: e.code };
      }
      drop(call.key);
      misses++;
      const token: AnalyzeToken | null = watching ? Object.fromEntries([...roots].map(([root, r]) => [root, r.gen])) : null;
      return { kind: "analyze-miss", token };
    },
    store(call) {
      if (!refresh() || call.token === null) return { kind: "stored", stored: false };
      const gens = new Map<string, number>();
      let complete = true;
      for (const file of [...new Set(call.roots)].sort()) {
        const root = rootOf(file);
        if (root === null) {
          // Read by this run but not watched before it: watched from now, kept from the next run on.
          complete = false;
          if (roots.size >= maxRoots || watch === null || watch === undefined) continue;
          const id = watch.add(file);
          if (typeof id === "number") roots.set(file, { id, gen: 0 });
          else problem = `${file} cannot be watched: ${id}`;
          continue;
        }
        const then = call.token[root];
        // Watched since before the run, and unchanged since: else the answer may be older than the tree.
        if (then === undefined || roots.get(root)?.gen !== then) complete = false;
        else gens.set(root, then);
      }
      if (!complete || call.stdout.length > maxBytes) return { kind: "stored", stored: false };
      drop(call.key);
      entries.set(call.key, { stdout: call.stdout, code: call.code, gens });
      bytes += call.stdout.length;
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        drop(key);
      }
      return { kind: "stored", stored: true };
    },
    stats: () => ({ hits, misses, entries: entries.size, roots: roots.size, problem }),
  };
}
