/**
 * The parsing of the backend that copies trees: each language's parser, and
 * the flat copy of each tree that the extraction reads (`FlatTree`), made by
 * Comity's native parser when it is built (`native/flat_parse.c`) or by
 * web-tree-sitter. The symbol extractor uses it in its own thread; a parse
 * worker uses it alone (extract-pool.ts).
 */
import { fileURLToPath } from "node:url";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { bestFlatParserKind, loadFlatParser, type FlatParserAddon, type FlatParserKind } from "../tree-sitter/load-flat-parser.js";
import { initWebTreeSitter } from "../tree-sitter/init-web-tree-sitter.js";
import type { WasmTree } from "../tree-sitter/flatten-wasm.js";
import type { FlatTreeData } from "./flat-tree.js";
import { languageOf, type LanguageSpec } from "./languages.js";
import type { LanguageId } from "./types.js";

/** Files larger than this are skipped with a diagnostic (generated bundles, data). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * What the symbol extractor's `extract` checks before it parses: a language it has loaded, a size under the limit,
 * text and not binary. The file's text, or the one diagnostic that says why it is not parsed. A parse worker
 * ({@link createTreeParser}) checks the same, so that it parses what the extraction would.
 */
export function screen<L>(path: string, source: string | Buffer, loaded: ReadonlyMap<LanguageId, L>, maxBytes: number): { spec: LanguageSpec; lang: L; text: string } | { language: LanguageId | null; diagnostic: Diagnostic };
/**
 * `undecoded`: a text given as bytes is left undecoded when no byte of it is 0 (then none of its first 8192 characters
 * is either): the native parser decodes it itself.
 */
export function screen<L>(path: string, source: string | Buffer, loaded: ReadonlyMap<LanguageId, L>, maxBytes: number, undecoded: true): { spec: LanguageSpec; lang: L; text: string | Buffer } | { language: LanguageId | null; diagnostic: Diagnostic };
export function screen<L>(path: string, source: string | Buffer, loaded: ReadonlyMap<LanguageId, L>, maxBytes: number, undecoded = false): { spec: LanguageSpec; lang: L; text: string | Buffer } | { language: LanguageId | null; diagnostic: Diagnostic } {
  const spec = languageOf(path);
  if (spec === null) return { language: null, diagnostic: diagnostic("unsupported_language", "info", path, "no symbol extraction for this file type") };
  const lang = loaded.get(spec.id);
  if (lang === undefined) return { language: spec.id, diagnostic: diagnostic("language_not_loaded", "info", path, `${spec.id} was not loaded`) };
  const bytes = typeof source === "string" ? Buffer.byteLength(source) : source.length;
  if (bytes > maxBytes) return { language: spec.id, diagnostic: diagnostic("file_too_large", "info", path, `skipped: ${bytes} bytes is over the ${maxBytes}-byte limit`) };
  const binary = (): { language: LanguageId; diagnostic: Diagnostic } => ({ language: spec.id, diagnostic: diagnostic("binary_file", "info", path, "skipped: binary content") });
  if (typeof source !== "string" && source.subarray(0, 8192).includes(0)) return binary();
  if (undecoded && typeof source !== "string" && !source.includes(0)) return { spec, lang, text: source };
  const text = typeof source === "string" ? source : source.toString("utf8");
  if (text.slice(0, 8192).includes("\0")) return binary();
  return { spec, lang, text };
}

/** Parses files into flat copies of their trees, for another thread's extraction ({@link createTreeParser}). */
export interface TreeParser {
  /** The flat copy of the file's tree, as the extraction of it would read it; null when that extraction would not parse it (its diagnostic is made there) or the parser failed. */
  parse(path: string, source: Buffer): FlatTreeData | null;
  /**
   * For a language the native parser extracts too ({@link FlatParser.extract}): the file's symbol cache entry text (UTF-8);
   * otherwise what {@link TreeParser.parse} gives (the tree for the extraction elsewhere, or null). `printedOnly`: see
   * {@link FlatParser.extract}.
   */
  parseOrExtract(path: string, source: Buffer, printedOnly?: boolean): Uint8Array | FlatTreeData | null;
}

/**
 * The parsing alone, for a parse worker: the worker pool parses, and the thread that extracts reads the copies
 * (extract-pool.ts). Its code is small and compiles at once; the extraction's code, compiled in each thread that
 * runs it, runs in one. `kind`: who parses (the pool's thread says, so that its extraction reads trees of the
 * grammars it loaded itself).
 */
