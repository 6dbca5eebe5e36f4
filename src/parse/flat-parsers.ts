/**
 * The one parse layer: each grammar's parser into flat copies of its trees (`FlatTreeData`), made by Comity's native
 * parser (`native/flat_parse.c`) where it loads, and by web-tree-sitter otherwise. Both make the same copy of the
 * same text (test/parse/flat-tree.test.ts), and both stop a parse at its limits (`parse-limits.ts`).
 */
import { fileURLToPath } from "node:url";
import { unpackFlatTreeData, type FlatTreeData } from "./flat-tree.js";
import { initWebTreeSitter, webTreeSitterModule } from "./init-web-tree-sitter.js";
import { bestFlatParserKind, loadFlatParser, type FlatParserAddon, type FlatParserKind } from "./native-parser.js";
import { defaultParseLimits, noTimeLeft, parseOverBudget, type ParseLimits } from "./parse-limits.js";
import type { WasmTree } from "./flatten-wasm.js";

/** A grammar the parse layer can load. */
export interface GrammarSpec {
  /** How its parsers are keyed. */
  readonly id: string;
  /** The grammar package's native language (its node binding's `language` is the TSLanguage the native parser takes). */
  readonly grammar: () => unknown;
  /** The grammar package's WebAssembly build (a module specifier). */
  readonly wasm: string;
  /** A few lines of the language with an error in them: web-tree-sitter's fast copy is checked against its cursor on it, once a process. */
  readonly sample: string;
}

/** A grammar's type names (by id), which of them are named, and its field names (by id; 0 is none). */
export interface FlatGrammarTables {
  readonly types: ReadonlyArray<string | undefined>;
  nodeTypeIsNamed(id: number): boolean;
  readonly fields: ReadonlyArray<string | null>;
}

/** One grammar's parser into flat copies. */
export interface FlatParser {
  /**
   * The flat copy of `text`'s tree (web-tree-sitter's: views of this thread's scratch arrays, valid until its next
   * copy; the native parser's: arrays of its own). Throws a `PARSE_TIMEOUT` ComityError past `limits` (by default
   * {@link defaultParseLimits} of the text). `text` may be the UTF-8 bytes of it, decoded as `Buffer#toString` does:
   * the native parser then reads them without a JavaScript string made of them, and the default limits are those of
   * their length, never less than the text's.
   */
  parse(text: string | Uint8Array, limits?: ParseLimits): FlatTreeData;
  readonly language: FlatGrammarTables;
  /** Who parses: the native parser, or web-tree-sitter (also for a grammar the native parser could not use). */
  readonly kind: FlatParserKind;
}

/**
 * Each grammar's parser, made by `kind` (by default the best this thread can load). The native parser falls back to
 * web-tree-sitter when it does not load, and so does a grammar it cannot use (one built for another version of
 * tree-sitter's language format): the same check in every thread, so a pool's workers and its thread agree.
 */
export async function loadFlatParsers(specs: readonly GrammarSpec[], kind: FlatParserKind = bestFlatParserKind()): Promise<Map<string, FlatParser>> {
  const addon = kind === "native" ? loadFlatParser() : null;
  if (addon === null) return loadWasmParsers(specs);
  const out = new Map<string, FlatParser>();
  const others: GrammarSpec[] = [];
  for (const spec of specs) {
    const parser = nativeParser(addon, spec);
    if (parser === null) others.push(spec);
    else out.set(spec.id, parser);
  }
  if (others.length > 0) for (const [id, parser] of await loadWasmParsers(others)) out.set(id, parser);
  return out;
}

