import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { loadContentHasher, type ContentHasher } from "../snapshot/content-hasher.js";
import { extractReferences } from "./extract-references.js";
import { indexLexical } from "./normalize.js";
import type { LanguageSpec } from "./languages.js";
import { extractPython } from "./python/extract-python.js";
import { finalizeSymbols, type RawSymbol } from "./raw-symbol.js";
import type { QueryMatch, SyntaxNode, Tree } from "./syntax.js";
import type { FileSymbols, LanguageId } from "./types.js";
import { extractTypeScript } from "./typescript/extract-typescript.js";
import { loadTreeSitter } from "../tree-sitter/load-native.js";
import { matchQuery, matchTree, type MatchableNode } from "./query/match-query.js";
import { parseQuery } from "./query/parse-query.js";
import { combinedQuery, splitMatches } from "./combined-query.js";
import type { FlatTreeData } from "./flat-tree.js";
import { bestFlatParserKind, type FlatParserKind } from "../tree-sitter/load-flat-parser.js";
import { DECLARATION_FILE, DEFAULT_MAX_FILE_BYTES, loadFlatParsers, screen } from "./tree-parser.js";

export { DEFAULT_MAX_FILE_BYTES } from "./tree-parser.js";

export { EXTRACTOR_VERSION } from "./extractor-version.js";

export interface SymbolExtractor {
  /**
   * Symbols and references of one file's text. Never throws: problems are diagnostics. `parsed`: a flat copy of
   * the text's tree made elsewhere (`createTreeParser`, in a parse worker), read instead of parsing here;
   * used by the backends whose extraction reads such copies ("flat", "wasm"), and ignored by the native one.
   */
  extract(path: string, source: string | Buffer, parsed?: FlatTreeData | null): FileSymbols;
  /**
   * The file's result as its symbol cache entry text (`entryText`, as UTF-8), made by the native extraction
   * (`native/extract_symbols.cc`, with the native parser); null when that extraction
   * does not handle the file (then {@link SymbolExtractor.extract} it). Absent where there is none at all.
   * `printedOnly`: the entry text's first line left empty, as `entryText`'s option does (nothing will store it).
   */
  extractText?(path: string, source: string | Buffer, printedOnly?: boolean): Uint8Array | null;
  readonly hasher: ContentHasher;
}

/**
 * Which tree-sitter runs:
 * - `native`: node's binding, asked node by node (start-up is short: a few files in a hook or CLI process);
 * - `flat`: each tree copied out whole into typed arrays (`FlatTree`), which the query matcher and the extractors
 *   read; the copies are made by Comity's native parser (`native/flat_parse.c`) when it is built, and by
 *   web-tree-sitter otherwise. Many files (the worker pool, or one thread asked for) use it: through node's
 *   binding every property of every node is a call (benchmarks/README.md);
 * - `wasm`: the same copies, always made by web-tree-sitter.
 */
export type ParserBackend = "native" | "flat" | "wasm";

/** The backend used when none is asked for. */
export const DEFAULT_BACKEND: ParserBackend = "native";

/**
 * How many files of a language the native backend matches with the engine's
 * own query matcher before it compiles tree-sitter's query (10-20 ms) for
 * the rest: the matcher takes about 1 ms a file more than a compiled query
 * once both are warm (benchmarks/README.md).
 */
const MATCHER_FILES = 8;

/** One language, ready: parse a text and run its combined query. */
interface Loaded {
  /** `given`: the text's tree, already parsed and copied (the flat backends read it instead of parsing). */
  run(text: string, given: FlatTreeData | null): { tree: Tree; matches: readonly QueryMatch[]; dispose(): void };
  /** The native parser's extraction ({@link FlatParser.extract}): the entry text, or the tree for {@link Loaded.run}. */
  readonly extract?: (text: string | Uint8Array, path: string, printedOnly?: boolean) => Uint8Array | FlatTreeData;
}

/**
 * Loads tree-sitter and the grammars and queries of the languages it is
 * asked for, each once. A language's definitions, references and lexical
 * queries are compiled as one: a query's cost is mostly its walk over the
 * tree, so one walk instead of three halves it (benchmarks/README.md).
 *
 * @example
 * const extractor = await createSymbolExtractor();
 * extractor.extract("src/a.ts", "export function f(a: number) {}").symbols[0]?.qualified_name; // "f"
 */
