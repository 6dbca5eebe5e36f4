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
   * The tree of `text`, packed (`byteLength / 17` nodes); null when tree-sitter made none. Throws on a language it
   * cannot use, and past `deadlineMs` or `maxBytes` of arena (0: no bound), or once another thread sets `cancel[0]`,
   * with the code `COMITY_PARSE_TIMEOUT` or `COMITY_PARSE_MEMORY`.
   */
  parse(language: unknown, text: string, deadlineMs?: number, maxBytes?: number, cancel?: Int32Array): ArrayBuffer | null;
  /** Each symbol's name and kind (0 regular, 1 anonymous, 2 auxiliary, 3 supertype), and each field's name (0: null). */
  language(language: unknown): { readonly names: readonly (string | null)[]; readonly kinds: readonly number[]; readonly fields: readonly (string | null)[] };
  /** Six numbers a path: kind (1 regular file, 0 other, -1 none), size, mtimeMs, ctimeMs, inode, device (see `src/fs/stat-many.ts`); not on Windows. */
  statMany?(paths: readonly string[]): Float64Array;
}

/** Set to `wasm`, the engine does not use its native parser (it parses with web-tree-sitter, as when it is not built). */
export const FLAT_PARSER_ENV = "COMITY_FLAT_PARSER";

/** Where `npm install` builds the native parser, from this module (dist/parse/ and src/parse/ are both two folders under the package's root). */
const ADDON = "../../native/build/Release/comity_flat_parse.node";

let loaded: FlatParserAddon | null | undefined;

/** The native parser of this thread, or null when it is not built, does not load, or `COMITY_FLAT_PARSER=wasm`. */
export function loadFlatParser(): FlatParserAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = process.env[FLAT_PARSER_ENV] === "wasm" ? null : openFlatParser().addon;
  return loaded;
}

/** The native parser, loaded now, or why it does not load (for `comity doctor`). */
export function openFlatParser(): { addon: FlatParserAddon; problem: null } | { addon: null; problem: string } {
  try {
    const addon = createRequire(import.meta.url)(ADDON) as Partial<FlatParserAddon>;
    if (typeof addon.parse === "function" && typeof addon.language === "function") return { addon: addon as FlatParserAddon, problem: null };
    return { addon: null, problem: "it loads, but is not the parser this version of Comity expects" };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { addon: null, problem: code === "MODULE_NOT_FOUND" ? "it was not built" : (error as Error).message.split("\n")[0] ?? "it does not load" };
  }
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
