import * as fs from "node:fs";
import fc from "fast-check";
import { createRequire } from "node:module";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Language, Parser, type Node } from "web-tree-sitter";
import { cursorSteps, flattenCursor, FlatTree, flatLanguage, keepFlatTreeData, packFlatTreeData, unpackFlatTreeData, type CursorLike, type FlatNode } from "../../src/parse/flat-tree.js";
import { LANGUAGES } from "../../src/symbols/languages.js";
import { createTreeParser, DEFAULT_MAX_FILE_BYTES, TIMED_OUT } from "../../src/symbols/tree-parser.js";
import { loadFlatParsers, loadWasmParsers } from "../../src/parse/flat-parsers.js";
import type { LanguageId } from "../../src/symbols/types.js";
import { FLAT_PARSER_ENV, loadFlatParser, type FlatParserKind } from "../../src/parse/native-parser.js";
import { createSymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { initWebTreeSitter } from "../../src/parse/init-web-tree-sitter.js";
import { wasmFlattener, wasmFlatteners, type WasmTree } from "../../src/parse/flatten-wasm.js";

// The flat copy of a tree against the tree it was copied from (web-tree-sitter's own nodes, the oracle): every
// node, every property the extractors read. Then the whole extraction on both backends: the same results.

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "test/symbols/fixtures");
const GRAMMARS = {
  ts: "tree-sitter-typescript/tree-sitter-typescript.wasm",
  tsx: "tree-sitter-typescript/tree-sitter-tsx.wasm",
  js: "tree-sitter-javascript/tree-sitter-javascript.wasm",
  py: "tree-sitter-python/tree-sitter-python.wasm",
} as const;
type Ext = keyof typeof GRAMMARS;
const languages = new Map<Ext, Language>();

beforeAll(async () => {
  await initWebTreeSitter(Parser);
  for (const ext of Object.keys(GRAMMARS) as Ext[]) languages.set(ext, await Language.load(require.resolve(GRAMMARS[ext])));
});

/** Sources per grammar: the fixtures, some of this repo, and broken or odd text (ERROR and missing nodes, non-ASCII, CRLF). */
function sources(ext: Ext): string[] {
  const files = fs.readdirSync(fixtures).filter((f) => f.endsWith(`.${ext}`) || (ext === "js" && f.endsWith(".cjs")));
  const own = ext === "ts" ? ["src/parse/flat-tree.ts", "src/symbols/typescript/extract-typescript.ts", "src/symbols/normalize.ts"] : [];
  const broken: Record<Ext, string[]> = {
    ts: ["export function f(a: number, b: {\nclass C { m(): void { return g(\n", "const s = 'é😀\\u{1F600}';\r\nlet t = `a${b}c`; // ü\r\nif (x) { y(", "", "\n\n", "class A { @d() m?(): void }"],
    tsx: ["const A = () => <div a={1}>{x}</div>;\nconst B = <C", "let x = <T,>(a: T) => a;"],
    js: ["module.exports = { a, b: () => 1 };\nexports.c = function () {", "const π = 'ß';\n"],
    py: [
      "def broken(a, b:\n    pass\nclass Ok:\n    pass\n",
      "x = 'é😀'\r\ndef f(*, a=1, **k) -> 'int':\n    return f'{a!r:>{k}}'\n",
      "if x:\n  y(\n",
      "@d\nclass A(B, metaclass=M):\n    def m(self): ...\n",
    ],
  };
  return [...files.map((f) => fs.readFileSync(path.join(fixtures, f), "utf8")), ...own.map((f) => fs.readFileSync(path.join(root, f), "utf8")), ...broken[ext]];
}

function setup(ext: Ext): { parse: (s: string) => WasmTree & { rootNode: Node; delete(): void }; language: Language } {
  const language = languages.get(ext) as Language;
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    language,
    parse: (s) => {
      const tree = parser.parse(s);
      if (tree === null) throw new Error("no tree");
      return tree as unknown as WasmTree & { rootNode: Node; delete(): void };
    },
  };
}

/** What a node says of itself and its children, as the extractors read it. */
function describeNode(n: Node | FlatNode, fields: readonly (string | null)[]): unknown {
  return {
    type: n.type,
    named: n.isNamed,
    missing: n.isMissing,
    error: n.hasError,
    range: [n.startIndex, n.endIndex, n.startPosition.row, n.startPosition.column, n.endPosition.row, n.endPosition.column],
    text: n.text,
    children: n.childCount,
    named_children: n.namedChildCount,
    first_named: n.firstNamedChild?.startIndex ?? null,
    previous: n.previousSibling?.startIndex ?? null,
    parent: n.parent?.type ?? null,
    fields: fields.flatMap((f) => (f === null ? [] : [`${f}:${n.childForFieldName(f)?.startIndex ?? "-"}:${n.childrenForFieldName(f).length}`])),
  };
}

