import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryText, fromEntryText, printedOfEntryText } from "../../src/symbols/symbol-cache.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { createTreeParser, NATIVE_EXTRACT_ENV } from "../../src/symbols/tree-parser.js";
import { loadFlatParser } from "../../src/tree-sitter/load-flat-parser.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "..");
const native = loadFlatParser()?.parseExtract !== undefined;

// The native extraction (native/extract_symbols.cc) against the JavaScript one it ports: the same entry text, byte
// for byte, for any file. The JavaScript extraction is the oracle; both read the same tree of the same parser.
describe.skipIf(!native)("native symbol extraction", () => {
  let withNative: SymbolExtractor;
  let plain: SymbolExtractor;
  beforeAll(async () => {
    withNative = await createSymbolExtractor({ backend: "flat" });
    process.env[NATIVE_EXTRACT_ENV] = "0";
    plain = await createSymbolExtractor({ backend: "flat" });
    delete process.env[NATIVE_EXTRACT_ENV];
  });

  /** The native entry text of a file and the JavaScript one, as strings (both printed-only forms too). */
  const both = (file: string, source: Buffer): { got: string | null; want: string; gotPrinted: string | null; wantPrinted: string } => {
    const got = withNative.extractText?.(file, source) ?? null;
    const gotPrinted = withNative.extractText?.(file, source, true) ?? null;
    const r = plain.extract(file, source);
    return { got: got === null ? null : Buffer.from(got).toString("utf8"), want: entryText(r), gotPrinted: gotPrinted === null ? null : Buffer.from(gotPrinted).toString("utf8"), wantPrinted: entryText(r, { printedOnly: true }) };
  };

  it("is used only where asked for, for every language", () => {
    expect(typeof withNative.extractText).toBe("function");
    expect(plain.extractText).toBeUndefined();
    expect(withNative.extractText?.("a.py", Buffer.from("def f(): pass\n"))).toBeInstanceOf(Uint8Array);
    expect(withNative.extractText?.("a.txt", Buffer.from("text\n"))).toBeNull();
    // Screened out (binary): the extraction says why, not the native one.
    expect(withNative.extractText?.("a.ts", Buffer.from("export const a = 1;\0"))).toBeNull();
  });

  it("gives the JavaScript extraction's entry text for the golden fixtures, this repository's own sources and Python's standard library", () => {
    const stdlib = execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: "utf8" }).trim();
    const python = fs
      .readdirSync(stdlib, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".py") && !f.includes("site-packages"))
      .sort()
      .filter((_, i) => i % 4 === 0)
      .map((f) => path.join(stdlib, f));
    expect(python.length).toBeGreaterThan(100);
    const files = [
      ...["kinds.ts", "kinds.tsx", "kinds.js", "kinds.cjs", "kinds.py"].map((name) => path.join(here, "fixtures", name)),
      ...python,
      ...fs.readdirSync(path.join(root, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => path.join(root, "src", f)),
      ...fs.readdirSync(path.join(root, "benchmarks")).filter((f) => /\.m?js$/.test(f)).map((f) => path.join(root, "benchmarks", f)),
    ];
    expect(files.length).toBeGreaterThan(250);
    let differ = 0;
    for (const file of files) {
      const source = fs.readFileSync(file);
      const { got, want, gotPrinted, wantPrinted } = both(file, source);
      if (got !== want || gotPrinted !== wantPrinted) differ++;
      expect(got, file).toBe(want);
      expect(gotPrinted, file).toBe(wantPrinted);
    }
    expect(differ).toBe(0);
  });

  it("reads back as the golden files say", () => {
    for (const name of ["kinds.ts", "kinds.tsx", "kinds.js", "kinds.cjs", "kinds.py"]) {
      const text = withNative.extractText?.(name, fs.readFileSync(path.join(here, "fixtures", name)));
      expect(text).toBeInstanceOf(Uint8Array);
      const r = fromEntryText(name, text as Uint8Array);
      const golden = JSON.parse(fs.readFileSync(path.join(here, "fixtures", `${name}.golden.json`), "utf8")) as { symbols: Array<{ qualified_name: string; signature_hash: string; body_hash: string }> };
      expect(r?.symbols.map((s) => [s.qualified_name, s.signature_hash, s.body_hash])).toEqual(golden.symbols.map((s) => [s.qualified_name, s.signature_hash, s.body_hash]));
      // Details decode as the JavaScript extraction's.
      expect(JSON.stringify(r?.symbols.map((s) => s.detail))).toBe(JSON.stringify(plain.extract(name, fs.readFileSync(path.join(here, "fixtures", name))).symbols.map((s) => s.detail)));
    }
  });

  /** Both extractions agree on 300 files made of pieces (with noise inserted somewhere, as a file being edited has). */
  const sameForAny = (files: fc.Arbitrary<[Array<[string, string]>, string, number, string]>): void => {
    fc.assert(
      fc.property(files, ([parts, name, cut, noise]) => {
        let text = parts.map(([p, s]) => p + s).join("");
        const at = text.length === 0 ? 0 : cut % text.length;
        text = text.slice(0, at) + noise + text.slice(at);
        const { got, want, gotPrinted, wantPrinted } = both(name, Buffer.from(text));
        expect(got).toBe(want);
        expect(gotPrinted).toBe(wantPrinted);
      }),
      { numRuns: 300 },
    );
  };

  // Pieces of TypeScript, joined at random: declarations of every kind the extractor reads, with modifiers,
  // decorators, generics, exports and containers, and text that breaks the syntax (error recovery, missing nodes).
  const pieces = [
    "export function f<T extends object = {}>(a: T, b?: string, ...rest: number[]): Promise<T> { return g(a); }",
    "function f(a: string): void;\nfunction f(a: number): void;\nfunction f(a: any) {}",
    "export default class extends Base<T> implements I { m() {} }",
    "export default function (x) { return new X.Y(x); }",
    "export default { a: 1 };",
    "export const { a, b: [c, d = 1], ...rest } = obj;",
    "const api = { get(id: string) {}, post: (b) => b, 'quoted': function () {}, [k]: () => 1 };",
    "export abstract class A<in out T, const U> extends B implements C, D {\n  @Input() private readonly x?: number = 1;\n  static #y = 2;\n  constructor(public a: string, protected readonly b = 2, override c?: C) { super(); }\n  abstract run(): void;\n  get v(): number { return 1 }\n  set v(n) {}\n  @Get(':id') async *gen<T>(this: A, [p, q]: P) {}\n  [Symbol.iterator]() {}\n  declare z: string;\n  accessor w = 1;\n}",
    "export interface I<T> extends J<T>, K {\n  (x: number): string;\n  new (y: string): I<T>;\n  readonly [key: string]: unknown;\n  m?(a: T): void;\n  p: { q: () => void };\n}",
    "export type U<T> = T extends string ? 'a' | \"b\" : `t${T}` /* c */ | readonly [x: number, y?: string];",
    "export enum E { A = 1, B = A << 2, 'C' = \"c\", D }",
    "declare module 'm' { export function f(): void; const x: number; }",
    "declare global { interface Window { y: number } }",
    "export namespace N.M { export const v = 1; function hidden() {} export namespace Inner { export type T = 1 } }",
    "module.exports = { a, b: c, d() {}, e: () => 1, f: class {} };\nexports.g = function () {};\nmodule.exports.h = h;",
    "export { a as b, c } from './m';\nexport * from \"n\";\nexport * as ns from 'o';\nexport type { T } from './t';\nexport { local as aliased };",
    "import d, { a as b, c } from 'm';\nimport * as ns from \"n\";\nimport 'side';\nconst r = require('r'); await import(`t`);",
    "/** @deprecated use g\n * @internal */\nexport function old(): void {}",
    "let x = 1, y: Map<string, Array<{ a: number }>> = new Map();\nvar z;",
    "export const handler: Handler = async (event, context) => { const inner = () => 1; return inner(); };",
    "class C { private m() {} protected static p = () => 1; #q() {} }",
    "export = Foo;",
    "function broken( { return ",
    "export class { m( }",
    "const s = 'unterminated",
    "type T = { a: string, b?: number, };\n// trailing comment\n",
    "@Component({ selector: 'x' })\nexport class Cmp { @Output() change = new EventEmitter<string>(); }",
    "export const é = 1; export function ñame(ü: string) {} const 変数 = '値';",
    "export const tpl = `a ${b} c`; export const re = /a\\/b/g;",
    "if (a) { function notKept() {} }\nfor (const k of ks) {}\nexport { };",
    "export declare function d<const T>(x: T): T;\nexport declare const dc: number;",
    "x = <T,>(a: T) => a; y = function* () { yield 1 }",
    "export class G<T = string> { constructor(private readonly t: T, x = 1) {} }",
  ];
  const separators = ["\n", "\n\n", " ", ";\n", "\r\n", "\t", "\n/* c */\n", "\n// c\n", "\u00a0", "\u2028"];

  it("gives the JavaScript extraction's entry text for any file made of TypeScript pieces, broken or not", () => {
    const files = fc.tuple(
      fc.array(fc.tuple(fc.constantFrom(...pieces), fc.constantFrom(...separators)), { maxLength: 8 }),
      fc.constantFrom("a.ts", "a.tsx", "a.d.ts", "a.js", "a.cjs"),
      fc.nat(),
      fc.string({ maxLength: 3 }),
    );
    sameForAny(files);
  });

  // Pieces of Python, joined the same way.
  const pythonPieces = [
    "def f(a, b: int = 1, /, c=2, *args: str, d, e: float = 3.0, **kw) -> list[int]:\n    return g(a)\n",
    "async def h[T: (int, str), *Ts, **P](x: T) -> T:\n    await x\n",
    "@decorator\n@other.deco(1)\nclass A(Base, metaclass=Meta):\n    x = 1\n    y: int = 2\n    a, b = 3, 4\n    def __init__(self, v):\n        self.v = v\n        self.p, self.q = 1, 2\n        other.w = 3\n    @property\n    def prop(self): return self.v\n    @prop.setter\n    def prop(self, v): self.v = v\n    class Inner:\n        def m(self, *, k): pass\n",
    "class _Private:\n    def method(self): pass\n",
    "__all__ = ['f', 'A', 'imported']\n__all__ += ('h',)\n__all__.extend(['x'])\n__all__.append('y')\n",
    "type Pair[K] = tuple[K, K]\ntype Alias = int | None\n",
    "x, y = 1, 2\nz: dict[str, int] = {}\n_hidden = 'v'\nCONST = \"\"\"doc\n  string\"\"\"\n",
    "import os, sys as system\nfrom collections.abc import Mapping as M, Sequence\nfrom . import sibling\nfrom .pkg import *\n",
    "def outer():\n    def inner(): pass\n    class Local: pass\n    return inner\n",
    "if TYPE_CHECKING:\n    def conditional(): ...\nelse:\n    def conditional(): ...\n",
    "def broken(:\n    pass\n",
    "class C(\n",
    "# comment\nf'{x!r:>10}' + b'bytes' + r'raw\\'\n",
    "def uni_é(ñ: 'Ü') -> '変数': pass\n",
  ];

  it("gives the JavaScript extraction's entry text for any file made of Python pieces, broken or not", () => {
    const files = fc.tuple(fc.array(fc.tuple(fc.constantFrom(...pythonPieces), fc.constantFrom("", "\n", "\n\n", "\r\n")), { maxLength: 8 }), fc.constantFrom("a.py", "a.pyi"), fc.nat(), fc.string({ maxLength: 3 }));
    sameForAny(files);
  });

  it("classes every UTF-16 unit as normalisation does (Unicode letters and digits are words)", () => {
    // Between two spaced units, normalisation keeps a space only when both are words (or both operators): a unit the
    // two extractions class differently changes the value's body hash. Every unit from U+0080 (but surrogates), in
    // the value of one declaration per 4096 of them.
    const units: string[] = [];
    for (let c = 0x80; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) units.push(String.fromCharCode(c));
    for (let k = 0; k < units.length; k += 4096) {
      const value = units.slice(k, k + 4096).map((ch) => `a ${ch} ${ch} b`).join(", ");
      const { got, want } = both(`u${k}.ts`, Buffer.from(`export const v = [${value}];\n`));
      expect(got).toBe(want);
    }
  });

  it("decodes UTF-8 bytes as Buffer#toString does, ill-formed ones too", async () => {
    const parser = await createTreeParser({ languages: ["typescript"] });
    let runs = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        runs++;
        // Inside a string literal that a signature shows (no 0 byte: that makes a file binary).
        const body = Buffer.from(bytes.map((b) => (b === 0 || b === 10 || b === 13 || b === 0x27 || b === 0x5c ? 0x41 : b)));
        const source = Buffer.concat([Buffer.from("export const v: '"), body, Buffer.from("' = 1;\nexport type T = '"), body, Buffer.from("';\n")]);
        const fromBytes = withNative.extractText?.("b.ts", source);
        const fromString = withNative.extractText?.("b.ts", source.toString("utf8"));
        expect(fromBytes).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(fromBytes as Uint8Array).toString()).toBe(Buffer.from(fromString as Uint8Array).toString());
        expect(Buffer.from(fromBytes as Uint8Array).toString()).toBe(entryText(plain.extract("b.ts", source)));
        expect(parser.parseOrExtract("b.ts", source)).toBeInstanceOf(Uint8Array);
      }),
      { numRuns: 400 },
    );
    expect(runs).toBeGreaterThanOrEqual(400);
  });

  it("leaves a file it does not handle to the JavaScript extraction, which reads the tree it returns", async () => {
    // Destructuring nested deeper than the native extraction recurses.
    const deep = `export const ${"[".repeat(2100)}x${"]".repeat(2100)} = v;\nexport function f() {}\n`;
    expect(withNative.extractText?.("deep.ts", Buffer.from(deep))).toBeNull();
    const tree = (await createTreeParser({ languages: ["typescript"] })).parseOrExtract("deep.ts", Buffer.from(deep));
    expect(tree).not.toBeInstanceOf(Uint8Array);
    expect(tree === null ? 0 : "count" in tree ? tree.count : 0).toBeGreaterThan(2100);
    // The extraction itself still answers, in JavaScript, with the same result as without the native one.
    expect(JSON.stringify(withNative.extract("deep.ts", Buffer.from(deep)))).toBe(JSON.stringify(plain.extract("deep.ts", Buffer.from(deep))));
    expect(withNative.extract("deep.ts", Buffer.from(deep)).symbols.map((s) => s.qualified_name)).toEqual(["f", "x"]);
  });

  it("keeps the path a file was given in its diagnostics", () => {
    const text = withNative.extractText?.('dir/"odd".ts', Buffer.from("export function f( {\n"));
    const parts = printedOfEntryText(text as Uint8Array);
    expect(JSON.parse(parts?.diagnostics ?? "null")).toEqual([{ code: "parse_error", severity: "warning", path: 'dir/"odd".ts', message: "syntax error at line 1: symbols come from the parts that parse" }]);
  });
});

