import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LANGUAGES } from "../../src/symbols/languages.js";
import { indexLexical } from "../../src/symbols/normalize.js";
import type { SyntaxNode, Tree } from "../../src/parse/syntax.js";
import { docComment, modifiersOf } from "../../src/symbols/typescript/ts-signature.js";
import { loadFlatParsers } from "../../src/parse/flat-parsers.js";
import { FlatTree, flatLanguage } from "../../src/parse/flat-tree.js";

// The extractor reads a declaration's modifiers from the source text before its name when that text holds only
// keywords, and walks the declaration's children otherwise. The walk is the oracle: on any declaration that
// parses, both must give the same modifiers.

const typescript = (await loadFlatParsers(LANGUAGES.filter((l) => l.id === "typescript"))).get("typescript");
if (typescript === undefined) throw new Error("no TypeScript parser");
const tables = flatLanguage(typescript.language.types, (id) => typescript.language.nodeTypeIsNamed(id), typescript.language.fields);
const parser = { parse: (source: string): Tree => new FlatTree(source, tables, typescript.parse(source)) };

const DECLARATIONS = new Set([
  "method_definition",
  "public_field_definition",
  "method_signature",
  "property_signature",
  "abstract_method_signature",
  "class_declaration",
  "abstract_class_declaration",
  "function_declaration",
  "generator_function_declaration",
  "function_signature",
  "interface_declaration",
  "enum_declaration",
  "type_alias_declaration",
  "internal_module",
]);

function walk(node: SyntaxNode, visit: (n: SyntaxNode) => void): void {
  visit(node);
  for (const c of node.namedChildren) walk(c, visit);
}

function parse(source: string): Tree {
  const tree = parser.parse(source);
  // What the extractor's lexical query captures, found by a walk here.
  const lexical: Array<{ name: string; node: SyntaxNode }> = [];
  walk(tree.rootNode, (n) => {
    if (n.type === "comment") lexical.push({ name: "comment", node: n });
    else if (n.type === "string" || n.type === "template_string" || n.type === "regex") lexical.push({ name: "string", node: n });
  });
  indexLexical(tree, source, lexical);
  return tree;
}

const maybe = (text: string): fc.Arbitrary<string> => fc.constantFrom("", text);
const name = fc.constantFrom("foo", "#bar", "'quoted'", "[key]", "get", "static", "async", "readonly", "constructor");
const decorators = fc.subarray(["@d", "@e()", "@f.g('static')"]);
const gap = fc.constantFrom(" ", "  ", "\n", " /* c */ ", " // static\n", "\t", " \u200B", "\u2060 ", "\u00a0");

/** Joins tokens with arbitrary whitespace or comments between them. */
const joined = (tokens: readonly string[], gaps: readonly string[]): string => tokens.filter((t) => t !== "").reduce((out, t, i) => (i === 0 ? t : `${out}${gaps[i % gaps.length] ?? " "}${t}`), "");

const classMember = fc
  .record({
    decorators,
    access: fc.constantFrom("", "public", "private", "protected"),
    isStatic: maybe("static"),
    override: maybe("override"),
    shape: fc.constantFrom("method", "async", "generator", "get", "set", "field", "readonly", "declare", "accessor", "abstract"),
    name,
    suffix: fc.constantFrom("", "?", "!"),
  })
  .map((m) => {
    const head = [...m.decorators, m.access, m.isStatic, m.override];
    switch (m.shape) {
      case "method":
        return [...head, m.name, `${m.suffix === "!" ? "" : m.suffix}(a: number): void {}`];
      case "async":
        return [...head, "async", m.name, "(): Promise<void> {}"];
      case "generator":
        return [...head, "*", m.name, "() {}"];
      case "get":
        return [...head, "get", m.name, "(): number { return 1; }"];
      case "set":
        return [...head, "set", m.name, "(v: number) {}"];
      case "abstract":
        return [m.access, "abstract", m.name, `${m.suffix === "!" ? "" : m.suffix}(): void;`];
      default:
        return [...head, m.shape === "field" ? "" : m.shape, m.name, `${m.suffix}: number;`];
    }
  });

