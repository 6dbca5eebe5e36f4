import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ComityError } from "../../../src/errors/comity-error.js";
import { parseQuery } from "../../../src/parse/query/parse-query.js";

const grammars = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../grammars");

describe("parseQuery", () => {
  it("reads a pattern's steps, fields, alternatives, anchors, captures and predicates", () => {
    const [p] = parseQuery(`
      ; a comment
      (function_definition
        name: (identifier) @_init
        parameters: (parameters . [(identifier) "self"] @_self)
        (#eq? @_init "__init__")
        (#match? @_self "^s\\\\w+$")) @definition.function @scope`);
    expect(p).toEqual({
      root: {
        kind: "node",
        field: null,
        type: "function_definition",
        captures: ["definition.function", "scope"],
        children: [
          { kind: "node", field: "name", type: "identifier", children: [], captures: ["_init"] },
          {
            kind: "node",
            field: "parameters",
            type: "parameters",
            captures: [],
            children: [
              { kind: "anchor" },
              {
                kind: "alternation",
                field: null,
                captures: ["_self"],
                alternatives: [
                  { kind: "node", field: null, type: "identifier", children: [], captures: [] },
                  { kind: "token", field: null, text: "self", captures: [] },
                ],
              },
            ],
          },
        ],
      },
      predicates: [
        { kind: "eq", capture: "_init", other: { text: "__init__" } },
        { kind: "match", capture: "_self", regex: /^s\w+$/ },
      ],
    });
  });

  it("reads every query the engine ships", () => {
    for (const folder of fs.readdirSync(grammars)) {
      for (const file of fs.readdirSync(path.join(grammars, folder)).filter((f) => f.endsWith(".scm"))) {
        const patterns = parseQuery(fs.readFileSync(path.join(grammars, folder, file), "utf8"));
        expect(patterns.length, `${folder}/${file}`).toBeGreaterThan(0);
      }
    }
  });

  it.each([
    ["a quantifier", "(identifier)* @x"],
    ["a negated field", "(class_declaration !name) @x"],
    ["a grouped sequence", '((identifier) @a (#eq? @a "b"))'],
    ["an unknown predicate", '(call (identifier) @a (#not-eq? @a "b"))'],
    ["a predicate on a literal", '(call (#eq? "a" "b"))'],
    ["an unclosed pattern", "(call function: (identifier)"],
    ["an unterminated string", '(call "x)'],
    ["an empty alternation", "(call [] @x)"],
    ["a pattern rooted at a wildcard", "[(call) (_ (identifier))] @x"],
    ["a bad regular expression", '(call (identifier) @a (#match? @a "("))'],
  ])("rejects %s with INVALID_ARGUMENT instead of matching it differently", (_, query) => {
    expect(() => parseQuery(query)).toThrow(ComityError);
    try {
      parseQuery(query);
    } catch (e) {
      expect((e as ComityError).code).toBe("INVALID_ARGUMENT");
    }
  });

  it("throws nothing but a ComityError on any text (property)", () => {
    const alphabet = fc.constantFrom(...'()[]._:@#?!*+" \n;abc'.split(""), "name:", "(identifier)", "@cap", "#eq?", "#match?", '"s"', '"("');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        try {
          parseQuery(parts.join(""));
        } catch (e) {
          if (!(e instanceof ComityError)) throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
