import { openFlatParser } from "../parse/native-parser.js";
import type { ChangeWatch } from "./analyze-cache.js";

/**
 * A change watch on the native addon's inotify (`native/watch_tree.c`), or null where there is none: not Linux, the
 * addon not built, or inotify refused (no instances left).
 */
export function nativeChangeWatch(): ChangeWatch | null {
  const addon = openFlatParser().addon;
  if (addon?.watchOpen === undefined || addon.watchAdd === undefined || addon.watchChanged === undefined) return null;
  const handle = addon.watchOpen();
  if (handle === null) return null;
  const { watchAdd, watchChanged } = addon;
  return { add: (root) => watchAdd(handle, root), changed: () => watchChanged(handle) };
}
