import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { filesUsing, importNamesModule, importTarget, moduleStem, packageUseReaches, resolveRelative, stemSuffixes } from "../../src/coordination/uses-symbol.js";
import { scanImports } from "../../src/symbols/scan-imports.js";

describe("which files use a symbol, from their imports", () => {
  it("resolves relative imports, TypeScript's and Python's, and never a bare or escaping one", () => {
    expect(resolveRelative("src/main.ts", "./config.js")).toBe("src/config");
    expect(resolveRelative("src/a/b.ts", "../config")).toBe("src/config");
    expect(resolveRelative("src/main.ts", "./lib/index.js")).toBe("src/lib");
    expect(resolveRelative("pkg/sub/main.py", ".config")).toBe("pkg/sub/config");
    expect(resolveRelative("pkg/sub/main.py", "..config")).toBe("pkg/config");
    expect(resolveRelative("pkg/sub/main.py", ".")).toBe("pkg/sub");
    expect(resolveRelative("src/main.ts", "@acme/lib")).toBeNull();
    expect(resolveRelative("src/main.ts", "lodash")).toBeNull();
    expect(resolveRelative("main.ts", "../outside")).toBeNull();
    expect(moduleStem("pkg/__init__.py")).toBe("pkg");
    expect(moduleStem("src/types.d.ts")).toBe("src/types");
  });

  it("says whether an import names a defining file", () => {
    expect(importNamesModule("src/main.ts", "./config.js", "src/config.ts")).toBe(true);
    expect(importNamesModule("src/main.ts", "./config", "src/config/index.ts")).toBe(true);
    expect(importNamesModule("src/main.ts", "./other", "src/config.ts")).toBe(false);
    expect(importNamesModule("app/main.py", "app.config", "app/config.py")).toBe(true);
    expect(importNamesModule("tests/t.py", "app.config", "src/app/config.py")).toBe(true);
    expect(importNamesModule("app/main.py", "config", "app/config.py")).toBe(false); // one segment: ambiguous
    expect(importNamesModule("src/main.ts", "lodash", "src/lodash.ts")).toBe(false);
    expect(importNamesModule("src/main.ts", "@acme/lib", "src/lib.ts")).toBe(false);
  });

  it("finds the users of a symbol: its top-level name or the whole module, never the defining file", () => {
    const uses = [
      { path: "src/main.ts", name: "parseConfig", module: "./config.js" },
      { path: "src/ns.ts", name: "*", module: "./config" },
      { path: "src/other.ts", name: "parseConfig", module: "./elsewhere" },
      { path: "src/calc-user.ts", name: "Calc", module: "./config" },
      { path: "src/config.ts", name: "parseConfig", module: "./config" },
      { path: "src/none.ts", name: "parseConfig", module: null },
    ];
    expect(filesUsing(uses, "src/config.ts", ["parseConfig"])).toEqual(["src/main.ts", "src/ns.ts"]);
    expect(filesUsing(uses, "src/config.ts", ["Calc.add"])).toEqual(["src/calc-user.ts", "src/ns.ts"]);
    expect(filesUsing(uses, "src/config.ts", ["loadConfig", "parseConfig"])).toEqual(["src/main.ts", "src/ns.ts"]); // a rename: the old name
  });

  it("indexes each import by a target that is one of the defining file's stem tails whenever the import names it", () => {
    expect(importTarget("src/main.ts", "./config.js")).toBe("src/config");
    expect(importTarget("app/main.py", "app.config")).toBe("app/config");
    expect(importTarget("src/main.ts", "@acme/lib/sub")).toBe("@acme/lib/sub");
    expect(stemSuffixes("src/app/config.py")).toEqual(["src/app/config", "app/config", "config"]);
    const seg = fc.constantFrom("src", "app", "lib", "config", "a", "b");
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 4 }), fc.array(seg, { minLength: 1, maxLength: 4 }), fc.constantFrom(".ts", ".py"), fc.nat(3), (from, def, ext, up) => {
        const fromPath = `${from.join("/")}${ext}`;
        const definingPath = `${def.join("/")}${ext}`;
        const spec = ext === ".py" ? `${".".repeat(up + 1)}${def.at(-1)}` : `${up === 0 ? "./" : "../".repeat(up)}${def.at(-1)}.js`;
        if (importNamesModule(fromPath, spec, definingPath)) expect(stemSuffixes(definingPath)).toContain(importTarget(fromPath, spec));
        const dotted = def.join(".");
        if (ext === ".py" && importNamesModule(fromPath, dotted, definingPath)) expect(stemSuffixes(definingPath)).toContain(importTarget(fromPath, dotted));
      }),
    );
  });
});

