/**
 * The query the symbol extractor runs over each tree: a language's three queries joined, and the way its matches
 * are sorted back into those three parts (symbol-extractor.ts; benchmarks/symbols-phases.mjs times the same steps).
 */
import { existsSync, readFileSync } from "node:fs";
import type { LanguageSpec } from "./languages.js";
import type { QueryCapture, QueryMatch } from "../parse/syntax.js";
import { parseQuery } from "../parse/query/parse-query.js";
import { ComityError } from "../errors/comity-error.js";

/** A language's definitions, references and lexical queries as one query: one walk of the tree instead of three. */
export function combinedQuery(spec: LanguageSpec): string {
  return ["definitions", "references", "lexical"].map((q) => readQuery(spec, q)).join("\n");
}

/** The query the extraction matches: a language's definitions and references as one (its lexical one is read by {@link lexicalTypes}). */
export function symbolQuery(spec: LanguageSpec): string {
  return ["definitions", "references"].map((q) => readQuery(spec, q)).join("\n");
}

/**
 * The node types of a language's lexical query, by capture (`comment`, `string`): each of its patterns is one named
 * node of some types and nothing else, so its matches are the named nodes of those types, which the extraction reads
 * from the tree's arrays rather than as matches (most of a file's matches are its strings and comments, and each
 * match is four objects). A pattern of any other shape is refused here.
 */
export function lexicalTypes(spec: LanguageSpec): { comment: string[]; string: string[] } {
  const out: { comment: string[]; string: string[] } = { comment: [], string: [] };
  for (const pattern of parseQuery(readQuery(spec, "lexical"))) {
    const { root } = pattern;
    const alternatives = root.kind === "alternation" ? root.alternatives : [root];
    const name = root.captures[0];
    const bare = alternatives.every((a) => a.kind === "node" && a.type !== null && a.children.length === 0 && a.field === null && (a === root || a.captures.length === 0));
    if (pattern.predicates.length > 0 || root.captures.length !== 1 || (name !== "comment" && name !== "string") || !bare) {
      throw new ComityError("INVALID_ARGUMENT", `${spec.id}'s lexical query: each pattern must be named node types captured as @comment or @string, and nothing else`);
    }
    for (const a of alternatives) if (a.kind === "node" && a.type !== null) out[name].push(a.type);
  }
  return out;
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
