import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contractUses } from "../../src/contracts/contract-uses.js";
import { routesIn } from "../../src/contracts/code-routes.js";
import { blankRustLiterals, scanImports } from "../../src/symbols/scan-imports.js";
import { esFromStatements, firstAtOrAfter, positionsOf, pythonFromImports } from "../../src/symbols/statement-scan.js";

// The linear readers say what the regular expressions they replace said, on any text those end on; and they end on
// text made to make those run for minutes.

/** Text made of the tokens import statements are made of, in any order. */
const soup = (tokens: readonly string[]) => fc.array(fc.constantFrom(...tokens), { maxLength: 40 }).map((t) => t.join(""));

describe("positions", () => {
  it("finds the first position at or after an offset, as a scan would", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.nat(70), (text, from) => {
        const scan = [...text].findIndex((c, i) => i >= from && (c === ")" || c === ";"));
        expect(firstAtOrAfter(positionsOf(text, ");"), from)).toBe(scan);
      }),
      { numRuns: 500 },
    );
  });
});

describe("Python's from-imports", () => {
  const TOKENS = ["from", "import", " ", "\t", "\n", "(", ")", "a", "b.c", "..d", ",", " as ", "#", ";", "\\\n", "x_pb2"];
  // What the regular expression it replaces read (with `import(` allowed, as Python does).
  const reference = (text: string) =>
    [...text.matchAll(/^[ \t]*(from)[ \t]+([.\w]+)[ \t]+import(?=[ \t(])[ \t]*(\([^)]*\)|[^\n#;]+)/gm)]
      .map((m) => ({ index: m.index + m[0].indexOf("from"), module: m[2], names: (m[3] ?? "").trim() }))
      .filter((m) => m.names !== "");
  it("reads what the regular expression read", () => {
    fc.assert(
      fc.property(soup(TOKENS), (text) => {
        expect(pythonFromImports(text).map((f) => ({ ...f, names: f.names.trim() }))).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
  it("reads a parenthesised list over lines, and an unclosed one as its line", () => {
    expect(pythonFromImports("from a.b import (\n  C,\n  D as E,\n)\nfrom x import y  # z\n")).toEqual([
      { index: 0, module: "a.b", names: "(\n  C,\n  D as E,\n)" },
      { index: 35, module: "x", names: "y  " },
    ]);
    expect(pythonFromImports("from a import (b,\nfrom c import d\n").map((f) => f.module)).toEqual(["a", "c"]);
  });
});

describe("ECMAScript's import and export ... from", () => {
  const TOKENS = ["import", "export", " ", "\n", "type", " type ", "{", "}", "a", "b as c", ",", "* as ns", "from", " from ", "'m'", '"n"', "'", '"', ";", "(", "x.", "$"];
  const reference = (text: string, clause: string) =>
    [...text.matchAll(new RegExp(`\\b(import|export)(?:\\s+(type)\\b)?(?=[\\s{*])(${clause}*?)(?<![\\w$])from\\s*(["'])([^'";]*)\\4`, "g"))].map((m) => {
      const body = (m[3] ?? "").trim();
      const typeOnly = m[2] !== undefined && body !== "";
      return {
        index: m.index,
        keyword: m[1],
        typeOnly,
        clause: m[2] !== undefined && !typeOnly ? "type" : body,
        specifier: m[5],
        quote: m.index + m[0].length - (m[5] ?? "").length - 2,
      };
    });
  it("reads what the regular expression read, with either set of clause characters", () => {
    fc.assert(
      fc.property(soup(TOKENS), (text) => {
        expect(esFromStatements(text)).toEqual(reference(text, `[^'";]`));
        expect(esFromStatements(text, /[\w$*{}\s,]/)).toEqual(reference(text, "[\\w$*{}\\s,]"));
      }),
      { numRuns: 3000 },
    );
  });
  it("reads minified statements and a default import named `type`", () => {
    expect(scanImports('import{a as b}from"m";import*as n from"o";import type from "p"', "typescript")).toEqual([
      { kind: "import", name: "*", module: "o" },
      { kind: "import", name: "a", module: "m" },
      { kind: "import", name: "default", module: "p" },
    ]);
  });
});

describe("Rust's literals and comments", () => {
  it("blanks nested comments, raw and byte strings, escaped line ends and characters, and keeps lifetimes", () => {
    const text = [
      "/* a /* nested */ still comment use x::Y; */ use a::B;",
      'let s = "line \\',
      '  ends"; use c::D;',
      'let r = r#"a "quoted" use e::F;"#; let b = br"x";',
      "fn f<'a>(x: &'a str) -> char { '\"' } // use g::H;",
      "use i::J;",
    ].join("\n");
    const blank = blankRustLiterals(text);
    expect(blank.length).toBe(text.length);
    expect(blank.split("\n").length).toBe(text.split("\n").length);
    expect(scanImports(text, "rust").map((r) => `${r.module}::${r.name}`)).toEqual(["a::B", "c::D", "i::J"]);
    expect(blank).toContain("fn f<'a>(x: &'a str)");
  });
  it("ends an unclosed comment or string at the end of the text", () => {
    expect(blankRustLiterals('use a::B; /* use c::D;\n"x')).toBe("use a::B;             \n  ");
  });
});

// A guard far above what a linear scan takes (well under a second a megabyte here), far below what the regular
// expressions these replaced took on the same text (from 20 s to several minutes): it tells linear from quadratic.
const GUARD_MS = 60_000;
const MB = 1 << 20;
const repeated = (s: string) => s.repeat(Math.ceil(MB / s.length));

describe("text made to cost the square of its length", () => {
  const OPENERS = [
    "import (\n",
    "import a.b.",
    "import {",
    "export {",
    "from a import (\n",
    "from gen import (\n",
    "from a_pb2 import (\n",
    "from gen import A\n",
    "import x_pb2 as y\n",
    "use x\n",
    "use a::{",
    "/*",
    'r#"',
    "url: '/a'",
    'import a "x/y"\n',
  ];
  const CLOSER = '\n) ; " \' */ "# }\nimport a from "x_pb";\nfrom a import b\nuse a::b;\n';
  const FILES = ["a.ts", "a.py", "a.go", "a.rs", "a.java"];
  it(
    "scans every language's imports, contract uses and routes of a megabyte of unclosed openers",
    () => {
      for (const opener of OPENERS)
        for (const text of [repeated(opener), repeated(opener) + CLOSER])
          for (const file of FILES) {
            const lang = file.endsWith(".py") ? "python" : file.endsWith(".go") ? "go" : file.endsWith(".rs") ? "rust" : file.endsWith(".java") ? "java" : "typescript";
            expect(Array.isArray(scanImports(text, lang))).toBe(true);
            expect(Array.isArray(contractUses(file, text, 2 * MB))).toBe(true);
            expect(Array.isArray(routesIn(file, text))).toBe(true);
          }
    },
    GUARD_MS,
  );
});
