import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { loadFlatParsers } from "../parse/flat-parsers.js";
import type { FlatTreeData } from "../parse/flat-tree.js";
import { bestFlatParserKind, type FlatParserKind } from "../parse/native-parser.js";
import { defaultParseLimits, isParseOverBudget, parseOverBudget, type ParseLimits } from "../parse/parse-limits.js";
import { matchTree } from "../parse/query/match-query.js";
import { parseQuery } from "../parse/query/parse-query.js";
import type { QueryMatch, SyntaxNode, Tree } from "../parse/syntax.js";
import { loadContentHasher, type ContentHasher } from "../snapshot/content-hasher.js";
import { lexicalTypes, splitMatches, symbolQuery } from "./combined-query.js";
import { extractReferences } from "./extract-references.js";
import type { LanguageSpec } from "./languages.js";
import { indexLexicalRanges } from "./normalize.js";
import { extractGo } from "./go/extract-go.js";
import { extractPython } from "./python/extract-python.js";
import { finalizeSymbols, type RawSymbol } from "./raw-symbol.js";
import { extractJava } from "./java/extract-java.js";
import { extractRust } from "./rust/extract-rust.js";
import { goImportUses, javaUses, rustUses } from "./scan-imports.js";
import { DECLARATION_FILE, DEFAULT_MAX_FILE_BYTES, parseTimeoutDiagnostic, screen, TIMED_OUT } from "./tree-parser.js";
import type { FileSymbols, LanguageId } from "./types.js";
import { defaultExportName, extractTypeScript } from "./typescript/extract-typescript.js";

export { DEFAULT_MAX_FILE_BYTES } from "./tree-parser.js";

export { EXTRACTOR_VERSION } from "./extractor-version.js";

export interface SymbolExtractor {
  /**
   * Symbols and references of one file's text. Never throws: problems are diagnostics. `parsed`: a flat copy of
   * the text's tree made elsewhere (`createTreeParser`, in a parse worker), read instead of parsing here, or
   * {@link TIMED_OUT} when that parse went past its limits.
   */
  extract(path: string, source: string | Buffer, parsed?: FlatTreeData | typeof TIMED_OUT | null): FileSymbols;
  readonly hasher: ContentHasher;
}

/**
 * Who makes the flat trees the extraction reads: `flat`, the best this thread can load (Comity's native parser when
 * it is built, else web-tree-sitter); `wasm`, web-tree-sitter always.
 */
export type ParserBackend = "flat" | "wasm";

export interface SymbolExtractorOptions {
  readonly maxFileBytes?: number;
  readonly languages?: readonly LanguageId[];
  readonly backend?: ParserBackend;
  /**
   * The limits of each parse, given the text's length in UTF-16 units (by default {@link defaultParseLimits}): a
   * caller with a deadline of its own (a hook) passes what is left of it.
   */
  readonly parseLimits?: (length: number) => ParseLimits;
}

/**
 * Loads the grammars and queries of the languages it is asked for, each once, and extracts symbols from each file's
 * flat tree (the parse layer's, `src/parse/`). A language's definitions and references queries are matched as one
 * (a query's cost is mostly its walk over the tree, so one walk instead of two), and its lexical query's nodes are
 * read from the tree's arrays ({@link lexicalTypes}).
 *
 * @example
 * const extractor = await createSymbolExtractor();
 * extractor.extract("src/a.ts", "export function f(a: number) {}").symbols[0]?.qualified_name; // "f"
 */
