import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizePythonName, packageKey, packageOfImport } from "../../src/packages/package-of-import.js";
import { packageExposure, type TextReader } from "../../src/packages/public-names.js";
import { declaredDependencies } from "../../src/packages/declared-dependencies.js";
import { scanImports } from "../../src/symbols/scan-imports.js";

describe("packageOfImport: the package a module specifier names", () => {
  it("maps bare specifiers, scoped names and subpaths to the package", () => {
    expect(packageOfImport("src/a.ts", "@acme/lib")).toBe("npm:@acme/lib");
    expect(packageOfImport("src/a.ts", "@acme/lib/sub/deep.js")).toBe("npm:@acme/lib");
    expect(packageOfImport("src/a.tsx", "lodash")).toBe("npm:lodash");
    expect(packageOfImport("src/a.mjs", "lodash/fp")).toBe("npm:lodash");
  });
  it("never maps relative imports, absolute paths, node: and other schemes, subpath imports or a bare scope", () => {
    for (const spec of ["./config", "../lib", ".", "..", "/abs/x", "node:fs", "https://x.dev/m.js", "#internal", "@acme", "@/components/x", "~/x", ""])
      expect(packageOfImport("src/a.ts", spec), spec).toBeNull();
  });
  it("maps Python absolute imports by their top-level name, normalised as packaging does; relative ones never", () => {
    expect(packageOfImport("app/main.py", "acme_lib.config")).toBe("python:acme-lib");
    expect(packageOfImport("app/main.py", "acme_lib")).toBe("python:acme-lib");
    expect(packageOfImport("app/main.pyi", "Acme.Lib")).toBe("python:acme");
    expect(packageOfImport("app/main.py", ".config")).toBeNull();
    expect(packageOfImport("app/main.py", "..pkg.x")).toBeNull();
    expect(packageKey("python", "Acme_Lib")).toBe(packageKey("python", "acme-lib"));
    expect(packageKey("python", "acme.lib")).toBe("python:acme-lib");
    expect(packageKey("maven", "org.acme:lib")).toBe("maven:org.acme:lib");
    expect(packageKey("nuget", "Acme.Lib")).toBeNull();
  });
  it("normalises Python names idempotently, and never maps a relative specifier, whatever the text", () => {
    fc.assert(fc.property(fc.string(), (s) => normalizePythonName(normalizePythonName(s)) === normalizePythonName(s)));
    fc.assert(fc.property(fc.string(), fc.constantFrom("src/a.ts", "app/b.py"), (s, from) => packageOfImport(from, `.${s}`) === null));
    fc.assert(
      fc.property(fc.string(), (s) => {
        const key = packageOfImport("src/a.ts", s);
        return key === null || (key.startsWith("npm:") && !key.includes(":", 4));
      }),
    );
  });
});

/** A file tree in memory, as absolute paths under /repo. */
function tree(files: Record<string, string>): TextReader {
  const abs = new Map(Object.entries(files).map(([k, v]) => [path.join("/repo", k), v]));
  return { read: (p) => abs.get(p) ?? null };
}

