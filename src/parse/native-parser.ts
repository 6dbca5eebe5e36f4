import { createRequire } from "node:module";

/**
 * Comity's native parser (`native/flat_parse.c`, built by `npm ci` through
 * `scripts/build-native.mjs`): tree-sitter's runtime parsing a text with a
 * grammar package's native language, and returning the whole tree as one
 * flat copy in the layout of `packFlatTreeData` (src/parse/flat-tree.ts),
 * positions in UTF-16 code units. Its copies are the ones the WASM backend
 * makes from the same text (the same tree-sitter version and grammars;
 * test/parse/flat-tree.test.ts holds them equal), made in one native call
 * each, with no node crossing the binding.
 */
export interface FlatParserAddon {
  /**
   * The tree of `text` (a string, or its UTF-8 bytes, decoded as `Buffer#toString` does), packed (`byteLength / 17`
   * nodes); null when tree-sitter made none. Throws on a language it cannot use, and past `deadlineMs` or `maxBytes` of
   * arena (0: no bound), or once another thread sets `cancel[0]`, with the code `COMITY_PARSE_TIMEOUT` or
   * `COMITY_PARSE_MEMORY`.
   */
  parse(language: unknown, text: string | Uint8Array, deadlineMs?: number, maxBytes?: number, cancel?: Int32Array): ArrayBuffer | null;
  /**
   * Each symbol's name and kind (0 regular, 1 anonymous, 2 auxiliary, 3 supertype), each field's name (0: null), and
   * whether the process's parses of it now read its dense parse table (made after a few parses; not on Windows).
   */
  language(language: unknown): { readonly names: readonly (string | null)[]; readonly kinds: readonly number[]; readonly fields: readonly (string | null)[]; readonly dense: boolean };
  /**
   * Six numbers a path: kind (1 regular file, 0 other, -1 none), size, mtimeMs, ctimeMs, inode, device (see
   * `src/fs/stat-many.ts`); null where the system refuses the call it makes (statx in a sandbox). Not on Windows.
   */
  statMany?(paths: readonly string[]): Float64Array | null;
  /**
   * Change watches (`native/watch_tree.c`, Linux only): a handle watching at most `maxFolders` folders (null where
   * inotify cannot be had); a root added under it, with every folder below it (its id, or why it cannot be watched,
   * nothing of it kept); the ids of the roots that saw a change since the last call, read at once (null after the
   * queue overflowed: every root changed, open a new handle); the handle closed, its watches given back.
   */
  watchOpen?(maxFolders: number): unknown;
  watchAdd?(handle: unknown, root: string): number | string;
  watchChanged?(handle: unknown): number[] | null;
  watchClose?(handle: unknown): void;
  /**
   * A program's stdout where it exits 0, else null; started with posix_spawn (`native/spawn_capture.c`) in a process
   * group of its own, which is killed past `timeoutMs` (then null too). Not on Windows.
   */
  spawnCapture?(file: string, args: readonly string[], env: readonly string[], timeoutMs?: number): Buffer | null;
}

/** Set to `wasm`, the engine does not use its native parser (it parses with web-tree-sitter, as when it is not built). */
export const FLAT_PARSER_ENV = "COMITY_FLAT_PARSER";

/**
 * Where the native parser may be, from this module (dist/parse/ and src/parse/ are both two folders under the
 * package's root): built from source by `npm install` (made for this machine, so first), else the prebuilt one the
 * package ships for this platform (`scripts/prebuild-native.mjs`).
 */
export const ADDON_PATHS = ["../../native/build/Release/comity_flat_parse.node", `../../native/prebuilds/${process.platform}-${process.arch}/comity_flat_parse.node`] as const;

/**
 * An absolute path to a build of the native addon to load instead of the two above: the sanitizer build that
 * `scripts/native-sanitizers.mjs` makes and runs the native tests with (it needs its runtime preloaded).
 */
export const NATIVE_ADDON_ENV = "COMITY_NATIVE_ADDON";

let loaded: FlatParserAddon | null | undefined;

/** The native parser of this thread, or null when it is not built, does not load, or `COMITY_FLAT_PARSER=wasm`. */
export function loadFlatParser(): FlatParserAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = process.env[FLAT_PARSER_ENV] === "wasm" ? null : openFlatParser().addon;
  return loaded;
}

/** The native parser, loaded now, and whether it is a source build or the prebuilt one; or why none loads (for `comity doctor`). */
export function openFlatParser(): { addon: FlatParserAddon; problem: null; origin: "source" | "prebuilt" } | { addon: null; problem: string } {
  const require = createRequire(import.meta.url);
  const problems: string[] = [];
  const given = process.env[NATIVE_ADDON_ENV];
  for (const [i, file] of (given !== undefined && given !== "" ? [given] : ADDON_PATHS).entries()) {
    try {
      const addon = require(file) as Partial<FlatParserAddon>;
      if (typeof addon.parse === "function" && typeof addon.language === "function") return { addon: addon as FlatParserAddon, problem: null, origin: i === 0 ? "source" : "prebuilt" };
      problems.push(`${i === 0 ? "the source build" : "the prebuilt one"} loads, but is not the parser this version of Comity expects`);
    } catch (error) {
      // Not there is the usual case for one of the two; a file that is there and does not load (another libc) is news.
      if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND")
        problems.push(`${i === 0 ? "the source build" : `the prebuilt one for ${process.platform}-${process.arch}`} does not load: ${(error as Error).message.split("\n")[0] ?? ""}`);
    }
  }
  return { addon: null, problem: problems.length > 0 ? problems.join("; ") : `it was not built, and none is prebuilt for ${process.platform}-${process.arch}` };
}

/**
 * Who makes the flat copies the extraction reads: Comity's native parser (tree-sitter's runtime called once a
 * file) or web-tree-sitter. Both make the same copy of the same text.
 */
export type FlatParserKind = "native" | "wasm";

/** The faster maker of flat copies this thread can load: the native parser when it is built, else web-tree-sitter. */
export function bestFlatParserKind(): FlatParserKind {
  return loadFlatParser() === null ? "wasm" : "native";
}
