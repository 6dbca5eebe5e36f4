import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Every oracle holds on both parse paths.
for (const parsePath of PARSE_PATHS) {
  describe.skipIf(parsePath.skip)(`on the ${parsePath.name}`, () => {
    let extractor: SymbolExtractor;
    beforeAll(async () => {
      extractor = await createSymbolExtractor({ backend: parsePath.backend });
    });
    oracles(() => extractor);
  });
}

/** Python's own `ast`: every def and class with its qualified name; a def whose nearest enclosing def/class is a class is a method. */
const PY_ORACLE = `
import ast, json, sys
out = {}
for path in sys.argv[1:]:
    tree = ast.parse(open(path, encoding="utf-8").read())
    found = set()
    def visit(node, scope, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.add((".".join(scope + [child.name]), "method" if in_class else "function"))
                visit(child, scope + [child.name], False)
            elif isinstance(child, ast.ClassDef):
                found.add((".".join(scope + [child.name]), "class"))
                visit(child, scope + [child.name], True)
            else:
                visit(child, scope, in_class)
    visit(tree, [], False)
    out[path] = sorted(found)
print(json.dumps(out))
`;

const PY_CORPUS = [
  "argparse.py",
  "json/decoder.py",
  "dataclasses.py",
  "typing.py",
  "pathlib.py",
  "asyncio/tasks.py",
  "collections/__init__.py",
  "email/message.py",
  "http/client.py",
  "logging/__init__.py",
  "unittest/case.py",
  "functools.py",
  "enum.py",
  "inspect.py",
  "ast.py",
  "textwrap.py",
  "shutil.py",
  "tempfile.py",
  "subprocess.py",
  "contextlib.py",
  "concurrent/futures/_base.py",
  "importlib/metadata/__init__.py",
];

/** The TypeScript compiler: top-level declarations, and what the module really exports (the checker's answer). */
/** Each file's oracle, computed once for both parse paths. */
const tsOracleMemo = new Map<string, string[]>();

function tsOracle(file: string): string[] {
  let memo = tsOracleMemo.get(file);
  if (memo === undefined) tsOracleMemo.set(file, (memo = tsOracleOf(file)));
  return memo;
}

function tsOracleOf(file: string): string[] {
  const program = ts.createProgram([file], { noResolve: true, noLib: true, allowJs: false, target: ts.ScriptTarget.ES2022 });
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`no source for ${file}`);
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(source);
  // A declaration is exported when some export of the module (under its own name, as `default`,
  // or through `export { a as b }`) resolves to it.
  const exported = new Set<ts.Node>();
  for (const e of moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)) {
    const target = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
    for (const d of target.declarations ?? []) exported.add(d);
  }
  // A declaration file that is not a module declares globals: public API, which the engine reports as exported.
  const globals = moduleSymbol === undefined && file.endsWith(".d.ts");
  const out = new Set<string>();
  const add = (name: string, kind: string, decl: ts.Node): void => {
    out.add(`${name} ${kind} ${exported.has(decl) || globals ? "export" : "-"}`);
  };
  for (const st of source.statements) {
    if (ts.isFunctionDeclaration(st) && st.name !== undefined) add(st.name.text, "function", st);
    else if (ts.isClassDeclaration(st) && st.name !== undefined) add(st.name.text, "class", st);
    else if (ts.isInterfaceDeclaration(st)) add(st.name.text, "interface", st);
    else if (ts.isTypeAliasDeclaration(st)) add(st.name.text, "type", st);
    else if (ts.isEnumDeclaration(st)) add(st.name.text, "enum", st);
    else if (ts.isModuleDeclaration(st) && ts.isIdentifier(st.name)) add(st.name.text, "namespace", st);
    else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) {
          // `const { a, b: c } = o`, `let [x, [y]] = t`: each bound name, exported when its binding element is.
          for (const [name, element] of boundElements(d.name)) add(name, "variable", element);
          continue;
        }
        const init = d.initializer;
        const fn = init !== undefined && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
        add(d.name.text, fn ? "function" : "variable", d);
      }
    }
  }
  return [...out].sort();
}

function boundElements(pattern: ts.BindingPattern): Array<[string, ts.BindingElement]> {
  return pattern.elements.flatMap((e): Array<[string, ts.BindingElement]> => {
    if (ts.isOmittedExpression(e)) return [];
    return ts.isIdentifier(e.name) ? [[e.name.text, e]] : boundElements(e.name);
  });
}

function tsFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
  return [
    ...walk(path.join(root, "src")),
    ...walk(path.join(root, "test")).filter((f) => !f.includes("fixtures")),
    path.join(root, "test/symbols/fixtures/kinds.ts"),
    path.join(root, "node_modules/vitest/dist/index.d.ts"),
    path.join(root, "node_modules/fast-check/lib/types/fast-check-default.d.ts"),
    path.join(root, "node_modules/isomorphic-git/index.d.ts"),
    path.join(root, "node_modules/xxhash-wasm/types.d.ts"),
    path.join(root, "node_modules/vite/dist/node/index.d.ts"),
  ].filter((f) => fs.existsSync(f));
}

