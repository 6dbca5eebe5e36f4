import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

// Go definitions against two references on real code (test/fixtures/go: gorilla/mux and samber/lo): Go's own parser
// (go/ast, from Debian's golang-go), every package-level definition with its qualified name and line, both ways; and
// Universal Ctags, at least 99% of the definitions it reports (its 2021 Go parser misses generic types' members and
// reports a few variables of function bodies as the package's). CI installs both where missing (.ci/run).

const FIXTURE = path.resolve("test/fixtures/go");
const FILES = ["mux", "lo"].flatMap((d) =>
  fs
    .readdirSync(path.join(FIXTURE, d))
    .filter((f) => f.endsWith(".go"))
    .sort()
    .map((f) => `${d}/${f}`),
);
// (ctags takes any other argument for a file to tag, and writes ./tags)
const has = (cmd: string, arg: string): boolean => spawnSync(cmd, [arg], { stdio: "ignore" }).status === 0;
const GO = has("go", "version");
const CTAGS = has("ctags", "--version");

/** Go's own parser: each package-level function, method (`Recv.Name`), type, field, interface method, constant and variable. */
const ORACLE =
  String.raw`package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

type def struct {
	Path string ` +
  "`" +
  String.raw`json:"path"` +
  "`" +
  String.raw`
	Name string ` +
  "`" +
  String.raw`json:"name"` +
  "`" +
  String.raw`
	Line int    ` +
  "`" +
  String.raw`json:"line"` +
  "`" +
  String.raw`
}

func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func main() {
	out := []def{}
	fset := token.NewFileSet()
	for _, path := range os.Args[1:] {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			panic(err)
		}
		line := func(p token.Pos) int { return fset.Position(p).Line }
		var members func(prefix []string, fields *ast.FieldList)
		members = func(prefix []string, fields *ast.FieldList) {
			if fields == nil {
				return
			}
			for _, fd := range fields.List {
				if len(fd.Names) == 0 {
					// an embedded type, by its name
					name := recvType(fd.Type)
					if sel, ok := fd.Type.(*ast.SelectorExpr); ok {
						name = sel.Sel.Name
					}
					if star, ok := fd.Type.(*ast.StarExpr); ok {
						if sel, ok := star.X.(*ast.SelectorExpr); ok {
							name = sel.Sel.Name
						}
					}
					out = append(out, def{path, strings.Join(append(prefix, name), "."), line(fd.Pos())})
					continue
				}
				for _, n := range fd.Names {
					out = append(out, def{path, strings.Join(append(prefix, n.Name), "."), line(n.Pos())})
					if st, ok := fd.Type.(*ast.StructType); ok {
						members(append(append([]string{}, prefix...), n.Name), st.Fields)
					}
				}
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					name = recvType(d.Recv.List[0].Type) + "." + name
				}
				out = append(out, def{path, name, line(d.Pos())})
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out = append(out, def{path, s.Name.Name, line(s.Pos())})
						switch t := s.Type.(type) {
						case *ast.StructType:
							members([]string{s.Name.Name}, t.Fields)
						case *ast.InterfaceType:
							for _, m := range t.Methods.List {
								for _, n := range m.Names {
									out = append(out, def{path, s.Name.Name + "." + n.Name, line(n.Pos())})
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								out = append(out, def{path, n.Name, line(n.Pos())})
							}
						}
					}
				}
			}
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`;

let dir: string;
let goDefs: Set<string> = new Set();
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-go-oracle-"));
  if (!GO) return;
  fs.writeFileSync(path.join(dir, "main.go"), ORACLE);
  const env = { ...process.env, GOCACHE: path.join(dir, "cache"), GOPATH: path.join(dir, "gopath"), GO111MODULE: "off" };
  execFileSync("go", ["build", "-o", path.join(dir, "oracle"), path.join(dir, "main.go")], { env, stdio: "pipe" });
  const found = JSON.parse(execFileSync(path.join(dir, "oracle"), FILES, { cwd: FIXTURE, encoding: "utf8" })) as Array<{ path: string; name: string; line: number }>;
  goDefs = new Set(found.map((d) => `${d.path} ${d.name} ${d.line}`));
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

for (const parsePath of PARSE_PATHS) {
  describe.skipIf(parsePath.skip)(`Go on the ${parsePath.name}`, () => {
    let extractor: SymbolExtractor;
    const ours = (key: (p: string, s: { qualified_name: string; name: string; range: { start_line: number } }) => string): Set<string> => {
      const out = new Set<string>();
      for (const f of FILES) {
        const r = extractor.extract(f, fs.readFileSync(path.join(FIXTURE, f)));
        expect(r.diagnostics, f).toEqual([]);
        for (const s of r.symbols) out.add(key(f, s));
      }
      return out;
    };
    beforeAll(async () => {
      extractor = await createSymbolExtractor({ backend: parsePath.backend, languages: ["go"] });
    });

    it.skipIf(!GO)("equals Go's own parser: every definition, by qualified name and line, and nothing else", () => {
      expect(goDefs.size).toBeGreaterThan(400);
      const mine = ours((p, s) => `${p} ${s.qualified_name} ${s.range.start_line}`);
      expect([...goDefs].filter((d) => !mine.has(d))).toEqual([]);
      expect([...mine].filter((d) => !goDefs.has(d))).toEqual([]);
    });

    it.skipIf(!CTAGS)("finds at least 99% of the definitions Universal Ctags reports, by name and line", () => {
      const tags = execFileSync("ctags", ["--output-format=json", "--fields=+nzK", "--languages=Go", "-f", "-", ...FILES], { cwd: FIXTURE, encoding: "utf8" })
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { path: string; name: string; line: number; kind: string; scopeKind?: string })
        .filter((t) => !["package", "packageName", "unknown"].includes(t.kind) && t.scopeKind !== "func")
        .map((t) => `${t.path} ${t.name} ${t.line}`);
      expect(tags.length).toBeGreaterThan(300);
      const mine = ours((p, s) => `${p} ${s.name} ${s.range.start_line}`);
      const found = tags.filter((t) => mine.has(t));
      expect(found.length / tags.length).toBeGreaterThanOrEqual(0.99);
    });
  });
}