function walkBoth(a: Node, b: FlatNode, fields: readonly (string | null)[], out: { nodes: number }): void {
  expect(describeNode(b, fields), `${a.type} at ${a.startIndex}`).toEqual(describeNode(a, fields));
  const ac = a.children.filter((c): c is Node => c !== null);
  const bc = b.children;
  expect(bc.length).toBe(ac.length);
  out.nodes++;
  ac.forEach((c, i) => {
    walkBoth(c, bc[i] as FlatNode, fields, out);
  });
}

describe("FlatTree: a copy of web-tree-sitter's tree", () => {
  for (const ext of Object.keys(GRAMMARS) as Ext[]) {
    it(`answers what the tree's own nodes answer, node by node (${ext})`, () => {
      const { parse, language } = setup(ext);
      const { direct, memory } = wasmFlatteners();
      // Both faster ways are available here (web-tree-sitter's module, as this repo pins it), and chosen.
      expect(direct).not.toBeNull();
      expect(memory).not.toBeNull();
      const sample = parse(sources(ext)[0] as string);
      expect(wasmFlattener(sample).kind).toBe("memory");
      sample.delete();
      const info = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
      const seen = { nodes: 0 };
      for (const source of sources(ext)) {
        const tree = parse(source);
        try {
          const cursor = tree.walk();
          // Each copy kept: every walk builds its tree in the same scratch arrays.
          const viaCursor = keepFlatTreeData(flattenCursor(cursorSteps(cursor as unknown as CursorLike)));
          cursor.delete();
          // Each faster walk copies exactly what the public cursor copies.
          const viaDirect = keepFlatTreeData((direct as NonNullable<typeof direct>)(tree));
          const viaMemory = keepFlatTreeData((memory as NonNullable<typeof memory>)(tree));
          expect(viaDirect).toEqual(viaCursor);
          expect(viaMemory).toEqual(viaCursor);
          walkBoth(tree.rootNode, new FlatTree(source, info, viaCursor).rootNode, language.fields, seen);
        } finally {
          tree.delete();
        }
      }
      expect(seen.nodes).toBeGreaterThan(ext === "ts" ? 10_000 : 200);
    });
  }
});

describe("the two parsers", () => {
  it("extract the same symbols, details, references and diagnostics", async () => {
    const wasmBackend = await createSymbolExtractor({ backend: "wasm" });
    const flat = await createSymbolExtractor({ backend: "flat" });
    const names: Record<Ext, string> = { ts: "a.ts", tsx: "a.tsx", js: "a.js", py: "a.py" };
    let symbols = 0;
    for (const ext of Object.keys(GRAMMARS) as Ext[]) {
      for (const [i, source] of sources(ext).entries()) {
        const a = wasmBackend.extract(names[ext], source);
        const c = flat.extract(names[ext], source);
        expect(JSON.stringify([c, c.symbols.map((s) => s.detail)]), `${ext} source ${i}`).toBe(JSON.stringify([a, a.symbols.map((s) => s.detail)]));
        symbols += a.symbols.length;
      }
    }
    expect(symbols).toBeGreaterThan(300);
  });
});

const LANGUAGE_OF: Record<Ext, LanguageId> = { ts: "typescript", tsx: "tsx", js: "javascript", py: "python" };