export async function createSymbolExtractor(
  options: { maxFileBytes?: number; languages?: readonly LanguageId[]; backend?: ParserBackend } = {},
): Promise<SymbolExtractor> {
  const hasher = await loadContentHasher();
  const { LANGUAGES } = await import("./languages.js");
  const wanted = LANGUAGES.filter((l) => options.languages === undefined || options.languages.includes(l.id));
  const backend = options.backend ?? DEFAULT_BACKEND;
  const loaded = backend === "native" ? await loadNative(wanted) : await loadFlat(wanted, backend === "wasm" ? "wasm" : bestFlatParserKind());
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const hash = (text: string): string => hasher.xxh64(text);

  const nativeText = (path: string, source: string | Buffer, printedOnly = false): Uint8Array | null => {
    const screened = screen(path, source, loaded, maxBytes, true);
    if ("diagnostic" in screened || screened.lang.extract === undefined) return null;
    try {
      const r = screened.lang.extract(screened.text, path, printedOnly);
      return r instanceof Uint8Array ? r : null;
    } catch {
      return null;
    }
  };
  const anyNative = [...loaded.values()].some((l) => l.extract !== undefined);
  return {
    hasher,
    ...(anyNative ? { extractText: nativeText } : {}),
    extract(path, source, given) {
      const screened = screen(path, source, loaded, maxBytes);
      if ("diagnostic" in screened) return { path, language: screened.language, symbols: [], references: [], diagnostics: [screened.diagnostic] };
      const { spec, lang, text } = screened;
      const empty = (language: LanguageId | null, diagnostics: Diagnostic[]): FileSymbols => ({ path, language, symbols: [], references: [], diagnostics });
      const diagnostics: Diagnostic[] = [];
      let parsed: ReturnType<Loaded["run"]> | null = null;
      try {
        parsed = lang.run(text, given ?? null);
        const { tree } = parsed;
        if (tree.rootNode.hasError) diagnostics.push(parseErrorDiagnostic(path, tree.rootNode));
        const { definitions, references, lexical } = splitMatches(parsed.matches);
        indexLexical(tree, text, lexical);
        const raw: RawSymbol[] =
          spec.extractor === "python" ? extractPython(tree, definitions) : extractTypeScript(tree, definitions, { isDeclarationFile: DECLARATION_FILE.test(path), commonJs: spec.id === "javascript" });
        return { path, language: spec.id, symbols: finalizeSymbols(raw, hash), references: extractReferences(references), diagnostics };
      } catch (error) {
        return empty(spec.id, [...diagnostics, diagnostic("extract_failed", "warning", path, `symbol extraction failed: ${error instanceof Error ? error.message : String(error)}`)]);
      } finally {
        // WASM trees live in WebAssembly memory until deleted; everything returned is plain data by now.
        parsed?.dispose();
      }
    },
  };
}

async function loadNative(specs: readonly LanguageSpec[]): Promise<Map<LanguageId, Loaded>> {
  const TreeSitter = loadTreeSitter();
  const out = new Map<LanguageId, Loaded>();
  for (const spec of specs) {
    const grammar = bareLanguage(spec.grammar()) as ConstructorParameters<typeof TreeSitter.Query>[0];
    const parser = new TreeSitter();
    parser.setLanguage(grammar);
    const source = combinedQuery(spec);
    const patterns = parseQuery(source);
    let query: InstanceType<typeof TreeSitter.Query> | null = null;
    let files = 0;
    out.set(spec.id, {
      run: (text) => {
        const tree = parser.parse(text);
        const root = tree.rootNode as unknown as MatchableNode;
        // The first few files go through the matcher, which needs no compiled query; after them the query
        // is compiled once and runs the rest, where it is faster.
        const matches = ++files <= MATCHER_FILES ? matchQuery(patterns, root) : ((query ??= new TreeSitter.Query(grammar, source)).matches(tree.rootNode) as unknown as QueryMatch[]);
        return { tree: tree as unknown as Tree, matches, dispose: () => undefined };
      },
    });
  }
  return out;
}

/**
 * The grammar's native language without its node-types table: node's
 * tree-sitter builds a class with field getters for every node type of a
 * language that has one (about 10 ms for TypeScript, in every process), and
 * the extractors use none of them. A new wrapper object, so the grammar
 * module everyone else imports is left as it is.
 */
function bareLanguage(grammar: unknown): unknown {
  const native = grammar !== null && typeof grammar === "object" ? (grammar as { language?: unknown }).language : undefined;
  return native === undefined ? grammar : { language: native };
}

async function loadFlat(specs: readonly LanguageSpec[], kind: FlatParserKind): Promise<Map<LanguageId, Loaded>> {
  // The flat copy's code loads with these backends only: the native one (a hook's few files) never needs it.
  const [{ FlatAccess, FlatTree, flatLanguage }, parsers] = await Promise.all([import("./flat-tree.js"), loadFlatParsers(specs, kind)]);
  const out = new Map<LanguageId, Loaded>();
  for (const spec of specs) {
    const parser = parsers.get(spec.id);
    if (parser === undefined) continue;
    const patterns = parseQuery(combinedQuery(spec));
    const { language } = parser;
    const flatLang = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
    out.set(spec.id, {
      run: (text, given) => {
        const flat = new FlatTree(text, flatLang, given ?? parser.parse(text));
        return { tree: flat, matches: matchTree(patterns, 0, new FlatAccess(flat)), dispose: () => undefined };
      },
      ...(parser.extract === undefined ? {} : { extract: parser.extract }),
    });
  }
  return out;
}

/** Where the first syntax error is: the file still yields the symbols of the parts that parse. */
function parseErrorDiagnostic(path: string, root: SyntaxNode): Diagnostic {
  let first: SyntaxNode | null = null;
  const find = (n: SyntaxNode): void => {
    if (first !== null || !n.hasError) return;
    if (n.type === "ERROR" || n.isMissing) {
      first = n;
      return;
    }
    for (const c of n.children) find(c);
  };
  find(root);
  const at = first === null ? "" : ` at line ${(first as SyntaxNode).startPosition.row + 1}`;
  return diagnostic("parse_error", "warning", path, `syntax error${at}: symbols come from the parts that parse`);
}
