import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cachedExtract } from "../../src/symbols/extract-with-cache.js";
import { createSymbolCache } from "../../src/symbols/symbol-cache.js";
import { languageOf } from "../../src/symbols/languages.js";
import { printedSymbols } from "../../src/symbols/printed-symbols.js";
import type { FileSymbols } from "../../src/symbols/types.js";
import { createSymbolExtractor, EXTRACTOR_VERSION, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

let extractor: SymbolExtractor;
beforeAll(async () => {
  extractor = await createSymbolExtractor();
});

describe("files that do not parse, binary and over-size files", () => {
  it("keeps the symbols of the parts that parse, with a diagnostic", () => {
    const ts = extractor.extract("half.ts", "export function ok(a: number) {}\nexport function broken(a: {\nexport class Later { run() {} }\n");
    expect(ts.symbols.map((s) => s.qualified_name)).toContain("ok");
    expect(ts.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
    const py = extractor.extract("half.py", "def ok(a):\n    return a\n\ndef broken(:\n    pass\n\nclass Later:\n    def run(self): pass\n");
    expect(py.symbols.map((s) => s.qualified_name)).toEqual(expect.arrayContaining(["ok", "Later", "Later.run"]));
    expect(py.diagnostics[0]?.code).toBe("parse_error");
  });

  it("binds no empty name in a half-typed destructuring", () => {
    for (const source of ["export const { a: , b } = o;", "export const { a: } = o;", "export const [x = ] = t;"]) {
      const r = extractor.extract("half.ts", source);
      expect(
        r.diagnostics.map((d) => d.code),
        source,
      ).toEqual(["parse_error"]);
      expect(
        r.symbols.every((s) => s.name !== ""),
        source,
      ).toBe(true);
    }
  });

  it("reads variance annotations, which the grammar does not parse, back as the compiler reads them", async () => {
    // tree-sitter-typescript 0.23 reads `out A` as a parameter named `out` and an ERROR holding `A`: before, the
    // signature lost every such name (`interface Effect<out, out = never>`, 292 symbols of effect's sources).
    const source = [
      'export interface I<out A extends string = "x", in B> { a: A; b: B }',
      "export type F<in A> = (a: A) => void",
      "export class C<in out A, B> { x?: A; y?: B }",
      "export interface J<in out K = never> extends L<K> {}",
      "export function f<const T extends readonly unknown[]>(t: T): T { return t }",
      "export interface M<out> {}",
    ].join("\n");
    const wasm = await createSymbolExtractor({ backend: "wasm" });
    for (const ex of [extractor, wasm]) {
      const r = ex.extract("v.ts", source);
      const typeParams = Object.fromEntries(r.symbols.filter((s) => !s.qualified_name.includes(".")).map((s) => [s.name, s.detail.type_params]));
      expect(typeParams["I"]).toEqual([
        { name: "A", constraint: "string", default: '"x"', modifiers: ["out"] },
        { name: "B", constraint: null, default: null, modifiers: ["in"] },
      ]);
      expect(typeParams["F"]).toEqual([{ name: "A", constraint: null, default: null, modifiers: ["in"] }]);
      expect(typeParams["C"]).toEqual([
        { name: "A", constraint: null, default: null, modifiers: ["in", "out"] },
        { name: "B", constraint: null, default: null },
      ]);
      expect(typeParams["J"]).toEqual([{ name: "K", constraint: null, default: "never", modifiers: ["in", "out"] }]);
      expect(typeParams["f"]).toEqual([{ name: "T", constraint: "readonly unknown[]", default: null, modifiers: ["const"] }]);
      // A parameter that is only named `out` (no ERROR after it) stays one.
      expect(typeParams["M"]).toEqual([{ name: "out", constraint: null, default: null }]);
      const signatures = Object.fromEntries(r.symbols.map((s) => [s.qualified_name, s.signature]));
      expect(signatures["I"]).toBe('interface I<out A extends string = "x", in B>');
      expect(signatures["C"]).toBe("class C<in out A, B>");
      expect(signatures["f"]).toBe("function f<const T extends readonly unknown[]>(t: T): T");
    }
    // A changed annotation changes the signature hash (and the annotations survive the cache).
    const hashOf = (text: string): string | undefined => extractor.extract("v.ts", text).symbols.find((s) => s.name === "G")?.signature_hash;
    expect(hashOf("export interface G<out A> {}")).not.toBe(hashOf("export interface G<in A> {}"));
    expect(hashOf("export interface G<out A> {}")).not.toBe(hashOf("export interface G<A> {}"));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-variance-"));
    try {
      const cache = createSymbolCache(dir);
      const fresh = cachedExtract("v.ts", Buffer.from(source), extractor, cache);
      const hit = cachedExtract(
        "v.ts",
        Buffer.from(source),
        {
          ...extractor,
          extract: () => {
            throw new Error("parsed on a cache hit");
          },
        },
        cache,
      );
      expect(hit.symbols.map((s) => s.detail)).toEqual(fresh.symbols.map((s) => s.detail));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("skips binary and over-size files with a diagnostic", () => {
    expect(extractor.extract("bin.ts", Buffer.from([0x65, 0x78, 0, 0x70])).diagnostics.map((d) => d.code)).toEqual(["binary_file"]);
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    expect(extractor.extract("big.py", big).diagnostics.map((d) => d.code)).toEqual(["file_too_large"]);
    expect(extractor.extract("notes.md", "# hi").diagnostics.map((d) => d.code)).toEqual(["unsupported_language"]);
  });

  for (const parsePath of PARSE_PATHS) {
    it.skipIf(parsePath.skip)(`never throws on arbitrary text, on the ${parsePath.name} (property)`, async () => {
      const ex = await createSymbolExtractor({ backend: parsePath.backend });
      fc.assert(
        fc.property(fc.string({ maxLength: 300 }), fc.constantFrom("a.ts", "a.tsx", "a.js", "a.py"), (text, file) => {
          const r = ex.extract(file, text);
          for (const s of r.symbols) expect(s.signature_hash).toMatch(/^[0-9a-f]{16}$/);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("picks the language by extension", () => {
    expect(["a.ts", "a.mts", "a.cts", "a.d.ts", "a.tsx", "a.js", "a.mjs", "a.cjs", "a.jsx", "a.py", "a.pyi"].map((f) => extractor.extract(f, "").language)).toEqual([
      "typescript",
      "typescript",
      "typescript",
      "typescript",
      "tsx",
      "javascript",
      "javascript",
      "javascript",
      "javascript",
      "python",
      "python",
    ]);
  });
});

describe("one extractor over many files", () => {
  it("gives the same result for the same file every time (its parser's scratch arrays are reused from file to file)", async () => {
    const fixtures = path.resolve(import.meta.dirname, "fixtures");
    for (const file of ["kinds.ts", "kinds.tsx", "kinds.js", "kinds.py"]) {
      const fresh = await createSymbolExtractor();
      const source = fs.readFileSync(path.join(fixtures, file));
      const runs = Array.from({ length: 12 }, () => {
        const r = fresh.extract(file, source);
        return JSON.stringify([r, r.symbols.map((s) => [s.signature, s.detail])]);
      });
      expect(new Set(runs).size, file).toBe(1);
      expect((JSON.parse(runs[0] as string) as [{ symbols: unknown[] }])[0].symbols.length, file).toBeGreaterThan(5);
    }
  });
});

describe("symbol cache", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-symcache-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("returns the stored result for the same content and a new one when the content changes", () => {
    const cache = createSymbolCache(dir);
    const v1 = Buffer.from("export function f(a: number) {}\n");
    const first = cachedExtract("src/a.ts", v1, extractor, cache);
    // A hit does not parse: prove it by using an extractor that would fail.
    const failing = {
      ...extractor,
      extract: () => {
        throw new Error("parsed on a cache hit");
      },
    };
    const hit = cachedExtract("src/a.ts", v1, failing, cache);
    expect(hit).toEqual(first);
    // Same content under another path: same symbols, its own path.
    expect(cachedExtract("lib/b.ts", v1, failing, cache).path).toBe("lib/b.ts");
    const v2 = Buffer.from("export function f(a: number, b: string) {}\n");
    const second = cachedExtract("src/a.ts", v2, extractor, cache);
    expect(second.symbols[0]?.signature_hash).not.toBe(first.symbols[0]?.signature_hash);
  });

  it("gives back records that read, copy, clone and serialise like fresh ones", () => {
    const cache = createSymbolCache(dir);
    const source = Buffer.from(
      "export class A<T> extends B {\n  get x(): number { return 1; }\n  m(a: T, b = 2): void {}\n}\nexport function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: unknown) {}\n",
    );
    const fresh = cachedExtract("src/a.ts", source, extractor, cache);
    const failing = {
      ...extractor,
      extract: () => {
        throw new Error("parsed on a cache hit");
      },
    };
    const hit = cachedExtract("src/a.ts", source, failing, cache);
    expect(hit.symbols.length).toBeGreaterThan(3);
    hit.symbols.forEach((cached, i) => {
      const own = fresh.symbols[i];
      expect(Object.keys(cached)).toEqual(Object.keys(own ?? {}));
      // Nothing hidden shows: no enumerable symbol keys, no extra keys in a spread, a clone or JSON.
      expect(Object.getOwnPropertySymbols(cached).filter((k) => Object.getOwnPropertyDescriptor(cached, k)?.enumerable)).toEqual([]);
      expect({ ...cached }).toStrictEqual({ ...own });
      expect(structuredClone(cached)).toStrictEqual(structuredClone(own));
      expect(JSON.stringify(cached)).toBe(JSON.stringify(own));
      // Read twice: the decoded detail and signature are kept, and stay equal.
      expect(cached.detail).toBe(cached.detail);
      expect(cached.signature).toBe(own?.signature);
    });
  });

  it("keeps each folder to its share of the entries, oldest written first out, looking only where it writes", () => {
    // 512 entries over 256 folders: two a folder. Hashes are given directly to choose the folder.
    const result = extractor.extract("a.py", "def f(): pass\n");
    const entries = (sub: string): string[] => (fs.existsSync(path.join(dir, sub)) ? fs.readdirSync(path.join(dir, sub)).sort() : []);
    const age = (sub: string, name: string, seconds: number): void => {
      const t = new Date(Date.now() - seconds * 1000);
      fs.utimesSync(path.join(dir, sub, name), t, t);
    };
    // Another folder over its share, written by an earlier process: a write elsewhere leaves it alone.
    for (const h of ["bb00000000000001", "bb00000000000002", "bb00000000000003"]) createSymbolCache(dir, { maxEntries: 512 }).set(h, "python", result);
    expect(entries("bb")).toHaveLength(2);
    fs.writeFileSync(path.join(dir, "bb", "v0-python-bb00000000000009.json"), "{}");
    // Three processes write into folder aa: the oldest entry goes, the newest always stays.
    createSymbolCache(dir, { maxEntries: 512 }).set("aa00000000000001", "python", result);
    createSymbolCache(dir, { maxEntries: 512 }).set("aa00000000000002", "python", result);
    const [first, second] = entries("aa");
    age("aa", first as string, 30);
    age("aa", second as string, 20);
    createSymbolCache(dir, { maxEntries: 512 }).set("aa00000000000003", "python", result);
    expect(entries("aa")).toEqual([second, expect.stringContaining("aa00000000000003")]);
    expect(entries("bb")).toHaveLength(3);
    // A cache object looks at a folder once: its later writes there do not prune again.
    const cache = createSymbolCache(dir, { maxEntries: 512 });
    cache.set("aa00000000000004", "python", result);
    cache.set("aa00000000000005", "python", result);
    expect(entries("aa")).toHaveLength(3);
    expect(cache.get("aa00000000000005", "python")?.symbols.map((x) => x.name)).toEqual(["f"]);
  });

  it("reads an entry of an older format, or one whose arrays are cut short, as a miss, and rewrites it", () => {
    const cache = createSymbolCache(dir);
    const v1 = Buffer.from("export function f(a: number) {}\n");
    const fresh = cachedExtract("a.ts", v1, extractor, cache);
    const [entry] = fs.readdirSync(dir).flatMap((sub) => fs.readdirSync(path.join(dir, sub)).map((f) => path.join(dir, sub, f)));
    const firstLine = (): string => fs.readFileSync(entry as string, "utf8").split("\n")[0] as string;
    const written = JSON.parse(firstLine()) as { v: number; s: unknown[] };
    // Version 3 kept one array per symbol; a reader of version 6 must not take it for its own.
    const older = { ...written, v: 3, s: [["f", "f", "function", 1, 1, 0, 1, 31, "0", "0", "[]"]] };
    // Version 4 had the same arrays but overloads in another form: its number alone must make it a miss.
    const v4 = { ...written, v: 4 };
    // Version 5 had no rendered signature in its arrays (11 slots a symbol), and no printed form after the entry.
    const v5 = { ...written, v: 5, s: written.s.filter((_, i) => i % 12 !== 10) };
    const cut = { ...written, s: written.s.slice(0, -1) };
    for (const stale of [older, v4, v5, cut]) {
      fs.writeFileSync(entry as string, JSON.stringify(stale));
      expect(cache.get(extractor.hasher.xxh64(v1), "typescript")).toBeNull();
      expect(cache.printed?.(extractor.hasher.xxh64(v1), "typescript")).toBeNull();
      expect(JSON.stringify(cachedExtract("a.ts", v1, extractor, cache))).toBe(JSON.stringify(fresh));
      expect((JSON.parse(firstLine()) as { v: number }).v).toBe(6);
    }
  });

  it("keeps each result's printed form, which is what printing the decoded result gives", () => {
    const cache = createSymbolCache(dir);
    for (const [name, text] of [
      ["a.ts", "export function f(a: number) {}\n"],
      ["b.ts", "export class {\n"],
      ["c.py", "def g(x, *, k=1):\n    return x\n"],
      ["d.py", "def é(x='ü😀'):\n    return x\n"],
    ] as const) {
      const bytes = Buffer.from(text);
      const fresh = cachedExtract(name, bytes, extractor, cache);
      const printed = cache.printed?.(extractor.hasher.xxh64(bytes), languageOf(name)?.id ?? "none");
      const printedText = Buffer.from(printed?.bytes ?? []).toString("utf8");
      expect(printedText).toBe(printedSymbols(fresh));
      expect(printed?.diagnostics).toEqual(fresh.diagnostics);
      const hit = cache.get(extractor.hasher.xxh64(bytes), languageOf(name)?.id ?? "none");
      expect(printedSymbols(hit as FileSymbols)).toBe(printedSymbols(fresh));
      expect(JSON.parse(`{${printedText}}`)).toEqual({ language: fresh.language, symbols: fresh.symbols.map(({ detail: _d, ...s }) => s), references: fresh.references });
    }
  });

  it("reads a printed form into a borrowed buffer as it reads it into its own, large or small, and misses quietly", () => {
    const cache = createSymbolCache(dir);
    // A file with enough symbols for an entry several times the borrowed buffer's first 64 KiB, then a small one:
    // the buffer grows while a read fills it, and a shorter entry read after a longer one ends where it ends.
    const big = Buffer.from(Array.from({ length: 2000 }, (_, i) => `export function f${i}(a: number, b: string): void {}\n`).join(""));
    const small = Buffer.from("def g(x):\n    return x\n");
    const cases = [
      ["big.ts", big],
      ["small.py", small],
      ["big.ts", big],
      ["small.py", small],
    ] as const;
    for (const [name, bytes] of cases) cachedExtract(name, bytes, extractor, cache);
    for (const [name, bytes] of cases) {
      const key = [extractor.hasher.xxh64(bytes), languageOf(name)?.id ?? "none"] as const;
      const own = cache.printed?.(...key);
      const borrowed = cache.printed?.(...key, { borrow: true });
      expect(Buffer.from(borrowed?.bytes ?? []).toString()).toBe(Buffer.from(own?.bytes ?? []).toString());
      expect(borrowed?.diagnostics).toEqual(own?.diagnostics);
    }
    expect(Buffer.from(cache.printed?.(extractor.hasher.xxh64(big), "typescript")?.bytes ?? []).length).toBeGreaterThan(3 * 64 * 1024);
    // A miss: null, no exception.
    expect(cache.printed?.("0123456789abcdef", "typescript", { borrow: true })).toBeNull();
  });

  it("does not read what an earlier extractor version stored: its results may miss what this one finds", () => {
    const cache = createSymbolCache(dir);
    const source = Buffer.from("export const { a, b } = o;\n");
    const fresh = cachedExtract("a.ts", source, extractor, cache);
    expect(fresh.symbols.map((s) => s.name)).toEqual(["a", "b"]);
    const [entry] = fs.readdirSync(dir).flatMap((sub) => fs.readdirSync(path.join(dir, sub)).map((f) => path.join(dir, sub, f)));
    expect(path.basename(entry as string)).toMatch(new RegExp(`^v${EXTRACTOR_VERSION}-typescript-`));
    // The entry under the earlier version's name: this version must not find it.
    const older = path.join(path.dirname(entry as string), path.basename(entry as string).replace(`v${EXTRACTOR_VERSION}-`, "v0123456789abcdef-"));
    fs.renameSync(entry as string, older);
    expect(cache.get(extractor.hasher.xxh64(source), "typescript")).toBeNull();
    expect(cachedExtract("a.ts", source, extractor, cache).symbols.map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("treats a corrupt entry as a miss", () => {
    const cache = createSymbolCache(dir);
    const v1 = Buffer.from("def f(): pass\n");
    cachedExtract("a.py", v1, extractor, cache);
    for (const sub of fs.readdirSync(dir)) for (const f of fs.readdirSync(path.join(dir, sub))) fs.writeFileSync(path.join(dir, sub, f), "{not json");
    expect(cachedExtract("a.py", v1, extractor, cache).symbols.map((s) => s.name)).toEqual(["f"]);
  });
});

describe("extractSymbols", () => {
  it("gives what an extractor gives, in any language, and a diagnostic for a file of none", async () => {
    const { extractSymbols } = await import("../../src/index.js");
    const fixtures = path.resolve(import.meta.dirname, "fixtures");
    for (const file of ["kinds.ts", "kinds.py"]) {
      const source = fs.readFileSync(path.join(fixtures, file));
      const r = await extractSymbols(file, source);
      expect(r).toEqual(extractor.extract(file, source));
      expect(r.symbols.length).toBeGreaterThan(20);
    }
    const [a, b] = await Promise.all([extractSymbols("x.ts", "export const a = 1;"), extractSymbols("y.ts", "export function b() {}")]);
    expect([a?.symbols[0]?.name, b?.symbols[0]?.name]).toEqual(["a", "b"]);
    expect((await extractSymbols("notes.md", "# hi")).diagnostics.map((d) => d.code)).toEqual(["unsupported_language"]);
  });
});
