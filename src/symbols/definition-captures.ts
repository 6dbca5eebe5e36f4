import type { QueryCapture, QueryMatch, SyntaxNode } from "../parse/syntax.js";
import type { SymbolKind } from "./types.js";

/**
 * Each definition a definitions query found, once: its node, its name's node and the kind the query gave it
 * (`@definition.<kind>`, `@name`). A definition two patterns match is given once.
 */
export function definitionCaptures(matches: readonly QueryMatch[]): Array<{ node: SyntaxNode; nameNode: SyntaxNode; kind: SymbolKind }> {
  const out: Array<{ node: SyntaxNode; nameNode: SyntaxNode; kind: SymbolKind }> = [];
  const seen = new Set<string>();
  for (const m of matches) {
    let def: QueryCapture | undefined;
    let name: QueryCapture | undefined;
    // (index loops: the arrays come in several kinds, and a closure per match threw optimised code away)
    for (let k = 0; k < m.captures.length; k++) {
      const c = m.captures[k] as QueryCapture;
      if (def === undefined && c.name.startsWith("definition.")) def = c;
      if (name === undefined && c.name === "name") name = c;
    }
    if (def === undefined || name === undefined) continue;
    const key = `${def.node.id}:${name.node.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ node: def.node, nameNode: name.node, kind: def.name.slice("definition.".length) as SymbolKind });
  }
  return out;
}