describe.skipIf(!native)("comity symbols with and without the native extraction", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-native-extract-"));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints the same lines on one thread and from a pool's workers", async () => {
    const { printedEach } = await import("../../src/symbols/extract-pool.js");
    const files = fs
      .readdirSync(path.join(root, "src", "symbols"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .map((f) => path.join(root, "src", "symbols", f));
    const jobs = [...files.map((f) => ({ path: f, abs: f })), { path: "x.py", bytes: Buffer.from("def f(): pass\n") }, { path: "y.txt", bytes: Buffer.from("text\n") }];
    const printed = async (workers: number, cacheDir: string | null): Promise<string> => {
      const out: string[] = [];
      await printedEach(jobs, { workers, cacheDir, minFilesForPool: 1 }, (pieces) => out.push(Buffer.concat(pieces.map((p) => Buffer.from(p))).toString()));
      return out.join("\n");
    };
    const one = await printed(1, null);
    const pooled = await printed(2, path.join(dir, "cache"));
    // Stored by the pool's thread from the workers' bytes: read back, the same lines.
    const cached = await printed(2, path.join(dir, "cache"));
    process.env[NATIVE_EXTRACT_ENV] = "0";
    try {
      const javascript = await printed(1, null);
      expect(one).toBe(javascript);
      // A cache the JavaScript extraction filled answers the same too.
      expect(await printed(2, path.join(dir, "cache-js"))).toBe(javascript);
    } finally {
      delete process.env[NATIVE_EXTRACT_ENV];
    }
    expect(pooled).toBe(one);
    expect(cached).toBe(one);
    expect(fs.readdirSync(path.join(dir, "cache"), { recursive: true }).length).toBeGreaterThan(20);
  });
});