const topLevel = fc.oneof(
  fc.record({ exp: maybe("export"), declare: maybe("declare"), abstract: maybe("abstract"), decorators }).map((d) => [...d.decorators, d.exp, d.declare, d.abstract, "class C<T> extends B {}"]),
  fc.record({ exp: maybe("export"), isAsync: maybe("async"), star: maybe("*") }).map((d) => [d.exp, d.isAsync, "function", d.star, "f(a: string): void {}"]),
  fc.record({ exp: maybe("export"), declare: maybe("declare"), isConst: maybe("const") }).map((d) => [d.exp, d.declare, d.isConst, "enum E { A, B = 2 }"]),
  fc.record({ ro: maybe("readonly"), opt: maybe("?") }).map((d) => ["interface I {", d.ro, `p${d.opt}: string; m${d.opt}(): void; }`]),
  fc.record({ exp: maybe("export"), declare: maybe("declare") }).map((d) => [d.exp, d.declare, "namespace N.M { export const x = 1; }"]),
);

describe("TypeScript modifiers read from the text", () => {
  it("are the modifiers the children walk finds, on every declaration that parses", () => {
    let compared = 0;
    let fromText = 0;
    fc.assert(
      fc.property(fc.array(classMember, { maxLength: 4 }), topLevel, fc.array(gap, { minLength: 1, maxLength: 4 }), (members, top, gaps) => {
        const source = `${joined(top, gaps)}\nabstract class K {\n${members.map((m) => joined(m, gaps)).join("\n")}\n}\n`;
        const tree = parse(source);
        walk(tree.rootNode, (n) => {
          if (!DECLARATIONS.has(n.type) || n.hasError) return;
          const nameNode = n.childForFieldName("name");
          if (nameNode === null) return;
          expect(modifiersOf(n, nameNode), `${n.type} in:\n${source}`).toEqual(modifiersOf(n));
          compared++;
          // The text alone decides when only keywords precede the name: count those, so the test covers that path.
          if (/^[\sA-Za-z*]*$/.test(source.slice(n.startIndex, nameNode.startIndex))) fromText++;
        });
      }),
      { numRuns: 400 },
    );
    // Invalid combinations parse with errors and are left out; most are compared, many read from the text alone.
    expect(compared).toBeGreaterThan(800);
    expect(fromText).toBeGreaterThan(400);
  });
});

/** The doc comment as the tree alone finds it: what `docComment` did before it asked the text first. */
function docCommentByTree(node: SyntaxNode): string {
  let n = node;
  for (let p = n.parent; p !== null && /^(export_statement|ambient_declaration|lexical_declaration|variable_declaration)$/.test(p.type) && p.namedChildren[0]?.id === n.id; p = n.parent) n = p;
  const list = node.type === "variable_declarator" ? node.parent : null;
  if (list !== null) {
    const outer = list.parent;
    n = outer?.type === "export_statement" ? outer : list;
  }
  const prev = n.previousSibling;
  return prev !== null && prev.type === "comment" && prev.text.startsWith("/**") ? prev.text : "";
}

const comment = fc.constantFrom("", "/** doc */", "/** @deprecated use g */", "/* block */", "// line\n", "/** a */ /* b */", "/** a */\n// b\n");
const statement = fc.constantFrom(
  ["export", "class A {}"],
  ["export", "default", "class B {}"],
  ["declare", "function f(): void;"],
  ["export", "const", "a = 1, b = () => 2;"],
  ["const", "c = () => 1;"],
  ["export", "declare", "const", "d: number;"],
  ["let", "e: string;"],
  ["export", "interface I { p: string }"],
  ["@dec", "export", "class E {}"],
  ["export", "@dec", "class F {}"],
  ["abstract", "class G {}"],
  ["export", "enum H { X }"],
  ["type", "T = string;"],
);

describe("TypeScript doc comments", () => {
  it("are what the tree alone finds, wherever comments and whitespace fall", () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(comment, statement, comment), { minLength: 1, maxLength: 5 }), fc.array(gap, { minLength: 1, maxLength: 4 }), (parts, gaps) => {
        // A comment before each statement and one inside it, after its first token.
        const source = parts.map(([before, [first, ...rest], inside]) => joined([before, first ?? "", inside, ...rest], gaps)).join("\n");
        const tree = parse(source);
        walk(tree.rootNode, (n) => {
          if (!DECLARATIONS.has(n.type) && n.type !== "variable_declarator") return;
          expect(docComment(n), `${n.type} in:\n${source}`).toBe(docCommentByTree(n));
          if (docComment(n) !== "") found++;
        });
      }),
      { numRuns: 400 },
    );
    expect(found).toBeGreaterThan(100);
  });
});
