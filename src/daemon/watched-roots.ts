/**
 * Whether anything changed under watched roots (in the daemon: inotify, `native/watch_tree.c`): `add` watches a
 * root and every folder under it (its id, or why not); `changed` says, at once, which roots saw a change since it
 * was last called (null: events were lost, every root must be taken as changed).
 */
export interface ChangeWatch {
  add(root: string): number | string;
  changed(): readonly number[] | null;
  /** Gives its watches back (after lost events, before a new watch is opened). */
  close?(): void;
}

/** A watched root's generation: it moves on each change seen under the root, and is never given twice. */
export interface WatchedRoots {
  /** Reads the watch at once: each root that saw a change moves to a new generation. False where there is no watch. */
  refresh(): boolean;
  /** Watches `file` (a folder, and every folder under it) from now; false where it cannot. */
  add(file: string): boolean;
  /** Every watched root and its generation now. */
  generations(): Record<string, number>;
  /**
   * The watched roots `files` lie in, with their generations now; null where one of them was not watched. Those are
   * watched from now on: what read them before cannot be trusted, what reads them next can.
   */
  generationsOf(files: readonly string[]): Map<string, number> | null;
  /** Whether every root still has the generation it had (as of the last `refresh`). */
  unchanged(gens: ReadonlyMap<string, number>): boolean;
  readonly size: number;
  /** Why nothing can be kept, or why the watch was started anew; null when all is well. */
  readonly problem: string | null;
}

/**
 * The roots the daemon watches, over one change watch (`native/watch_tree.c`). Generations come from one counter, so
 * that a generation kept from before the watch was started anew (lost events) never matches a root watched since.
 */
export function createWatchedRoots(openWatch: () => ChangeWatch | null, options: { maxRoots?: number } = {}): WatchedRoots {
  const maxRoots = options.maxRoots ?? 256;
  let watch: ChangeWatch | null | undefined;
  let problem: string | null = null;
  let roots = new Map<string, { id: number; gen: number }>();
  let counter = 0;
  /** The watched root `file` lies in (or is), with its generation now; null where none is watched. */
  const cover = (file: string): { readonly root: string; readonly gen: number } | null => {
    for (const [root, r] of roots) if (file === root || file.startsWith(root.endsWith("/") ? root : `${root}/`)) return { root, gen: r.gen };
    return null;
  };
  const self: WatchedRoots = {
    refresh() {
      if (watch === undefined) {
        watch = openWatch();
        if (watch === null) problem = "no change watch on this platform (Linux with the native addon)";
      }
      if (watch === null) return false;
      const changed = watch.changed();
      if (changed === null) {
        problem = "the change queue overflowed: the watch was started anew";
        watch.close?.();
        watch = undefined;
        roots = new Map();
        return false;
      }
      const ids = new Set(changed);
      for (const r of roots.values()) if (ids.has(r.id)) r.gen = ++counter;
      return true;
    },
    add(file) {
      if (watch === null || watch === undefined || roots.size >= maxRoots) return false;
      const id = watch.add(file);
      if (typeof id !== "number") {
        problem = `${file} cannot be watched: ${id}`;
        return false;
      }
      roots.set(file, { id, gen: ++counter });
      return true;
    },
    generations: () => Object.fromEntries([...roots].map(([root, r]) => [root, r.gen])),
    generationsOf(files) {
      const gens = new Map<string, number>();
      let complete = true;
      for (const file of [...new Set(files)].sort()) {
        const covered = cover(file);
        if (covered !== null) gens.set(covered.root, covered.gen);
        else {
          complete = false;
          self.add(file);
        }
      }
      return complete ? gens : null;
    },
    unchanged: (gens) => [...gens].every(([root, gen]) => roots.get(root)?.gen === gen),
    get size() {
      return roots.size;
    },
    get problem() {
      return problem;
    },
  };
  return self;
}
