import { existsSync, readFileSync } from "node:fs";
import type Parser from "tree-sitter";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { loadContentHasher, type ContentHasher } from "../snapshot/content-hasher.js";
import { extractReferences } from "./extract-references.js";
import { indexLexical } from "./normalize.js";
import { languageOf, type LanguageSpec } from "./languages.js";
import { extractPython } from "./python/extract-python.js";
import { finalizeSymbols, type RawSymbol } from "./raw-symbol.js";
import type { FileSymbols, LanguageId } from "./types.js";
import { extractTypeScript } from "./typescript/extract-typescript.js";

/** Files larger than this are skipped with a diagnostic (generated bundles, data). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Bump when extraction changes what it reports: cached results of older versions are not reused. */
export const EXTRACTOR_VERSION = 1;

export interface SymbolExtractor {
  /** Symbols and references of one file's text. Never throws: problems are diagnostics. */
  extract(path: string, source: string | Buffer): FileSymbols;
  readonly hasher: ContentHasher;
}

interface Loaded {
  readonly parser: Parser;
  readonly definitions: Parser.Query;
  readonly references: Parser.Query;
  readonly lexical: Parser.Query;
}

/**
 * Loads tree-sitter (the native binding: see benchmarks/README.md for why)
 * and the grammars and queries of the languages it is asked for, each once.
 *
 * @example
 * const extractor = await createSymbolExtractor();
 * extractor.extract("src/a.ts", "export function f(a: number) {}").symbols[0]?.qualified_name; // "f"
 */
export async function createSymbolExtractor(options: { maxFileBytes?: number; languages?: readonly LanguageId[] } = {}): Promise<SymbolExtractor> {
  const hasher = await loadContentHasher();
  const { default: TreeSitter } = await import("tree-sitter");
  const loaded = new Map<LanguageId, Loaded>();
  const { LANGUAGES } = await import("./languages.js");
  const wanted = LANGUAGES.filter((l) => options.languages === undefined || options.languages.includes(l.id));
  for (const spec of wanted) {
    const grammar = (await spec.grammar()) as Parser.Language;
    const parser = new TreeSitter();
    parser.setLanguage(grammar);
    loaded.set(spec.id, {
      parser,
      definitions: new TreeSitter.Query(grammar, readQuery(spec, "definitions")),
      references: new TreeSitter.Query(grammar, readQuery(spec, "references")),
      lexical: new TreeSitter.Query(grammar, readQuery(spec, "lexical")),
    });
  }
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const hash = (text: string): string => hasher.xxh64(text);

  return {
    hasher,
    extract(path, source) {
      const spec = languageOf(path);
      const empty = (language: LanguageId | null, diagnostics: Diagnostic[]): FileSymbols => ({ path, language, symbols: [], references: [], diagnostics });
      if (spec === null) return empty(null, [diagnostic("unsupported_language", "info", path, "no symbol extraction for this file type")]);
      const lang = loaded.get(spec.id);
      if (lang === undefined) return empty(spec.id, [diagnostic("language_not_loaded", "info", path, `${spec.id} was not loaded`)]);
      const bytes = typeof source === "string" ? Buffer.byteLength(source) : source.length;
      if (bytes > maxBytes) return empty(spec.id, [diagnostic("file_too_large", "info", path, `skipped: ${bytes} bytes is over the ${maxBytes}-byte limit`)]);
      if (typeof source !== "string" && source.subarray(0, 8192).includes(0)) return empty(spec.id, [diagnostic("binary_file", "info", path, "skipped: binary content")]);
      const text = typeof source === "string" ? source : source.toString("utf8");
      if (text.slice(0, 8192).includes("\0")) return empty(spec.id, [diagnostic("binary_file", "info", path, "skipped: binary content")]);
      const diagnostics: Diagnostic[] = [];
      try {
        const tree = lang.parser.parse(text);
        if (tree.rootNode.hasError) diagnostics.push(parseErrorDiagnostic(path, tree.rootNode));
        indexLexical(tree, text, lang.lexical);
        const raw: RawSymbol[] =
          spec.extractor === "python"
            ? extractPython(tree, lang.definitions)
            : extractTypeScript(tree, lang.definitions, { isDeclarationFile: /\.d\.[cm]?ts$/i.test(path) });
        return { path, language: spec.id, symbols: finalizeSymbols(raw, hash), references: extractReferences(tree, lang.references), diagnostics };
      } catch (error) {
        return empty(spec.id, [...diagnostics, diagnostic("extract_failed", "warning", path, `symbol extraction failed: ${error instanceof Error ? error.message : String(error)}`)]);
      }
    },
  };
}

function readQuery(spec: LanguageSpec, name: string): string {
  // grammars/ sits two folders up from both src/symbols/ and dist/symbols/.
  return spec.queries
    .map((folder) => new URL(`../../grammars/${folder}/${name}.scm`, import.meta.url))
    .filter((url) => existsSync(url))
    .map((url) => readFileSync(url, "utf8"))
    .join("\n");
}

/** Where the first syntax error is: the file still yields the symbols of the parts that parse. */
function parseErrorDiagnostic(path: string, root: Parser.SyntaxNode): Diagnostic {
  let first: Parser.SyntaxNode | null = null;
  const find = (n: Parser.SyntaxNode): void => {
    if (first !== null || !n.hasError) return;
    if (n.type === "ERROR" || n.isMissing) {
      first = n;
      return;
    }
    for (const c of n.children) find(c);
  };
  find(root);
  const at = first === null ? "" : ` at line ${(first as Parser.SyntaxNode).startPosition.row + 1}`;
  return diagnostic("parse_error", "warning", path, `syntax error${at}: symbols come from the parts that parse`);
}
