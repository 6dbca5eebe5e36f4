import * as fs from "node:fs";

type EmbeddedStore = import("../coordination/embedded-store.js").EmbeddedStore;

/**
 * Embedded stores a long-lived process (`comity daemon`) keeps open between events, by file: opening SQLite and
 * reading its schema is a good part of a warm event. Each event is still one transaction, so hooks in other
 * processes share the file as before; a file replaced under it (moved aside as unusable by another process) is
 * opened anew.
 */
export interface KeptStores {
  /** The store kept for `file`, or the one `open` opens (kept once it opens). */
  open(file: string, open: () => Promise<EmbeddedStore>): Promise<EmbeddedStore>;
  /** Whether `store` is the one kept for `file` (then an event leaves it open). */
  keeps(file: string, store: Promise<EmbeddedStore>): boolean;
  /** Stops keeping `file`'s store (a request failed on it: the next event opens it anew). */
  drop(file: string): void;
  /** Closes every store kept (a process that ends). */
  close(): Promise<void>;
}

function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}

export function createKeptStores(): KeptStores {
  const kept = new Map<string, { readonly store: Promise<EmbeddedStore>; readonly inode: number | null }>();
  return {
    open(file, open) {
      const have = kept.get(file);
      if (have !== undefined && have.inode !== null && have.inode === inodeOf(file)) return have.store;
      if (have !== undefined) void have.store.then((s) => s.close()).catch(() => undefined);
      kept.delete(file);
      const opening = open();
      void opening.then(
        () => kept.set(file, { store: opening, inode: inodeOf(file) }),
        () => undefined,
      );
      return opening;
    },
    keeps: (file, store) => kept.get(file)?.store === store,
    drop: (file) => void kept.delete(file),
    async close() {
      const all = [...kept.values()];
      kept.clear();
      await Promise.all(all.map((k) => k.store.then((s) => s.close()).catch(() => undefined)));
    },
  };
}