describe("Comity's native parser (native/flat_parse.c)", () => {
  // With COMITY_FLAT_PARSER=wasm there is no native parser to hold to web-tree-sitter: those tests are skipped, and
  // the first one says why (CI runs them: it requires the native parser).
  const withNative = it.skipIf(loadFlatParser() === null);
  it("is built by npm ci (COMITY_FLAT_PARSER=wasm is the only way to go without it)", () => {
    if (process.env[FLAT_PARSER_ENV] === "wasm") expect(loadFlatParser()).toBeNull();
    else expect(loadFlatParser(), "native/build/Release/comity_flat_parse.node: run `node scripts/build-native.mjs`").not.toBeNull();
  });

  withNative("copies every tree as web-tree-sitter's copy of the same text, with the same grammar tables", async () => {
    const [native, wasm] = await Promise.all([loadFlatParsers(LANGUAGES, "native"), loadWasmParsers(LANGUAGES)]);
    // Beyond the fixtures: every TypeScript file of this repo.
    const own = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? own(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
    let nodes = 0;
    for (const ext of Object.keys(GRAMMARS) as Ext[]) {
      const id = LANGUAGE_OF[ext];
      const n = native.get(id);
      const w = wasm.get(id);
      if (n === undefined || w === undefined) throw new Error(`${id} not loaded`);
      expect(n.language.types.length, id).toBe(w.language.types.length);
      for (let t = 0; t < w.language.types.length; t++) {
        expect(n.language.types[t], `${id} type ${t}`).toBe(w.language.types[t]);
        expect(n.language.nodeTypeIsNamed(t), `${id} type ${t}`).toBe(w.language.nodeTypeIsNamed(t));
      }
      expect([...n.language.fields]).toEqual([...w.language.fields]);
      const texts = [...sources(ext), ...(ext === "ts" ? own(path.join(root, "src")).map((f) => fs.readFileSync(f, "utf8")) : [])];
      for (const [i, text] of texts.entries()) {
        const a = keepFlatTreeData(w.parse(text));
        const b = n.parse(text);
        expect(b.count, `${ext} source ${i}`).toBe(a.count);
        for (const k of ["types", "fields", "starts", "ends", "parents", "flags"] as const)
          expect(Array.from(b[k].subarray(0, b.count)), `${ext} source ${i}: ${k}`).toEqual(Array.from(a[k].subarray(0, a.count)));
        nodes += b.count;
      }
    }
    expect(nodes).toBeGreaterThan(100_000);
  });

  withNative("reads a language's dense parse table after a few parses of it, and makes the same trees", async () => {
    const addon = loadFlatParser();
    if (addon === null) throw new Error("skipped above when the native parser is not built");
    const wasm = await loadWasmParsers(LANGUAGES);
    for (const ext of Object.keys(GRAMMARS) as Ext[]) {
      const id = LANGUAGE_OF[ext];
      const spec = LANGUAGES.find((l) => l.id === id);
      const w = wasm.get(id);
      if (spec === undefined || w === undefined) throw new Error(`${id} not loaded`);
      const native = (spec.grammar() as { language: unknown }).language;
      const texts = sources(ext);
      // Enough parses of the language for the process to make its dense table, whatever parsed it before.
      for (let round = 0; round < Math.ceil(12 / texts.length) + 1; round++) {
        for (const [i, text] of texts.entries()) {
          const a = keepFlatTreeData(w.parse(text));
          const packed = addon.parse(native, text);
          if (packed === null) throw new Error(`${ext} source ${i}: no tree`);
          const b = unpackFlatTreeData(packed.byteLength / 17, packed);
          for (const k of ["types", "fields", "starts", "ends", "parents", "flags"] as const)
            expect(Array.from(b[k].subarray(0, b.count)), `${ext} source ${i}, round ${round}: ${k}`).toEqual(Array.from(a[k].subarray(0, a.count)));
        }
      }
      expect(addon.language(native).dense, id).toBe(process.platform !== "win32");
    }
  });

  withNative("leaves to web-tree-sitter a language whose native grammar it cannot use", async () => {
    const python = LANGUAGES.find((l) => l.id === "python");
    if (python === undefined) throw new Error("python not registered");
    // Not a language the native parser can take: parsing with it would throw.
    const [fallback, wasm] = await Promise.all([loadFlatParsers([{ ...python, grammar: () => ({ language: {} }) }], "native"), loadWasmParsers([python])]);
    const text = "def f(a, *b):\n    return g(a)\n";
    const a = keepFlatTreeData((wasm.get("python") as NonNullable<ReturnType<typeof wasm.get>>).parse(text));
    const b = (fallback.get("python") as NonNullable<ReturnType<typeof fallback.get>>).parse(text);
    for (const k of ["types", "fields", "starts", "ends", "parents", "flags"] as const) expect(Array.from(b[k].subarray(0, b.count))).toEqual(Array.from(a[k].subarray(0, a.count)));
    expect(a.count).toBeGreaterThan(10);
  });

  withNative("says what is wrong with what it is given, and parses on after it", () => {
    const addon = loadFlatParser();
    if (addon === null) throw new Error("skipped above when the native parser is not built");
    const python = (LANGUAGES.find((l) => l.id === "python")?.grammar() as { language: unknown } | undefined)?.language;
    expect(() => addon.parse({}, "x = 1\n")).toThrow(/not a tree-sitter language/);
    expect(() => addon.parse(python, 5 as unknown as string)).toThrow(/not a string/);
    expect(() => addon.language("python")).toThrow(/not a tree-sitter language/);
    const packed = addon.parse(python, "x = 1\n");
    expect(packed === null ? 0 : packed.byteLength / 17).toBeGreaterThan(3);
    // A text of nothing is a tree of one node; one much larger than the first is read whole.
    expect(addon.parse(python, "")?.byteLength).toBe(17);
    const big = "def f(a):\n    return a\n".repeat(20_000);
    const tree = unpackFlatTreeData((addon.parse(python, big)?.byteLength ?? 0) / 17, addon.parse(python, big) as ArrayBuffer);
    expect(tree.ends[0]).toBe(big.length);
  });

  // A parse worker hands the native parser a file's bytes as they were read: its decoding is Buffer#toString's, or the
  // tree's offsets (UTF-16 units of the string the extraction reads) would be wrong.
  withNative("reads UTF-8 bytes as the string Buffer#toString makes of them, valid or not", () => {
    const addon = loadFlatParser();
    if (addon === null) throw new Error("skipped above when the native parser is not built");
    const python = (LANGUAGES.find((l) => l.id === "python")?.grammar() as { language: unknown } | undefined)?.language;
    const utf8 = fc.string({ unit: "binary" }).map((t) => Buffer.from(t));
    // Valid text with odd bytes spliced in: stray continuation bytes, truncated and overlong sequences, surrogates
    // encoded (ED A0 80), code points past U+10FFFF, a sequence cut at the end.
    const odd = fc.constantFrom([0x80], [0xbf], [0xc0, 0xaf], [0xc2], [0xe0, 0x80, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff]);
    const bytes = fc
      .array(
        fc.oneof(
          utf8,
          odd.map((b) => Buffer.from(b)),
          fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)),
        ),
        { maxLength: 8 },
      )
      .map((parts) => Buffer.concat(parts));
    fc.assert(
      fc.property(bytes, (b) => {
        const fromBytes = addon.parse(python, b);
        const fromText = addon.parse(python, b.toString("utf8"));
        expect(fromBytes === null ? null : Buffer.from(fromBytes)).toEqual(fromText === null ? null : Buffer.from(fromText));
      }),
      { numRuns: 2000 },
    );
  });
});