describe("scanImports: what a file imports, without a parser", () => {
  it("reads TypeScript and JavaScript imports, re-exports and requires the way the extractor names them; a side-effect import uses no name", () => {
    const ts =
      'import D, { a, b as c, type T } from "./m.js";\nimport * as ns from "../n";\nexport { x } from "./x";\nexport * from "./all";\nconst r = require("r");\nawait import("./lazy");\nimport "./side";\n';
    expect(scanImports(ts, "typescript").map((r) => `${r.name}@${r.module}`)).toEqual(["*@../n", "*@./all", "*@./lazy", "*@r", "T@./m.js", "a@./m.js", "b@./m.js", "default@./m.js", "x@./x"]);
  });

  it("reads the names a destructured require (or require(m).name) takes; a rest element, a nested pattern or a require in a string take the whole module or nothing", () => {
    const js = [
      'const { parse, uid: makeId } = require("@acme/utils");',
      "let {a = 1} = require('./defaults');",
      'const { ...everything } = require("./rest");',
      'const { deep: { x } } = require("./nested");',
      "const s = \"const { hidden } = require('./quoted')\";",
      'const m = require("@acme/utils").merge;',
    ].join("\n");
    expect(scanImports(js, "typescript").map((r) => `${r.name}@${r.module}`)).toEqual(["*@./nested", "*@./rest", "a@./defaults", "merge@@acme/utils", "parse@@acme/utils", "uid@@acme/utils"]);
  });

  it("reads Python's from-imports (also parenthesised) and plain imports", () => {
    const py = "from .config import parse_config, load as l\nfrom app.util import (\n    clamp,\n    lerp,\n)\nimport os.path, json as j\n";
    expect(scanImports(py, "python").map((r) => `${r.name}@${r.module}`)).toEqual(["*@json", "*@os.path", "clamp@app.util", "lerp@app.util", "load@.config", "parse_config@.config"]);
  });

  it("sends only real imports: never import-shaped text inside a string, a template, a comment or a docstring", () => {
    const ts = [
      `const doc = "import { secret } from './keys'";`,
      "const t = `import { other } from \"./hidden\"\n${x}\nrequire('./in-template')`;",
      "const re = /import x from 'y'/;",
      "// import { c } from './commented'",
      "/* export * from './block' */",
      `const s = 'require("./quoted")';`,
      'import { real } from "./real";',
      "const t2 = `${require('./in-code')}`;",
    ].join("\n");
    expect(scanImports(ts, "typescript").map((r) => `${r.name}@${r.module}`)).toEqual(["*@./in-code", "real@./real"]);
    const py = [
      '"""Example:',
      "from secrets_pkg import token",
      "import hidden",
      '"""',
      "s = 'from a import b'",
      "# import commented",
      "from real_pkg import thing",
      "x = '''",
      "import also_hidden",
      "'''",
    ].join("\n");
    expect(scanImports(py, "python").map((r) => `${r.name}@${r.module}`)).toEqual(["thing@real_pkg"]);
  });

  it("finds no import the parser does not find, in real code (the extractor's import references are the oracle)", async () => {
    const { createSymbolExtractor } = await import("../../src/symbols/symbol-extractor.js");
    const extractor = await createSymbolExtractor();
    const root = path.resolve(import.meta.dirname, "../..");
    const files = fs
      .readdirSync(path.join(root, "src"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => path.join(root, "src", f));
    const stdlib = execFileSync("python3", ["-c", "import json, os; print(os.path.dirname(os.path.dirname(json.__file__)))"], { encoding: "utf8" }).trim();
    files.push(
      ...fs
        .readdirSync(path.join(stdlib, "email"))
        .filter((f) => f.endsWith(".py"))
        .map((f) => path.join(stdlib, "email", f)),
    );
    let found = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      const parsed = new Set(
        extractor
          .extract(file, text)
          .references.filter((r) => r.kind === "import" || r.kind === "export")
          .map((r) => `${r.name}@${r.module}`),
      );
      for (const r of scanImports(text, file.endsWith(".py") ? "python" : "typescript")) {
        found++;
        expect(parsed.has(`${r.name}@${r.module}`), `${file}: ${r.name}@${r.module}`).toBe(true);
      }
    }
    expect(found).toBeGreaterThan(500);
  });

  it("never throws on any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.constantFrom("typescript", "python") as fc.Arbitrary<"typescript" | "python">, (text, lang) => {
        expect(Array.isArray(scanImports(text, lang))).toBe(true);
      }),
    );
  });
});

describe("packageUseReaches: whether an import of a package reaches a changed name of it", () => {
  const use = (path: string, name: string, module: string) => ({ path, name, module });
  it("an import of the name, or of the package's root as a whole, reaches it", () => {
    expect(packageUseReaches(use("src/a.ts", "parseConfig", "@acme/lib"), "parseConfig", "packages/lib/src/config.ts")).toBe(true);
    expect(packageUseReaches(use("src/a.ts", "*", "@acme/lib"), "parseConfig", "packages/lib/src/config.ts")).toBe(true);
    expect(packageUseReaches(use("src/a.ts", "*", "lodash"), "merge", "src/merge.ts")).toBe(true);
    expect(packageUseReaches(use("src/a.ts", "other", "@acme/lib"), "parseConfig", "packages/lib/src/config.ts")).toBe(false);
  });
  it("a whole subpath reaches only the file it names, through build folders; a type file is not the changed one", () => {
    expect(packageUseReaches(use("src/a.ts", "*", "vite/types/customEvent"), "normalizePath", "packages/vite/src/node/utils.ts")).toBe(false);
    expect(packageUseReaches(use("src/a.ts", "*", "@acme/lib/dist/config.js"), "parseConfig", "packages/lib/src/config.ts")).toBe(true);
    expect(packageUseReaches(use("src/a.ts", "*", "@acme/lib/config"), "parseConfig", "src/config/index.ts")).toBe(true);
    expect(packageUseReaches(use("src/a.ts", "*", "@acme/lib/other"), "parseConfig", "src/config.ts")).toBe(false);
  });
  it("Python: the package's root reaches everything, a submodule only its own file", () => {
    expect(packageUseReaches(use("app/main.py", "*", "acme_lib"), "parse", "acme_lib/config.py")).toBe(true);
    expect(packageUseReaches(use("app/main.py", "*", "acme_lib.config"), "parse", "acme_lib/config.py")).toBe(true);
    expect(packageUseReaches(use("app/main.py", "*", "acme_lib.util"), "parse", "acme_lib/config.py")).toBe(false);
  });
});