export async function createTreeParser(options: { maxFileBytes?: number; languages?: readonly LanguageId[]; kind?: FlatParserKind } = {}): Promise<TreeParser> {
  const { LANGUAGES } = await import("./languages.js");
  const parsers = await loadFlatParsers(
    LANGUAGES.filter((l) => options.languages === undefined || options.languages.includes(l.id)),
    options.kind ?? bestFlatParserKind(),
  );
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    parse(path, source) {
      const screened = screen(path, source, parsers, maxBytes);
      if ("diagnostic" in screened) return null;
      try {
        return screened.lang.parse(screened.text);
      } catch {
        return null;
      }
    },
    parseOrExtract(path, source, printedOnly = false) {
      const screened = screen(path, source, parsers, maxBytes, true);
      if ("diagnostic" in screened) return null;
      try {
        const { lang, text } = screened;
        return lang.extract === undefined ? lang.parse(typeof text === "string" ? text : text.toString("utf8")) : lang.extract(text, path, printedOnly);
      } catch {
        return null;
      }
    },
  };
}

/**
 * One language's parser into flat copies: a text's tree, copied out (web-tree-sitter's: views of this thread's
 * scratch arrays, valid until the next copy; the native parser's: a buffer of its own, in the layout of
 * `packFlatTreeData`).
 */
export interface FlatParser {
  parse(text: string): FlatTreeData;
  /**
   * The native parser with the native extraction of the language: the text's symbol
   * cache entry text (as `entryText` writes the JavaScript extraction's), or its tree when the native extraction does
   * not handle it (the caller extracts that tree). Absent where there is no native extraction. `printedOnly`: the entry
   * text's first line left empty, as `entryText`'s option does (nothing will store it).
   */
  readonly extract?: (text: string | Uint8Array, path: string, printedOnly?: boolean) => Uint8Array | FlatTreeData;
  /** The grammar's type names, which of them are named, and its field names. */
  readonly language: { readonly types: ReadonlyArray<string | undefined>; nodeTypeIsNamed(id: number): boolean; readonly fields: ReadonlyArray<string | null> };
}

/**
 * Each language's parser into flat copies, made by `kind`. The native parser falls back to web-tree-sitter when
 * it does not load, and so does a language whose native grammar it cannot use (one built for another version of
 * tree-sitter's language format): the same check in every thread, so the pool's workers and its thread agree.
 */
export async function loadFlatParsers(specs: readonly LanguageSpec[], kind: FlatParserKind): Promise<Map<LanguageId, FlatParser>> {
  const addon = kind === "native" ? loadFlatParser() : null;
  if (addon === null) return loadWasmParsers(specs);
  const { unpackFlatTreeData } = await import("./flat-tree.js");
  const out = new Map<LanguageId, FlatParser>();
  const others: LanguageSpec[] = [];
  for (const spec of specs) {
    // A grammar package's node binding: its `language` is the TSLanguage the native parser takes.
    let native: unknown;
    try {
      native = (spec.grammar() as { language?: unknown } | null)?.language;
      if (native === undefined || addon.parse(native, "") === null) throw new Error("no tree");
    } catch {
      others.push(spec);
      continue;
    }
    // The tables web-tree-sitter's `Language` makes: a name for each regular or anonymous symbol, named the regular ones.
    const info = addon.language(native);
    const types = info.names.map((name, id) => ((info.kinds[id] as number) < 2 && name !== null ? name : undefined));
    const nodeTypeIsNamed = (id: number): boolean => info.kinds[id] === 0;
    const extract = await nativeExtraction(addon, native, spec, types, nodeTypeIsNamed, info.fields);
    out.set(spec.id, {
      parse: (text) => {
        const packed = addon.parse(native, text);
        if (packed === null) throw new Error("the parser returned no tree");
        return unpackFlatTreeData(packed.byteLength / 17, packed);
      },
      ...(extract === undefined ? {} : { extract }),
      language: { types, nodeTypeIsNamed, fields: info.fields },
    });
  }
  if (others.length > 0) for (const [id, parser] of await loadWasmParsers(others)) out.set(id, parser);
  return out;
}

/**
 * The native extraction of one language (`native/extract_symbols.cc`, a port of the extraction in JavaScript that
 * gives the same entry text), with the tables and query the JavaScript extraction reads; undefined when the addon has none
 * (an older build). Set `COMITY_NATIVE_EXTRACT=0` and the JavaScript extraction does it all.
 */