export async function createSymbolExtractor(options: SymbolExtractorOptions = {}): Promise<SymbolExtractor> {
  const { LANGUAGES } = await import("./languages.js");
  const wanted = LANGUAGES.filter((l) => options.languages === undefined || options.languages.includes(l.id));
  const [hasher, loaded] = await Promise.all([loadContentHasher(), loadLanguages(wanted, options.backend === "wasm" ? "wasm" : bestFlatParserKind())]);
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const limitsOf = options.parseLimits ?? defaultParseLimits;
  const hash = (text: string): string => hasher.xxh64(text);
  return {
    hasher,
    extract(path, source, given) {
      const screened = screen(path, source, loaded, maxBytes);
      if ("diagnostic" in screened) return { path, language: screened.language, symbols: [], references: [], diagnostics: [screened.diagnostic] };
      const { spec, lang, text } = screened;
      const empty = (diagnostics: Diagnostic[]): FileSymbols => ({ path, language: spec.id, symbols: [], references: [], diagnostics });
      const limits = limitsOf(text.length);
      if (given === TIMED_OUT) return empty([parseTimeoutDiagnostic(path, parseOverBudget("deadline", limits).message)]);
      const diagnostics: Diagnostic[] = [];
      try {
        const { tree, matches } = lang.run(text, given ?? null, limits);
        if (tree.rootNode.hasError) diagnostics.push(parseErrorDiagnostic(path, tree.rootNode));
        const { definitions, references } = splitMatches(matches);
        const raw: RawSymbol[] =
          spec.extractor === "python"
            ? extractPython(tree, definitions)
            : spec.extractor === "go"
              ? extractGo(tree, definitions)
              : spec.extractor === "rust"
                ? extractRust(tree, definitions)
                : spec.extractor === "java"
                  ? extractJava(tree, definitions)
                  : extractTypeScript(tree, definitions, { isDeclarationFile: DECLARATION_FILE.test(path), commonJs: spec.id === "javascript" });
        const symbols = finalizeSymbols(raw, hash);
        // (Go: what a file uses of a package is each name read through it, `store.Open`, not the import alone)
        const found = extractReferences(references);
        const refs =
          spec.extractor === "go"
            ? [...found.filter((r) => r.kind !== "import"), ...goImportUses(text)]
            : spec.extractor === "rust"
              ? [...found.filter((r) => r.kind !== "import"), ...rustUses(text)]
              : spec.extractor === "java"
                ? [...found.filter((r) => r.kind !== "import"), ...javaUses(text)]
                : found;
        const base = { path, language: spec.id, symbols, references: refs, diagnostics };
        // The module's default export, when it is one of its named symbols (what `import f from "./m"` names).
        const named = spec.extractor === "typescript" ? defaultExportName(tree.rootNode) : null;
        return named !== null && symbols.some((x) => x.qualified_name === named) ? { ...base, default_export: named } : base;
      } catch (error) {
        if (isParseOverBudget(error)) return empty([parseTimeoutDiagnostic(path, error.message)]);
        return empty([...diagnostics, diagnostic("extract_failed", "warning", path, `symbol extraction failed: ${error instanceof Error ? error.message : String(error)}`)]);
      }
    },
  };
}

/** Whether a result's symbols are unreliable because its file did not parse (a syntax error, or a parse stopped at its limits). */
export function didNotParse(r: { readonly diagnostics: readonly Diagnostic[] }): boolean {
  return r.diagnostics.some((d) => d.code === "parse_error" || d.code === "parse_timeout");
}

/** One language, ready: parse a text (or read the tree given) and match its combined query. */
interface Loaded {
  run(text: string, given: FlatTreeData | null, limits: ParseLimits): { tree: Tree; matches: readonly QueryMatch[] };
}

/**
 * Each language as loaded by each kind of parser, once a thread: a daemon makes an extractor for every edit its cache
 * cannot answer, and loading a language (its grammar's tables, its query parsed) cost it more than the extraction.
 * What is kept holds no state between runs: each run parses, reads and matches its own tree, synchronously.
 */
const loadedLanguages = new Map<string, Promise<Loaded | null>>();

async function loadLanguages(specs: readonly LanguageSpec[], kind: FlatParserKind): Promise<Map<LanguageId, Loaded>> {
  const missing = specs.filter((spec) => !loadedLanguages.has(`${kind}\0${spec.id}`));
  if (missing.length > 0) {
    const batch = loadLanguagesNow(missing, kind);
    for (const spec of missing) {
      const key = `${kind}\0${spec.id}`;
      loadedLanguages.set(
        key,
        batch.then(
          (m) => m.get(spec.id) ?? null,
          (error: unknown) => {
            // (a load that failed is tried again by the next extractor, not remembered)
            loadedLanguages.delete(key);
            throw error;
          },
        ),
      );
    }
  }
  const out = new Map<LanguageId, Loaded>();
  for (const spec of specs) {
    const lang = await loadedLanguages.get(`${kind}\0${spec.id}`);
    if (lang !== null && lang !== undefined) out.set(spec.id, lang);
  }
  return out;
}

async function loadLanguagesNow(specs: readonly LanguageSpec[], kind: FlatParserKind): Promise<Map<LanguageId, Loaded>> {
  const [{ FlatAccess, FlatTree, flatLanguage }, parsers] = await Promise.all([import("../parse/flat-tree.js"), loadFlatParsers(specs, kind)]);
  const out = new Map<LanguageId, Loaded>();
  for (const spec of specs) {
    const parser = parsers.get(spec.id);
    if (parser === undefined) continue;
    const patterns = parseQuery(symbolQuery(spec));
    const lexical = lexicalTypes(spec);
    const { language } = parser;
    const flatLang = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
    out.set(spec.id, {
      run: (text, given, limits) => {
        const flat = new FlatTree(text, flatLang, given ?? parser.parse(text, limits));
        // The lexical query's matches, read from the tree's arrays (see lexicalTypes), indexed before the extraction reads them.
        indexLexicalRanges(flat, text, flat.rangesOfTypes(lexical.comment), flat.rangesOfTypes(lexical.string));
        return { tree: flat, matches: matchTree(patterns, 0, new FlatAccess(flat)) };
      },
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
