import { openFlatParser } from "../../src/parse/native-parser.js";
import type { ParserBackend } from "../../src/symbols/symbol-extractor.js";

/** Why the native parser does not load here, or null when it does. */
export const NATIVE_PROBLEM = ((): string | null => {
  const opened = openFlatParser();
  return opened.problem;
})();

/**
 * The two parse paths every symbol test runs on: the native parser and web-tree-sitter. Where the native parser is
 * not built, its half is skipped (global-setup says so once), unless `COMITY_TEST_REQUIRE_NATIVE=1` (CI sets it),
 * where its absence fails the run instead: CI must test both.
 */
export const PARSE_PATHS: ReadonlyArray<{ readonly name: string; readonly backend: ParserBackend; readonly skip: boolean }> = [
  { name: "native parser", backend: "flat", skip: NATIVE_PROBLEM !== null && process.env["COMITY_TEST_REQUIRE_NATIVE"] !== "1" },
  { name: "web-tree-sitter", backend: "wasm", skip: false },
];
