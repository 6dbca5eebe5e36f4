import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { Language, Parser, Query } from "web-tree-sitter";
import { matchTree } from "../../../src/parse/query/match-query.js";
import { loadFlatParsers, type FlatParser } from "../../../src/parse/flat-parsers.js";
import { loadFlatParser } from "../../../src/parse/native-parser.js";
import { LANGUAGES } from "../../../src/symbols/languages.js";
import { FlatAccess, FlatTree, flatLanguage } from "../../../src/parse/flat-tree.js";
import { initWebTreeSitter } from "../../../src/parse/init-web-tree-sitter.js";
import { wasmFlatteners, type WasmTree } from "../../../src/parse/flatten-wasm.js";
import { parseQuery } from "../../../src/parse/query/parse-query.js";

// The engine's own matcher against tree-sitter's compiled query (web-tree-sitter's, the oracle), over the same
// trees: every match, with every capture's name, node type and range, as a multiset (the two differ in order only).
// The matcher runs twice: over a flat copy of web-tree-sitter's tree of the text, and over the native parser's
// (where it is built).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const require = createRequire(import.meta.url);
const LANGS = {
  typescript: { folders: ["typescript"], wasm: "tree-sitter-typescript/tree-sitter-typescript.wasm" },
  tsx: { folders: ["typescript", "tsx"], wasm: "tree-sitter-typescript/tree-sitter-tsx.wasm" },
  javascript: { folders: ["javascript"], wasm: "tree-sitter-javascript/tree-sitter-javascript.wasm" },
  python: { folders: ["python"], wasm: "tree-sitter-python/tree-sitter-python.wasm" },
};
type Lang = keyof typeof LANGS;

const wasm = new Map<Lang, Language>();
let native: Map<string, FlatParser> | null = null;
beforeAll(async () => {
  await initWebTreeSitter(Parser);
  for (const lang of Object.keys(LANGS) as Lang[]) wasm.set(lang, await Language.load(require.resolve(LANGS[lang].wasm)));
  if (loadFlatParser() !== null) native = await loadFlatParsers(LANGUAGES, "native");
});

/** A flat copy of web-tree-sitter's tree of `source`. */
function flatParser(lang: Lang): (source: string) => FlatTree {
  const language = wasm.get(lang) as Language;
  const parser = new Parser();
  parser.setLanguage(language);
  // The flattener the WASM backend uses (tree-sitter's structures read from memory; flat-tree.test.ts holds it to the cursor).
  const { memory, cursor } = wasmFlatteners();
  const flatten = memory ?? cursor;
  const info = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
  return (source) => {
    const tree = parser.parse(source);
    if (tree === null) throw new Error("no tree");
    try {
      return new FlatTree(source, info, flatten(tree as unknown as WasmTree));
    } finally {
      tree.delete();
    }
  };
}

function setup(lang: Lang, text = shippedQuery(lang)): (source: string) => { flat: string[]; native: string[] | null; theirs: string[] } {
  const language = wasm.get(lang) as Language;
  const parser = new Parser();
  parser.setLanguage(language);
  const query = new Query(language, text);
  const patterns = parseQuery(text);
  const key = (m: { captures: ReadonlyArray<{ name: string; node: { type: string; startIndex: number; endIndex: number } }> }): string =>
    m.captures.map((c) => `${c.name}=${c.node.type}@${c.node.startIndex}-${c.node.endIndex}`).join(" ");
  const flatOf = flatParser(lang);
  const nativeParser = native?.get(lang) ?? null;
  const info = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
  return (source) => {
    const tree = parser.parse(source);
    if (tree === null) throw new Error("no tree");
    try {
      const theirs = query.matches(tree.rootNode).map(key).sort();
      const flat = matchTree(patterns, 0, new FlatAccess(flatOf(source)))
        .map(key)
        .sort();
      const byNative =
        nativeParser === null
          ? null
          : matchTree(patterns, 0, new FlatAccess(new FlatTree(source, info, nativeParser.parse(source))))
              .map(key)
              .sort();
      return { flat, native: byNative, theirs };
    } finally {
      tree.delete();
    }
  };
}

function shippedQuery(lang: Lang): string {
  return ["definitions", "references", "lexical"]
    .flatMap((n) => LANGS[lang].folders.map((f) => path.join(root, "grammars", f, `${n}.scm`)))
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f, "utf8"))
    .join("\n");
}

function filesUnder(dir: string, ext: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) as string[])
    .filter((f) => ext.test(f))
    .map((f) => path.join(dir, f))
    .sort();
}