describe("packageExposure: a changed symbol's public names in its package", () => {
  const lib = {
    "packages/lib/package.json": JSON.stringify({ name: "@acme/lib", exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" }, "./package.json": "./package.json" } }),
    "packages/lib/src/index.ts":
      'export * from "./config.js";\nexport { format as formatConfig } from "./format";\nimport { helper as h } from "./util.js";\nexport { h as publicHelper };\nexport * as ns from "./ns.js";\n',
    "packages/lib/src/config.ts": "export function parseConfig() {}\nexport default function main() {}\n",
    "packages/lib/src/format.ts": "export function format() {}\nexport function hidden() {}\n",
    "packages/lib/src/util.ts": "export function helper() {}\n",
    "packages/lib/src/ns.ts": "export function inner() {}\n",
    "packages/lib/src/private.ts": "export function secret() {}\n",
  };
  const names = (file: string, tops: string[], files: Record<string, string> = lib) => {
    const r = packageExposure("/repo", file, tops, tree(files));
    return { pkg: r.package, names: Object.fromEntries(r.names) };
  };
  it("follows the exports map's conditions from the build folder back to the source, and every kind of re-export", () => {
    expect(names("packages/lib/src/config.ts", ["parseConfig", "default"])).toEqual({
      pkg: { name: "@acme/lib", ecosystem: "npm", path: "packages/lib" },
      names: { parseConfig: ["parseConfig"], default: [] },
    });
    expect(names("packages/lib/src/format.ts", ["format", "hidden"]).names).toEqual({ format: ["formatConfig"], hidden: [] });
    expect(names("packages/lib/src/util.ts", ["helper"]).names).toEqual({ helper: ["publicHelper"] });
    expect(names("packages/lib/src/ns.ts", ["inner"]).names).toEqual({ inner: ["ns"] });
    expect(names("packages/lib/src/private.ts", ["secret"]).names).toEqual({ secret: [] });
  });
  it("falls back to main, then src/index.ts, then to the exported name when no entry is found; no manifest is no package", () => {
    const withMain = { "package.json": JSON.stringify({ name: "m", main: "lib/index.js" }), "src/index.ts": 'export { a } from "./a";\n', "src/a.ts": "export const a = 1;\nexport const b = 2;\n" };
    expect(names("src/a.ts", ["a", "b"], withMain).names).toEqual({ a: ["a"], b: [] });
    const none = { "package.json": JSON.stringify({ name: "bare" }), "lib/x.ts": "export const x = 1;\n" };
    expect(names("lib/x.ts", ["x"], none).names).toEqual({ x: ["x"] });
    expect(names("src/a.ts", ["a"], { "src/a.ts": "export const a = 1;\n" })).toEqual({ pkg: null, names: {} });
  });
  it("survives re-export cycles", () => {
    const cyc = {
      "package.json": JSON.stringify({ name: "c" }),
      "src/index.ts": 'export * from "./a";\n',
      "src/a.ts": 'export * from "./b";\nexport const a = 1;\n',
      "src/b.ts": 'export * from "./a";\nexport const b = 1;\n',
    };
    expect(names("src/b.ts", ["b"], cyc).names).toEqual({ b: ["b"] });
  });
  it("Python: the distribution from pyproject, a private name has no public name, __init__ aliases count", () => {
    const py = {
      "pyproject.toml": '[project]\nname = "Acme_Lib"\nversion = "1"\n',
      "acme_lib/__init__.py": "from .config import parse_config as parse, load\n",
      "acme_lib/config.py": "def parse_config(p): pass\n",
    };
    expect(names("acme_lib/config.py", ["parse_config", "_helper"], py)).toEqual({
      pkg: { name: "Acme_Lib", ecosystem: "python", path: "." },
      names: { parse_config: ["parse", "parse_config"], _helper: [] },
    });
  });
});

describe("Go packages", () => {
  it("a Go import path is its package, the standard library's nobody's; a file's package is its go.mod's module and folder", () => {
    expect(packageOfImport("cmd/api/main.go", "github.com/acme/store/client")).toBe("go:github.com/acme/store/client");
    expect(packageOfImport("main.go", "gopkg.in/yaml.v3")).toBe("go:gopkg.in/yaml.v3");
    for (const std of ["fmt", "net/http", "encoding/json", "./local"]) expect(packageOfImport("main.go", std), std).toBeNull();
    const files = {
      "/repo/svc/go.mod": "module github.com/acme/svc\n\ngo 1.21\n",
      "/repo/svc/store/client/client.go": "package client\n",
      "/repo/svc/store.go": "package svc\n",
      "/repo/svc/cmd/api/main.go": "package main\n",
    };
    const reader: TextReader = { read: (f) => files[f as keyof typeof files] ?? null };
    const of = (file: string) => {
      const r = packageExposure("/repo", file, ["Open", "open"], reader);
      return { pkg: r.package, names: Object.fromEntries(r.names) };
    };
    expect(of("svc/store/client/client.go")).toEqual({ pkg: { name: "github.com/acme/svc/store/client", ecosystem: "go", path: "svc" }, names: { Open: ["Open"], open: [] } });
    expect(of("svc/store.go").pkg).toEqual({ name: "github.com/acme/svc", ecosystem: "go", path: "svc" });
    expect(of("svc/cmd/api/main.go").pkg).toBeNull();
    expect(packageExposure("/repo", "other/x.go", ["Open"], reader).package).toBeNull();
  });

  it("what Go code reads of its imports: each name through its alias or package name, not in comments or strings; a blank import none", () => {
    const text = [
      "package main",
      "",
      "import (",
      '\t"fmt"',
      '\tst "github.com/acme/store"',
      '\t"github.com/acme/go-cache/v2"',
      '\t_ "github.com/lib/pq"',
      '\t. "github.com/acme/dsl"',
      '\t"github.com/acme/unused"',
      ")",
      "",
      "// st.Close is not called here",
      'func main() { db := st.Open("x"); cache.New(); fmt.Println("st.Drop", db) }',
    ].join("\n");
    expect(scanImports(text, "go").map((r) => `${r.module} ${r.name}`)).toEqual([
      "fmt Println",
      "github.com/acme/dsl *",
      "github.com/acme/go-cache/v2 New",
      "github.com/acme/store Open",
      "github.com/acme/unused *",
    ]);
  });
});

describe("Rust crates", () => {
  it("a path's first segment is its crate (named with _); a lib crate's items are public under their names; Cargo.toml declares dependencies", () => {
    expect(packageOfImport("src/main.rs", "acme_store")).toBe("cargo:acme_store");
    expect(packageKey("cargo", "acme-store")).toBe("cargo:acme_store");
    for (const own of ["crate", "self", "super", "std", "core", "alloc"]) expect(packageOfImport("src/main.rs", own), own).toBeNull();
    const files: Record<string, string> = {
      "/repo/store/Cargo.toml": '[package]\nname = "acme-store"\nversion = "1.0.0"\n',
      "/repo/store/src/lib.rs": "pub mod client;\n",
      "/repo/store/src/client.rs": "pub fn connect() {}\n",
      "/repo/cli/Cargo.toml": '[package]\nname = "cli"\n\n[dependencies]\nacme-store = { path = "../store" }\nserde = "1"\nrenamed = { package = "other-crate", version = "2" }\n',
      "/repo/cli/src/main.rs": "fn main() {}\n",
    };
    const reader: TextReader = { read: (f) => files[f] ?? null };
    const r = packageExposure("/repo", "store/src/client.rs", ["connect"], reader);
    expect([r.package, Object.fromEntries(r.names)]).toEqual([{ name: "acme-store", ecosystem: "cargo", path: "store" }, { connect: ["connect"] }]);
    expect(packageExposure("/repo", "cli/src/main.rs", ["main"], reader).package).toBeNull();
    expect(declaredDependencies("/repo/cli", [], { read: (f) => files[f.replace("/repo/cli/./", "/repo/cli/").replace("/repo/cli/Cargo.toml", "/repo/cli/Cargo.toml")] ?? null })).toEqual(
      expect.arrayContaining(["cargo:acme_store", "cargo:serde", "cargo:other_crate"]),
    );
  });

  it("what Rust code uses of other crates: each item a use names, each path written in code; not its own crate's, std's or what comments and strings say", () => {
    const text = [
      "use acme_store::{client::{Client, connect as dial}, Error};",
      "use std::collections::HashMap;",
      "use crate::util::helper;",
      "use serde::*;",
      "// acme_store::drop_all() is not called",
      "fn f<'a>(s: &'a str) { let _ = acme_store::open(\"acme_store::nothing\"); let c = tokio::net::TcpStream::connect(s); }",
    ].join("\n");
    expect(scanImports(text, "rust").map((r) => `${r.module} ${r.name}`)).toEqual(["acme_store Client", "acme_store Error", "acme_store connect", "acme_store open", "serde *", "tokio TcpStream"]);
  });
});

describe("Java packages", () => {
  it("an import names its package (the JDK's are nobody's); a file's package is its package declaration's; what Java code imports", () => {
    expect(packageOfImport("src/Page.java", "com.acme.store")).toBe("java:com.acme.store");
    for (const jdk of ["java.util", "javax.annotation", "jdk.internal"]) expect(packageOfImport("src/Page.java", jdk), jdk).toBeNull();
    const files: Record<string, string> = {
      "/repo/store/pom.xml": "<project/>",
      "/repo/store/src/main/java/com/acme/store/Store.java": "/* c */\npackage com.acme.store;\npublic class Store {}\n",
      "/repo/Loose.java": "public class Loose {}\n",
    };
    const reader: TextReader = { read: (f) => files[f] ?? null };
    const r = packageExposure("/repo", "store/src/main/java/com/acme/store/Store.java", ["Store"], reader);
    expect([r.package, Object.fromEntries(r.names)]).toEqual([{ name: "com.acme.store", ecosystem: "java", path: "store" }, { Store: ["Store"] }]);
    expect(packageExposure("/repo", "Loose.java", ["Loose"], reader).package).toBeNull();
    const text = [
      "package com.acme.web;",
      "import com.acme.store.Store;",
      "import com.acme.store.Store.Entry;",
      "import static com.acme.util.Strings.trim;",
      "import com.acme.events.*;",
      "import java.util.List;",
      "// import com.acme.hidden.Nope;",
      'class Page { String s = "import com.acme.fake.X;"; }',
    ].join("\n");
    expect(scanImports(text, "java").map((r) => `${r.module} ${r.name}`)).toEqual(["com.acme.events *", "com.acme.store Store", "com.acme.util Strings"]);
  });
});

describe("declaredDependencies: what a repo's manifests depend on", () => {
  it("reads package.json dependency fields and pyproject dependencies, uv sources and Poetry, names only", () => {
    const files = tree({
      "package.json": JSON.stringify({ name: "root", dependencies: { "@acme/lib": "workspace:*" }, devDependencies: { vitest: "4" } }),
      "packages/a/package.json": JSON.stringify({ name: "a", peerDependencies: { react: ">=18" } }),
      "pyproject.toml":
        '[project]\nname = "app"\ndependencies = ["acme-lib>=0.1", "Requests[socks] ; python_version>\'3\'"]\n[project.optional-dependencies]\ndev = ["pytest"]\n[tool.uv.sources]\nacme_lib = { path = "../lib" }\n[tool.poetry.dependencies]\npython = "^3.11"\nflask = "*"\n',
      "broken/package.json": "{",
    });
    expect(
      declaredDependencies(
        "/repo",
        [
          { path: "packages/a", ecosystem: "npm" },
          { path: "broken", ecosystem: "npm" },
        ],
        files,
      ),
    ).toEqual(["npm:@acme/lib", "npm:react", "npm:vitest", "python:acme-lib", "python:flask", "python:pytest", "python:requests"]);
  });
});