/** The TypeScript compiler's reading of each top-level declaration's type parameters: name, modifiers, constraint?, default?. */
function tsTypeParams(source: string): Record<string, string[]> {
  const file = ts.createSourceFile("t.ts", source, ts.ScriptTarget.ES2022, true);
  const out: Record<string, string[]> = {};
  for (const st of file.statements) {
    if (!(ts.isInterfaceDeclaration(st) || ts.isClassDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isFunctionDeclaration(st)) || st.name === undefined) continue;
    out[st.name.text] = (st.typeParameters ?? []).map((t) => {
      const modifiers = (t.modifiers ?? []).map((m) => ts.tokenToString(m.kind) ?? "?");
      return `${[...modifiers, t.name.text].join(" ")}${t.constraint === undefined ? "" : " extends"}${t.default === undefined ? "" : " ="}`;
    });
  }
  return out;
}

/** The oracles, on the extractor of one parse path. */
function oracles(extractor: () => SymbolExtractor): void {
  describe("Python definitions against Python's own ast module (oracle)", () => {
    it("finds exactly the functions, classes and methods ast finds, with qualified names, in real stdlib files", () => {
      const stdlib = execFileSync("python3", ["-c", "import os, json; print(os.path.dirname(json.__file__.rsplit('/', 1)[0]))"], { encoding: "utf8" }).trim();
      const files = PY_CORPUS.map((f) => path.join(stdlib, f)).filter((f) => fs.existsSync(f));
      expect(files.length).toBeGreaterThanOrEqual(18);
      const oracle = JSON.parse(execFileSync("python3", ["-c", PY_ORACLE, ...files], { encoding: "utf8", maxBuffer: 1 << 26 })) as Record<string, Array<[string, string]>>;
      let total = 0;
      for (const file of files) {
        const r = extractor().extract(file, fs.readFileSync(file));
        expect(r.diagnostics, file).toEqual([]);
        const ours = [...new Set(r.symbols.filter((s) => ["function", "method", "class"].includes(s.kind)).map((s) => `${s.qualified_name} ${s.kind}`))].sort();
        const theirs = [...new Set((oracle[file] ?? []).map(([n, k]) => `${n} ${k}`))].sort();
        expect(ours, path.basename(file)).toEqual(theirs);
        total += theirs.length;
      }
      expect(total).toBeGreaterThan(1500);
    });
  });

  describe("TypeScript top-level declarations against the TypeScript compiler API (oracle)", () => {
    it("finds the same top-level declarations, with the same export status", () => {
      const files = tsFiles();
      expect(files.length).toBeGreaterThan(60);
      for (const file of files) {
        const r = extractor().extract(file, fs.readFileSync(file));
        const ours = [
          ...new Set(
            r.symbols
              .filter((s) => !s.qualified_name.includes(".") && s.kind !== "reexport" && s.kind !== "module" && s.qualified_name !== "default")
              .map((s) => `${s.qualified_name} ${s.kind} ${s.exported ? "export" : "-"}`),
          ),
        ].sort();
        expect(ours, path.relative(root, file)).toEqual(tsOracle(file));
      }
    });
  });

  describe("TypeScript type parameters against the TypeScript compiler's parser (oracle)", () => {
    it("reads names, `const` and the variance annotations (which the grammar does not parse) as the compiler does", () => {
      const param = fc.record({
        modifiers: fc.subarray(["in", "out"]),
        name: fc.constantFrom("A", "Tx", "K2", "Out", "Input"),
        constraint: fc.constantFrom(null, "string", "readonly unknown[]", "Record<string, B>", "(a: A) => void"),
        def: fc.constantFrom(null, "never", '"x"', "{ a: 1 }"),
      });
      const declaration = fc.record({
        kind: fc.constantFrom("interface", "class", "type", "function"),
        constModifier: fc.boolean(),
        params: fc.array(param, { minLength: 1, maxLength: 3 }),
        gap: fc.constantFrom(" ", "  ", "\n  ", " /* c */ "),
      });
      fc.assert(
        fc.property(fc.array(declaration, { minLength: 1, maxLength: 4 }), (decls) => {
          const source = decls
            .map((d, i) => {
              // `const` goes on functions' and classes' type parameters, `in`/`out` on interfaces', classes' and aliases'.
              const list = d.params
                .map((p) => {
                  const mods = [...(d.constModifier && (d.kind === "function" || d.kind === "class") ? ["const"] : []), ...(d.kind === "function" ? [] : p.modifiers)];
                  // (a modifier and its name on one line: after a line break the compiler reads no modifier)
                  return `${[...mods, p.name].join(d.gap.includes("\n") ? " " : d.gap)}${p.constraint === null ? "" : ` extends ${p.constraint}`}${p.def === null ? "" : ` = ${p.def}`}`;
                })
                .join(`,${d.gap}`);
              const name = `D${i}`;
              if (d.kind === "interface") return `export interface ${name}<${list}> { x: number }`;
              if (d.kind === "class") return `export class ${name}<${list}> { x = 1 }`;
              if (d.kind === "type") return `export type ${name}<${list}> = { x: number }`;
              return `export function ${name}<${list}>(a: number): void {}`;
            })
            .join("\n");
          const expected = tsTypeParams(source);
          const ours: Record<string, string[]> = {};
          for (const s of extractor().extract("t.ts", source).symbols) {
            if (s.qualified_name.includes(".")) continue;
            ours[s.name] = s.detail.type_params.map((t) => `${[...(t.modifiers ?? []), t.name].join(" ")}${t.constraint === null ? "" : " extends"}${t.default === null ? "" : " ="}`);
          }
          expect(ours, source).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });
  });
}
