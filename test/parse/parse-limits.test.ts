import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadFlatParsers } from "../../src/parse/flat-parsers.js";
import { loadFlatParser, type FlatParserKind } from "../../src/parse/native-parser.js";
import { defaultParseLimits, isParseOverBudget, limitsUntil, type ParseLimits } from "../../src/parse/parse-limits.js";
import { LANGUAGES } from "../../src/symbols/languages.js";
import { createSymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { HANGING_TSX } from "../helpers/hanging-code.js";

// tree-sitter-typescript's error recovery loops for ever on some half-written TSX (its parse grows without bound):
// every parse path must stop at its deadline or its memory bound, and say so.

const fixtures = path.resolve(import.meta.dirname, "../symbols/fixtures");
const kinds: FlatParserKind[] = loadFlatParser() === null ? ["wasm"] : ["native", "wasm"];
const QUICK: ParseLimits = { deadlineMs: 150, maxBytes: 256 * 1024 * 1024 };

describe.each(kinds)("a parse by the %s parser", (kind) => {
  it("stops at its deadline on a text whose parse never ends, with a PARSE_TIMEOUT error, and parses the next text as usual", async () => {
    const tsx = (
      await loadFlatParsers(
        LANGUAGES.filter((l) => l.id === "tsx"),
        kind,
      )
    ).get("tsx");
    if (tsx === undefined) throw new Error("no TSX parser");
    for (const text of HANGING_TSX) {
      let error: unknown = null;
      try {
        tsx.parse(text, QUICK);
      } catch (e) {
        error = e;
      }
      expect(isParseOverBudget(error), text).toBe(true);
      expect((error as Error).message).toBe("the parse took longer than 150 ms and was stopped");
      expect(tsx.parse("const a = <div>{b}</div>;\n").count).toBeGreaterThan(5);
    }
  });

  it("stops at its memory bound, and starts none with no time left", async () => {
    const ts = (
      await loadFlatParsers(
        LANGUAGES.filter((l) => l.id === "typescript"),
        kind,
      )
    ).get("typescript");
    if (ts === undefined) throw new Error("no TypeScript parser");
    const big = fs.readFileSync(path.join(fixtures, "kinds.ts"), "utf8").repeat(40);
    // web-tree-sitter's memory grows in steps of 64 KiB pages: a bound of a few bytes is passed at its first growth.
    // Its memory may be large already (grown by earlier parses), so that the parse needs no growth: checked on the
    // native parser only, whose arena starts afresh at every parse.
    if (kind === "native") expect(() => ts.parse(big, { deadlineMs: 60_000, maxBytes: 1024 })).toThrow(/used more than 0 MiB/);
    expect(ts.parse(big, { deadlineMs: 60_000, maxBytes: 256 * 1024 * 1024 }).count).toBeGreaterThan(1000);
    let error: unknown = null;
    try {
      ts.parse("const a = 1;\n", { deadlineMs: 0, maxBytes: 1 << 30 });
    } catch (e) {
      error = e;
    }
    expect(isParseOverBudget(error) && (error as Error).message).toBe("no time was left to parse it");
  });

  it("gives a file whose parse never ends a parse_timeout diagnostic and no symbols; a fuzzed file of any language ends within its deadline", async () => {
    const extractor = await createSymbolExtractor({ backend: kind === "native" ? "flat" : "wasm", parseLimits: () => QUICK });
    const r = extractor.extract("x.tsx", HANGING_TSX[0]);
    expect(r.symbols).toEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([["parse_timeout", "x.tsx"]]);
    const seeds = {
      ts: fs.readFileSync(path.join(fixtures, "kinds.ts"), "utf8"),
      tsx: fs.readFileSync(path.join(fixtures, "kinds.tsx"), "utf8"),
      py: fs.readFileSync(path.join(fixtures, "kinds.py"), "utf8"),
    };
    const pieces = ["<", ">", "{", "}", "{{", "(", ")", ":", "=>", "<a ", "</", "/>", '"', "'", "`", "${", "@", "def ", ":\n    ", "\n", "e f", "as ", "<T,>", ...HANGING_TSX];
    let timedOut = 0;
    fc.assert(
      fc.property(
        fc.constantFrom("ts", "tsx", "py") as fc.Arbitrary<keyof typeof seeds>,
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...pieces), fc.nat(3)), { minLength: 1, maxLength: 6 }),
        (ext, from, edits) => {
          const seed = seeds[ext];
          let text = seed.slice(from % seed.length, (from % seed.length) + 400);
          for (const [at, piece, cut] of edits) text = text.slice(0, at % (text.length + 1)) + piece + text.slice((at % (text.length + 1)) + cut);
          const result = extractor.extract(`f.${ext}`, text);
          const codes = result.diagnostics.map((d) => d.code);
          if (codes.includes("parse_timeout")) {
            timedOut++;
            expect(result.symbols).toEqual([]);
          }
          expect(codes.every((c) => c === "parse_error" || c === "parse_timeout")).toBe(true);
        },
      ),
      { numRuns: 300, seed: 42 },
    );
    // The hanging texts are among the pieces: some fuzzed files hang, and each is stopped.
    expect(timedOut).toBeGreaterThan(0);
  });
});

describe("parse limits", () => {
  it("grow with the text, and end at a deadline shared by every parse", () => {
    expect(defaultParseLimits(0)).toEqual({ deadlineMs: 2000, maxBytes: 256 * 1024 * 1024 });
    expect(defaultParseLimits(1024 * 1024).deadlineMs).toBe(4048);
    let now = 1000;
    const limits = limitsUntil(1500, defaultParseLimits, () => now);
    expect(limits(10).deadlineMs).toBe(500);
    now = 1600;
    expect(limits(10).deadlineMs).toBe(0);
  });
});
