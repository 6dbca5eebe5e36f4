import * as fs from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadFlatParsers } from "../../src/parse/flat-parsers.js";
import { FlatAccess, FlatTree, flatLanguage, keepFlatTreeData } from "../../src/parse/flat-tree.js";
import { matchTree } from "../../src/parse/query/match-query.js";
import { parseQuery } from "../../src/parse/query/parse-query.js";
import { combinedQuery, lexicalTypes, splitMatches } from "../../src/symbols/combined-query.js";
import { LANGUAGES } from "../../src/symbols/languages.js";
import { indexLexical, indexLexicalRanges } from "../../src/symbols/normalize.js";

const FIXTURES: Record<string, string> = { typescript: "kinds.ts", tsx: "kinds.tsx", javascript: "kinds.js", python: "kinds.py" };
// Pieces that make strings, comments and literals inside one another (template strings, f-strings, regexes), and
// text that does not parse.
const PIECES: Record<string, readonly string[]> = {
  typescript: ["`a ${'b' /* c */} d`", "// e\n", "/f+/g", '"g"', "const h = `${`${'i'}`}`;\n", "/* j */", "{", "}", "(", "x", "\n"],
  python: ["f\"{a!r} {'b'}\"", "# c\n", "'''d'''", 'b"e"', "def f(x='g'):\n  return x\n", "(", ")", "x", "\n", "  "],
};

async function matcherOf(id: string) {
  const spec = LANGUAGES.find((l) => l.id === id);
  if (spec === undefined) throw new Error(id);
  const parser = (await loadFlatParsers([spec])).get(id);
  if (parser === undefined) throw new Error(`${id} does not load`);
  const language = flatLanguage(parser.language.types, (t) => parser.language.nodeTypeIsNamed(t), parser.language.fields);
  const combined = parseQuery(combinedQuery(spec));
  const lexical = lexicalTypes(spec);
  // Both indexes of one text: from the lexical query's matches, and from the tree's arrays.
  return (text: string): [unknown, unknown] => {
    const data = keepFlatTreeData(parser.parse(text));
    const fromMatches = new FlatTree(text, language, data);
    const { lexical: captures } = splitMatches(matchTree(combined, 0, new FlatAccess(fromMatches)));
    const byMatches = indexLexical(fromMatches, text, captures);
    const fromArrays = new FlatTree(text, language, data);
    const byArrays = indexLexicalRanges(fromArrays, text, fromArrays.rangesOfTypes(lexical.comment), fromArrays.rangesOfTypes(lexical.string));
    return [byArrays, byMatches];
  };
}

describe("the lexical query, read from a tree's arrays", () => {
  it("names each language's comment and string types", () => {
    const of = (id: string) => lexicalTypes(LANGUAGES.find((l) => l.id === id) ?? (LANGUAGES[0] as never));
    expect(of("typescript")).toEqual({ comment: ["comment"], string: ["string", "template_string", "regex"] });
    expect(of("python")).toEqual({ comment: ["comment"], string: ["string"] });
  });

  it("sorts ranges given out of document order by start, the longer first, and keeps the outermost strings", () => {
    const tree = {} as never;
    const index = indexLexicalRanges(tree, "x".repeat(20), [9, 10, 1, 3, 1, 5], [12, 14, 2, 8, 2, 4, 11, 18]);
    expect(index.comments).toEqual([1, 5, 1, 3, 9, 10]);
    expect(index.strings).toEqual([2, 8, 11, 18]);
  });

  it.each(Object.keys(FIXTURES))("gives the index the query's matches give, %s", async (id) => {
    const both = await matcherOf(id);
    const [byArrays, byMatches] = both(fs.readFileSync(new URL(`./fixtures/${FIXTURES[id]}`, import.meta.url), "utf8"));
    expect(byArrays).toEqual(byMatches);
    expect((byArrays as { strings: number[] }).strings.length).toBeGreaterThan(4);
  });

  it.each(Object.keys(PIECES))("gives the index the query's matches give on generated %s, nested and broken", async (id) => {
    const both = await matcherOf(id);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...(PIECES[id] as string[])), { maxLength: 40 }), (pieces) => {
        const [byArrays, byMatches] = both(pieces.join(""));
        expect(byArrays).toEqual(byMatches);
      }),
      { numRuns: 300 },
    );
  });
});