async function nativeExtraction(
  addon: FlatParserAddon,
  native: unknown,
  spec: LanguageSpec,
  types: ReadonlyArray<string | undefined>,
  isNamed: (id: number) => boolean,
  fields: ReadonlyArray<string | null>,
): Promise<FlatParser["extract"]> {
  const { parseExtract, extractProgram } = addon;
  if (parseExtract === undefined || extractProgram === undefined || process.env[NATIVE_EXTRACT_ENV] === "0") return undefined;
  const [{ parseQuery }, { combinedQuery }, { namedTypes, unpackFlatTreeData }] = await Promise.all([import("./query/parse-query.js"), import("./combined-query.js"), import("./flat-tree.js")]);
  const named = namedTypes(types.length, isNamed);
  const program = extractProgram.call(addon, { language: spec.id, extractor: spec.extractor, typeNames: types, named, fieldNames: fields, patterns: parseQuery(combinedQuery(spec)), commonJs: spec.id === "javascript" });
  return (text, path, printedOnly = false) => {
    const r = parseExtract.call(addon, native, program, text, path, DECLARATION_FILE.test(path), printedOnly);
    if (r === null) throw new Error("the parser returned no tree");
    return r instanceof Uint8Array ? r : unpackFlatTreeData(r.byteLength / 17, r);
  };
}

/**
 * Whether the native parser extracts the symbols of the files it parses itself ({@link FlatParser.extract}; every
 * language has its port): a pool whose workers parse with it gets their results back, not their trees (but for a
 * file it does not handle).
 */
export function nativeExtracts(kind: FlatParserKind): boolean {
  if (kind !== "native" || process.env[NATIVE_EXTRACT_ENV] === "0") return false;
  return loadFlatParser()?.parseExtract !== undefined;
}

/** Set to `0`, the native parser's symbol extraction is not used (the JavaScript extraction reads its trees). */
export const NATIVE_EXTRACT_ENV = "COMITY_NATIVE_EXTRACT";

/** A TypeScript declaration file, whose top-level declarations are exported without `export` (extract-typescript.ts). */
export const DECLARATION_FILE = /\.d\.[cm]?ts$/i;

/** Each language's parser into flat copies, through web-tree-sitter. */
export async function loadWasmParsers(specs: readonly LanguageSpec[]): Promise<Map<LanguageId, FlatParser>> {
  const { Parser, Language } = await import("web-tree-sitter");
  const { wasmFlattener } = await import("../tree-sitter/flatten-wasm.js");
  await initWebTreeSitter(Parser);
  // The grammars load at once: each is compiled off this thread, which only waits (one after the other, four
  // grammars kept a process idle 0.2 s before its first file).
  const languages = await Promise.all(specs.map((spec) => Language.load(fileURLToPath(import.meta.resolve(spec.wasm)))));
  const out = new Map<LanguageId, FlatParser>();
  for (const [k, spec] of specs.entries()) {
    const language = languages[k] as Awaited<ReturnType<typeof Language.load>>;
    const parser = new Parser();
    parser.setLanguage(language);
    const parse = (text: string): WasmTree & { delete(): void } => {
      const tree = parser.parse(text);
      if (tree === null) throw new Error("the parser returned no tree");
      return tree as unknown as WasmTree & { delete(): void };
    };
    const sample = parse(SAMPLES[spec.extractor]);
    const { flatten } = wasmFlattener(sample);
    sample.delete();
    out.set(spec.id, {
      // The whole tree is copied out in one walk and freed at once; matching and extraction then read the copy.
      parse: (text) => {
        const tree = parse(text);
        try {
          return flatten(tree);
        } finally {
          tree.delete();
        }
      },
      language: language as unknown as FlatParser["language"],
    });
  }
  return out;
}

/** A few lines of each extractor's languages, for checking the fast walk against the public cursor once per process. */
const SAMPLES: Readonly<Record<LanguageSpec["extractor"], string>> = {
  typescript: 'export function f(a: number): string { return "x" /* c */ }\nclass A { m() {} }\nconst o = { k: 1, ...p }\nlet t = <T,>(x: T) => x\nif (a { b(\n',
  python: 'def f(a, *b, **c):\n    return "x"  # c\n\n@d\nclass A(B):\n    def m(self) -> int:\n        pass\nx = [i for i in y if i]\ndef g(:\n',
};