describe.each<FlatParserKind>(["native", "wasm"])("a tree parsed in another thread (the pool's parse workers), by the %s parser", (kind) => {
  it("packs into one buffer and back to the same arrays, and extracts as a tree parsed here", async () => {
    const parser = await createTreeParser({ kind });
    const extractor = await createSymbolExtractor({ backend: kind === "wasm" ? "wasm" : "flat" });
    const names: Record<Ext, string> = { ts: "a.ts", tsx: "a.tsx", js: "a.js", py: "a.py" };
    let trees = 0;
    for (const ext of Object.keys(GRAMMARS) as Ext[]) {
      for (const [i, source] of sources(ext).entries()) {
        const bytes = Buffer.from(source);
        const parsed = parser.parse(names[ext], bytes);
        expect(parsed, `${ext} source ${i}`).not.toBeNull();
        if (parsed === null || parsed === TIMED_OUT) continue;
        // Copied out of this thread's scratch arrays, as a worker posts it: the next parse must not change it.
        const kept = keepFlatTreeData(parsed);
        const buffer = packFlatTreeData(parsed);
        expect(buffer.byteLength).toBe(17 * parsed.count);
        const unpacked = unpackFlatTreeData(parsed.count, buffer);
        for (const k of ["types", "fields", "starts", "ends", "parents", "flags"] as const) expect(Array.from(unpacked[k]), `${ext} source ${i}: ${k}`).toEqual(Array.from(kept[k]));
        const here = extractor.extract(names[ext], bytes);
        const there = extractor.extract(names[ext], bytes, unpacked);
        expect(JSON.stringify([there, there.symbols.map((s) => s.detail)]), `${ext} source ${i}`).toBe(JSON.stringify([here, here.symbols.map((s) => s.detail)]));
        trees++;
      }
    }
    expect(trees).toBeGreaterThan(10);
    // The tree given is the one read: another text's tree gives other symbols.
    // (kept at once: the copy a parser returns is its thread's scratch arrays, until the next parse)
    const parsedOther = parser.parse("b.ts", Buffer.from("class Box {}\n"));
    const other = parsedOther === null || parsedOther === TIMED_OUT ? null : keepFlatTreeData(parsedOther);
    const text = Buffer.from("export function f(a: number): number { return a }\n");
    expect(extractor.extract("a.ts", text).symbols.map((s) => s.name)).toEqual(["f"]);
    expect(extractor.extract("a.ts", text, other).symbols.map((s) => s.name)).toEqual([" fu"]);
  });

  it("parses nothing the extraction would not parse: no tree for other files, binary or too large ones", async () => {
    const parser = await createTreeParser({ languages: ["python"], kind });
    expect((parser.parse("a.py", Buffer.from("def f(): pass\n")) as { count: number } | null)?.count).toBeGreaterThan(1);
    expect(parser.parse("a.ts", Buffer.from("export const a = 1;\n"))).toBeNull();
    expect(parser.parse("a.md", Buffer.from("# title\n"))).toBeNull();
    expect(parser.parse("b.py", Buffer.from([0x64, 0x65, 0x66, 0x00, 0x01]))).toBeNull();
    expect(parser.parse("c.py", Buffer.alloc(DEFAULT_MAX_FILE_BYTES + 1, 0x20))).toBeNull();
  });
});