const EDGE_CASES: Record<Lang, string[]> = {
  typescript: [
    // Half-typed code: the matcher walks the same ERROR nodes tree-sitter's query does.
    "export function f(a: number, b: {\nclass C { m(): void { return g(\n",
    "import { a, b as c } from 'm';\nexport { d, e as f } from \"n\";\nexport * from './x';\nconst r = require('q'), i = import('z');\n",
    "@dec() @other class A<T> extends B<T> implements I { static #p = 1; get x(): T { return new ns.Y<T>().z(); } }\n",
    "declare global { interface Window { a: string } }\ndeclare module 'm' { export function f(): void; }\nnamespace N.M { export const x = 1; }\n",
    "enum E { A = 1, B, 'c' }\ntype T = { a: string; b?: number };\nfunction over(a: string): void;\nfunction over(a: number): void;\nfunction over(a: unknown) {}\n",
  ],
  tsx: ["export const App = () => <Layout title={t}><Button onClick={() => go()} /><div>{x}</div></Layout>;\n"],
  javascript: ["class A extends B { #x = 1; static y = () => {}; m() { return <Comp />; } }\nconst z = require('m');\n"],
  python: [
    // An anchored first parameter after a comment, several names from one import, decorators, nested defs.
    "class A:\n    def __init__(  # the instance\n            self, a):\n        self.x = a\n        self.y: int = 1\n",
    "from m import a, b as c, d\nimport x.y as z, w\nfrom . import *\n",
    "@dec\n@other.dec(1)\ndef f(a, *, b=1):\n    def g(): pass\n    return g\n",
    "class B(A, metaclass=M):\n    x = 1\n    a, b = 1, 2\n    def __init__(me, other):\n        me.q = 1\n        other.r = 2\ntype T = list[int]\n",
    "def broken(a, b:\n    pass\nclass Ok:\n    pass\n",
  ],
};

describe("matchQuery against tree-sitter's query (oracle)", () => {
  const stdlib = execFileSync("python3", ["-c", "import os, json; print(os.path.dirname(os.path.dirname(json.__file__)))"], { encoding: "utf8" }).trim();
  const corpus: Record<Lang, string[]> = {
    typescript: [...filesUnder(path.join(root, "src"), /\.ts$/), ...filesUnder(path.join(root, "test"), /\.ts$/), ...filesUnder(path.join(root, "node_modules/@types/node"), /\.d\.ts$/)],
    // TypeScript sources through the TSX grammar too (a cast `<T>x` is then a syntax error: more ERROR nodes).
    tsx: [...filesUnder(path.join(root, "test/symbols/fixtures"), /\.tsx$/), ...filesUnder(path.join(root, "src/symbols"), /\.ts$/)],
    javascript: [
      ...filesUnder(path.join(root, "test/symbols/fixtures"), /\.js$/),
      ...filesUnder(path.join(root, "benchmarks"), /\.mjs$/),
      ...filesUnder(path.join(root, "node_modules/vitest/dist"), /\.js$/).slice(0, 60),
    ],
    python: [...filesUnder(path.join(root, "test/symbols/fixtures"), /\.py$/), ...["json", "email", "asyncio", "unittest"].flatMap((d) => filesUnder(path.join(stdlib, d), /\.py$/))],
  };

  for (const lang of Object.keys(LANGS) as Lang[]) {
    it(`finds the same matches as tree-sitter's compiled query in ${lang} files`, () => {
      const run = setup(lang);
      const sources = [...corpus[lang].map((f) => fs.readFileSync(f, "utf8")), ...EDGE_CASES[lang]];
      expect(sources.length).toBeGreaterThan(5);
      let matches = 0;
      for (const [i, source] of sources.entries()) {
        const { native: byNative, flat, theirs } = run(source);
        expect(flat, corpus[lang][i] ?? `edge case ${i - corpus[lang].length}`).toEqual(theirs);
        if (byNative !== null) expect(byNative, corpus[lang][i] ?? `edge case ${i - corpus[lang].length}`).toEqual(theirs);
        matches += theirs.length;
      }
      expect(matches).toBeGreaterThan(100);
    });
  }
});

describe("matchQuery on the query features the shipped queries use little", () => {
  // Anchors first, last and between, `_`, anonymous nodes, alternations in a field, both predicates.
  const QUERY = `
    (arguments . (_) @first)
    (arguments (_) @last .)
    (formal_parameters (_) @a . (_) @b)
    (arguments _ @any)
    (predefined_type "string" @keyword)
    (string "\\"" @quote)
    (union_type [(type_identifier) (literal_type)] @member)
    (call_expression function: (identifier) @f (#eq? @f "go"))
    (call_expression function: (_) @callee arguments: (arguments (_) @arg) (#eq? @callee @arg))
    (call_expression function: (identifier) @upper (#match? @upper "^[A-Z]"))
  `;
  const SOURCES = [
    "f(/* c */ a, b /* d */);\ng();\ngo(go, 'x', \"y\");\nX(1)(2);\nfunction h(a: string, /* c */ b: 1 | 'two' | T, ...c: string[]) {}\n",
    "type U = A | B | 'c' | 1;\nconst s: string = \"q\" + 'r';\nnew Go(go(go));\nf(\n  // only a comment\n);\n",
    ...EDGE_CASES.typescript,
  ];
  it("finds what tree-sitter's compiled query finds", () => {
    const run = setup("typescript", QUERY);
    let matches = 0;
    for (const source of [...SOURCES, ...filesUnder(path.join(root, "src/symbols"), /\.ts$/).map((f) => fs.readFileSync(f, "utf8"))]) {
      const { native: byNative, flat, theirs } = run(source);
      expect(flat, source.slice(0, 60)).toEqual(theirs);
      if (byNative !== null) expect(byNative, source.slice(0, 60)).toEqual(theirs);
      matches += theirs.length;
    }
    expect(matches).toBeGreaterThan(1000);
  });
});
