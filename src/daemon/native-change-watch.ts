import * as fs from "node:fs";
import { openFlatParser } from "../parse/native-parser.js";
import type { ChangeWatch } from "./watched-roots.js";

/**
 * A change watch on the native addon's inotify (`native/watch_tree.c`), or null where there is none: not Linux, the
 * addon not built, or inotify refused (no instances left). It watches at most a quarter of the user's inotify
 * watches (`fs.inotify.max_user_watches`), which their editor and build tools share, and at most 50,000 folders (the
 * daemon's thread reads a tree's folders when it adds it, and must not be held for long): a tree with more folders is
 * not watched, and the daemon works on it as without a watch.
 */
export function nativeChangeWatch(): ChangeWatch | null {
  const addon = openFlatParser().addon;
  if (addon?.watchOpen === undefined || addon.watchAdd === undefined || addon.watchChanged === undefined || addon.watchClose === undefined) return null;
  const handle = addon.watchOpen(folderBudget());
  if (handle === null) return null;
  const { watchAdd, watchChanged, watchClose } = addon;
  return { add: (root) => watchAdd(handle, root), changed: () => watchChanged(handle), close: () => watchClose(handle) };
}

/** A quarter of the user's inotify watches, between 1,000 and 50,000. */
function folderBudget(): number {
  let max = 8192;
  try {
    max = Number.parseInt(fs.readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"), 10) || max;
  } catch {
    // the kernel's oldest default
  }
  return Math.min(50_000, Math.max(1000, Math.floor(max / 4)));
}
