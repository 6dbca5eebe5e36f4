/**
 * What the symbol extraction asks of a file before it parses it (`screen`), and a parse worker's parser: the files'
 * trees as flat copies (the parse layer's, `src/parse/`), for the extraction in another thread (extract-pool.ts).
 */
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { loadFlatParsers } from "../parse/flat-parsers.js";
import { bestFlatParserKind, type FlatParserKind } from "../parse/native-parser.js";
import type { FlatTreeData } from "../parse/flat-tree.js";
import { isParseOverBudget, type ParseLimits } from "../parse/parse-limits.js";
import { languageOf, type LanguageSpec } from "./languages.js";
import type { LanguageId } from "./types.js";

/** Files larger than this are skipped with a diagnostic (generated bundles, data). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** How much of a text the extraction looks through for a NUL (UTF-16 units, and bytes of a file read as bytes). */
const BINARY_SCAN = 8192;

/**
 * What the symbol extractor's `extract` checks before it parses: a language it has loaded, a size under the limit,
 * text and not binary. The file's text, or the one diagnostic that says why it is not parsed. A parse worker
 * ({@link createTreeParser}) checks the same on the bytes ({@link screenBytes}), so that it parses what the extraction
 * would (and leaves it a few files more).
 */
export function screen<L>(
  path: string,
  source: string | Buffer,
  loaded: { get(id: LanguageId): L | undefined },
  maxBytes: number,
): { spec: LanguageSpec; lang: L; text: string } | { language: LanguageId | null; diagnostic: Diagnostic } {
  const screened = screenBytes(path, source, loaded, maxBytes, BINARY_SCAN);
  if ("diagnostic" in screened) return screened;
  const text = typeof source === "string" ? source : source.toString("utf8");
  if (text.slice(0, BINARY_SCAN).includes("\0")) return binaryFile(screened.spec.id, path);
  return { ...screened, text };
}

/** {@link screen}'s checks that need no text: for a file read as bytes, a NUL within the first `scan` of them is binary. */
function screenBytes<L>(
  path: string,
  source: string | Buffer,
  loaded: { get(id: LanguageId): L | undefined },
  maxBytes: number,
  scan: number,
): { spec: LanguageSpec; lang: L } | { language: LanguageId | null; diagnostic: Diagnostic } {
  const spec = languageOf(path);
  if (spec === null) return { language: null, diagnostic: diagnostic("unsupported_language", "info", path, "no symbol extraction for this file type") };
  const lang = loaded.get(spec.id);
  if (lang === undefined) return { language: spec.id, diagnostic: diagnostic("language_not_loaded", "info", path, `${spec.id} was not loaded`) };
  const bytes = typeof source === "string" ? Buffer.byteLength(source) : source.length;
  if (bytes > maxBytes) return { language: spec.id, diagnostic: diagnostic("file_too_large", "info", path, `skipped: ${bytes} bytes is over the ${maxBytes}-byte limit`) };
  if (typeof source !== "string" && source.subarray(0, scan).includes(0)) return binaryFile(spec.id, path);
  return { spec, lang };
}

function binaryFile(language: LanguageId, path: string): { language: LanguageId; diagnostic: Diagnostic } {
  return { language, diagnostic: diagnostic("binary_file", "info", path, "skipped: binary content") };
}

/** Parses files into flat copies of their trees, for another thread's extraction ({@link createTreeParser}). */
export interface TreeParser {
  /**
   * The flat copy of the file's tree, as the extraction of it would read it; {@link TIMED_OUT} when the parse went
   * past its limits (the extraction says so, without parsing again); null when that extraction would not parse it
   * (its diagnostic is made there), may parse it but has to screen it first (a NUL past what it looks at), or the
   * parser failed.
   */
  parse(path: string, source: Buffer): FlatTreeData | typeof TIMED_OUT | null;
}

/**
 * The parsing alone, for a parse worker: the worker pool parses, and the thread that extracts reads the copies
 * (extract-pool.ts). Its code is small and compiles at once; the extraction's code, compiled in each thread that
 * runs it, runs in one. `kind`: who parses (the pool's thread says, so that its extraction reads trees of the
 * grammars it loaded itself).
 */
export async function createTreeParser(
  options: { maxFileBytes?: number; languages?: readonly LanguageId[]; kind?: FlatParserKind; parseLimits?: (length: number) => ParseLimits } = {},
): Promise<TreeParser> {
  const { LANGUAGES } = await import("./languages.js");
  const parsers = await loadFlatParsers(
    LANGUAGES.filter((l) => options.languages === undefined || options.languages.includes(l.id)),
    options.kind ?? bestFlatParserKind(),
  );
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    parse(path, source) {
      // The extraction's screen, on the bytes: the native parser decodes them itself (a string made of every file
      // only to be handed over, and copied again there, was a few percent of a worker's time). Its limits are those
      // of the bytes' length, never less than the text's.
      const screened = screenBytes(path, source, parsers, maxBytes, BINARY_SCAN_BYTES);
      if ("diagnostic" in screened) return null;
      const parser = screened.lang;
      const text = parser.kind === "native" ? source : source.toString("utf8");
      try {
        return parser.parse(text, options.parseLimits?.(text.length));
      } catch (error) {
        return isParseOverBudget(error) ? TIMED_OUT : null;
      }
    },
  };
}

/**
 * How many bytes a parse worker looks through for a NUL: the extraction looks at the first {@link BINARY_SCAN} UTF-16
 * units of the text, which are at most three bytes each. Looking further only ever sends a file back to the
 * extraction's thread, which screens it as it always does (a worker's null).
 */
const BINARY_SCAN_BYTES = 3 * BINARY_SCAN;

/** A parse that went past its limits, said instead of a tree (the extraction makes its `parse_timeout` diagnostic). */
export const TIMED_OUT = "timed_out";

/**
 * A file whose parse went past its limits: it counts as a file that does not parse (no symbol of it is compared, and
 * the result is not cached), and its session is told as for a syntax error.
 */
export function parseTimeoutDiagnostic(path: string, why: string): Diagnostic {
  return diagnostic("parse_timeout", "warning", path, `${why}: no symbols are read from this file`);
}

/** A TypeScript declaration file, whose top-level declarations are exported without `export` (extract-typescript.ts). */
export const DECLARATION_FILE = /\.d\.[cm]?ts$/i;