/** A grammar's native parser; null when the grammar's native language does not load or the parser cannot use it. */
function nativeParser(addon: FlatParserAddon, spec: GrammarSpec): FlatParser | null {
  let native: unknown;
  try {
    native = (spec.grammar() as { language?: unknown } | null)?.language;
    if (native === undefined || addon.parse(native, "") === null) return null;
  } catch {
    return null;
  }
  // The tables web-tree-sitter's `Language` makes: a name for each regular or anonymous symbol, named the regular ones.
  const info = addon.language(native);
  const types = info.names.map((name, id) => ((info.kinds[id] as number) < 2 && name !== null ? name : undefined));
  return {
    kind: "native",
    parse: (text, limits = defaultParseLimits(text.length)) => {
      if (noTimeLeft(limits)) throw parseOverBudget("deadline", limits);
      let packed: ArrayBuffer | null;
      try {
        packed = addon.parse(native, text, limits.deadlineMs, limits.maxBytes, limits.cancel);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === "COMITY_PARSE_TIMEOUT") throw parseOverBudget("deadline", limits);
        if (code === "COMITY_PARSE_MEMORY") throw parseOverBudget("memory", limits);
        throw error;
      }
      if (packed === null) throw new Error("the parser returned no tree");
      return unpackFlatTreeData(packed.byteLength / 17, packed);
    },
    language: { types, nodeTypeIsNamed: (id) => info.kinds[id] === 0, fields: info.fields },
  };
}

/** Each grammar's parser into flat copies, through web-tree-sitter. */
export async function loadWasmParsers(specs: readonly GrammarSpec[]): Promise<Map<string, FlatParser>> {
  const { Parser, Language } = await import("web-tree-sitter");
  const { wasmFlattener } = await import("./flatten-wasm.js");
  await initWebTreeSitter(Parser);
  // The grammars load at once: each is compiled off this thread, which only waits (one after the other, four
  // grammars kept a process idle 0.2 s before its first file).
  const languages = await Promise.all(specs.map((spec) => Language.load(fileURLToPath(import.meta.resolve(spec.wasm)))));
  const out = new Map<string, FlatParser>();
  for (const [k, spec] of specs.entries()) {
    const language = languages[k] as Awaited<ReturnType<typeof Language.load>>;
    const parser = new Parser();
    parser.setLanguage(language);
    const parse = (text: string, limits: ParseLimits): WasmTree & { delete(): void } => {
      if (noTimeLeft(limits)) throw parseOverBudget("deadline", limits);
      // web-tree-sitter's memory only grows: what a parse may allocate is how far it grows the memory past its size
      // when the parse started (read at each call: a grown memory is a new buffer).
      const heap = (): number => (webTreeSitterModule() as { HEAPU8?: Uint8Array } | null)?.HEAPU8?.byteLength ?? 0;
      const before = heap();
      const until = performance.now() + limits.deadlineMs;
      const cancel = limits.cancel;
      let over: "deadline" | "memory" | null = null;
      const tree = parser.parse(text, null, {
        progressCallback: (() => {
          if (heap() - before > limits.maxBytes) over = "memory";
          else if (performance.now() > until || (cancel !== undefined && Atomics.load(cancel, 0) !== 0)) over = "deadline";
          return over !== null;
        }) as unknown as () => void,
      });
      if (over !== null) {
        // A cancelled parse keeps its state for resuming it; the next parse starts afresh.
        parser.reset();
        tree?.delete();
        throw parseOverBudget(over, limits);
      }
      if (tree === null) throw new Error("the parser returned no tree");
      return tree as unknown as WasmTree & { delete(): void };
    };
    const sample = parse(spec.sample, defaultParseLimits(spec.sample.length));
    const { flatten } = wasmFlattener(sample);
    sample.delete();
    out.set(spec.id, {
      kind: "wasm",
      // The whole tree is copied out in one walk and freed at once; matching and extraction then read the copy.
      parse: (text, limits = defaultParseLimits(text.length)) => {
        const tree = parse(typeof text === "string" ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString("utf8"), limits);
        try {
          return flatten(tree);
        } finally {
          tree.delete();
        }
      },
      language: language as unknown as FlatGrammarTables,
    });
  }
  return out;
}
