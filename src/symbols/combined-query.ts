/**
 * The query the symbol extractor runs over each tree: a language's three queries joined, and the way its matches
 * are sorted back into those three parts (symbol-extractor.ts; benchmarks/symbols-phases.mjs times the same steps).
 */
import { existsSync, readFileSync } from "node:fs";
import type { LanguageSpec } from "./languages.js";
import type { QueryCapture, QueryMatch } from "../parse/syntax.js";

/** A language's definitions, references and lexical queries as one query: one walk of the tree instead of three. */
export function combinedQuery(spec: LanguageSpec): string {
  return ["definitions", "references", "lexical"].map((q) => readQuery(spec, q)).join("\n");
}

/** Sorts the combined query's matches back into its three parts, by their capture names. */
export function splitMatches(matches: readonly QueryMatch[]): {
  definitions: QueryMatch[];
  references: QueryMatch[];
  lexical: QueryCapture[];
} {
  const definitions: QueryMatch[] = [];
  const references: QueryMatch[] = [];
  const lexical: QueryCapture[] = [];
  for (const m of matches) {
    const first = m.captures[0];
    if (first === undefined) continue;
    if (first.name.startsWith("scope.") || m.captures.some((c) => c.name.startsWith("definition."))) definitions.push(m);
    else if (first.name === "comment" || first.name === "string") lexical.push(first);
    else references.push(m);
  }
  return { definitions, references, lexical };
}

function readQuery(spec: LanguageSpec, name: string): string {
  // grammars/ sits two folders up from both src/symbols/ and dist/symbols/.
  return spec.queries
    .map((folder) => new URL(`../../grammars/${folder}/${name}.scm`, import.meta.url))
    .filter((url) => existsSync(url))
    .map((url) => readFileSync(url, "utf8"))
    .join("\n");
}
