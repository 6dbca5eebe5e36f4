import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { expectAnalyzeSchema } from "../helpers/analyze-schema.js";
import { runBuiltCli } from "../helpers/run-cli.js";
import { mentionsEnd } from "../../src/analyze/cross-repo-impacts.js";
import { scanImports } from "../../src/symbols/scan-imports.js";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "config") };
});
afterEach(() => sb.cleanup());

/** A repo with these files, committed. */
function repo(name: string, files: Record<string, string>): string {
  const dir = path.join(sb.dir, name);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  sb.git(dir, "init", "-q");
  sb.git(dir, "add", "-A");
  sb.git(dir, "commit", "-q", "-m", "init");
  return dir;
}

describe("comity analyze: breaking changes across repos", () => {
  it("lists the publisher's breaking changes that the consumer imports, with its files; not what the entry hides or nobody imports", () => {
    const lib = repo("lib", {
      "package.json": JSON.stringify({ name: "@acme/lib", exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } } }),
      "src/index.ts": 'export { parseConfig, formatConfig } from "./config.js";\n',
      "src/config.ts":
        "export function parseConfig(path: string): object {\n  return {};\n}\nexport function formatConfig(c: object): string {\n  return '';\n}\nexport function internalHelper(x: number): number {\n  return x;\n}\n",
    });
    repo("app", {
      "package.json": JSON.stringify({ name: "app", dependencies: { "@acme/lib": "^1.0.0" } }),
      "src/main.ts": 'import { parseConfig } from "@acme/lib";\nexport const c = parseConfig("a");\n',
      "src/other.ts": 'import * as lib from "@acme/lib";\nexport const l = lib;\n',
      "src/unrelated.ts": "export const x = 1;\n",
    });
    repo("tool", { "package.json": JSON.stringify({ name: "tool" }), "src/t.ts": 'import { parseConfig } from "@acme/lib";\n' }); // imports it without declaring it
    const pyLib = repo("pylib", { "pyproject.toml": '[project]\nname = "acme-lib"\n', "acme_lib/__init__.py": "", "acme_lib/config.py": "def parse_config(path):\n    return path\n" });
    repo("pyapp", { "pyproject.toml": '[project]\nname = "pyapp"\ndependencies = ["acme-lib"]\n', "pyapp/main.py": "from acme_lib.config import parse_config\n" });
    fs.writeFileSync(
      path.join(lib, "src/config.ts"),
      fs
        .readFileSync(path.join(lib, "src/config.ts"), "utf8")
        .replace("parseConfig(path: string)", "parseConfig(path: string, strict: boolean)")
        .replace("formatConfig(c: object)", "formatConfig(c: object, pretty: boolean)")
        .replace("internalHelper(x: number)", "internalHelper(x: number, y: number)"),
    );
    fs.writeFileSync(path.join(pyLib, "acme_lib/config.py"), "def parse_config(path, strict):\n    return path\n");

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { cross_repo: unknown[]; briefing: string };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo).toEqual([
      {
        publisher: "lib",
        package: "@acme/lib",
        ecosystem: "npm",
        path: "src/config.ts",
        qualified_name: "formatConfig",
        public_name: "formatConfig",
        change: "signature_changed",
        reasons: ["PARAMETER_ADDED_REQUIRED"],
        consumer: "app",
        files: ["src/other.ts"],
        consumer_packages: [{ name: "app", path: ".", files: 1 }],
      },
      {
        publisher: "lib",
        package: "@acme/lib",
        ecosystem: "npm",
        path: "src/config.ts",
        qualified_name: "parseConfig",
        public_name: "parseConfig",
        change: "signature_changed",
        reasons: ["PARAMETER_ADDED_REQUIRED"],
        consumer: "app",
        files: ["src/main.ts", "src/other.ts"],
        consumer_packages: [{ name: "app", path: ".", files: 2 }],
      },
      {
        publisher: "pylib",
        package: "acme-lib",
        ecosystem: "python",
        path: "acme_lib/config.py",
        qualified_name: "parse_config",
        public_name: "parse_config",
        change: "signature_changed",
        reasons: ["PARAMETER_ADDED_REQUIRED"],
        consumer: "pyapp",
        files: ["pyapp/main.py"],
        consumer_packages: [{ name: "pyapp", path: ".", files: 1 }],
      },
    ]);
    expect(doc.briefing).toContain(
      "Breaking changes in one repo's package that another repo here uses:\n- `formatConfig` of `@acme/lib` (lib: `src/config.ts`, signature_changed: PARAMETER_ADDED_REQUIRED) breaks app, which uses it in `src/other.ts`",
    );
  });

  it("Go: a module's breaking change reaches the repos that require it and read the changed name, by package", () => {
    const store = repo("store", {
      "go.mod": "module github.com/acme/store\n\ngo 1.21\n",
      "store.go": "package store\n\nfunc Open(path string) error { return nil }\n\nfunc Close() {}\n",
      "client/client.go": "package client\n\nfunc Dial(addr string) error { return nil }\n",
    });
    repo("api", {
      "go.mod": "module github.com/acme/api\n\ngo 1.21\n\nrequire (\n\tgithub.com/acme/store v1.2.0\n)\n",
      "main.go": 'package main\n\nimport "github.com/acme/store"\n\nfunc main() { _ = store.Open("x") }\n',
      "close.go": 'package main\n\nimport st "github.com/acme/store"\n\nfunc done() { st.Close() }\n',
      "dial.go": 'package main\n\nimport "github.com/acme/store/client"\n\nfunc dial() { _ = client.Dial("x") }\n',
      // (a dot import: the package's names read unqualified; one that reads only Close is no user of Open)
      "dot.go": 'package main\n\nimport . "github.com/acme/store"\n\nfunc again() { _ = Open("y") }\n',
      "dotclose.go": 'package main\n\nimport . "github.com/acme/store"\n\n// Open is named in a comment only\nfunc shut() { Close() }\n',
    });
    repo("other", { "go.mod": "module github.com/acme/other\n\ngo 1.21\n", "main.go": "package main\n\n// store.Open is only named here\nfunc main() {}\n" });
    fs.writeFileSync(path.join(store, "store.go"), "package store\n\nfunc Open(path string, readOnly bool) error { return nil }\n\nfunc Close() {}\n");
    fs.writeFileSync(path.join(store, "client/client.go"), "package client\n\nfunc Dial(addr string, timeout int) error { return nil }\n");
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { cross_repo: Array<{ package: string; ecosystem: string; qualified_name: string; reasons: string[]; consumer: string; files: string[] }> };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo.map((c) => [c.package, c.ecosystem, c.qualified_name, c.reasons, c.consumer, c.files])).toEqual([
      ["github.com/acme/store/client", "go", "Dial", ["PARAMETER_ADDED"], "api", ["dial.go"]],
      ["github.com/acme/store", "go", "Open", ["PARAMETER_ADDED"], "api", ["dot.go", "main.go"]],
    ]);
  });

  it("Java: a module's breaking change reaches the builds that depend on its Maven or Gradle coordinates and import the type or name it in full", () => {
    const POM = (artifact: string, deps: string) =>
      `<?xml version="1.0"?>\n<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>${artifact}</artifactId><version>1.0</version><dependencies>${deps}</dependencies></project>\n`;
    const dep = (g: string, a: string) => `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>1.0</version></dependency>`;
    const STORE = "package com.acme.store;\n\npublic class Store {\n  public Store open(String path) { return this; }\n}\n";
    const store = repo("store", { "pom.xml": POM("store", ""), "src/main/java/com/acme/store/Store.java": STORE });
    const use = 'package com.acme.app;\n\nimport com.acme.store.Store;\n\nclass Main { Store s = new Store().open("x"); }\n';
    // Maven, declaring the store: a user. Gradle (Kotlin DSL), declaring it: a user. Maven declaring something else
    // (its own copy of the package, say): none. No build file at all: a user by its imports.
    repo("app", { "pom.xml": POM("app", dep("com.acme", "store") + dep("org.slf4j", "slf4j-api")), "src/main/java/com/acme/app/Main.java": use });
    // (a sibling declared through the pom's own group, as multi-module builds often do)
    repo("papp", { "pom.xml": POM("papp", dep("${project.groupId}", "store")), "src/main/java/com/acme/app/Main.java": use });
    repo("gapp", {
      "settings.gradle.kts": 'rootProject.name = "gapp"\ninclude(":web")\n',
      "build.gradle.kts": 'allprojects { group = "com.acme" }\n',
      "web/build.gradle.kts": 'dependencies {\n  implementation("com.acme:store:1.0") // the store\n  testImplementation("org.junit.jupiter:junit-jupiter:5.10.0")\n}\n',
      "web/src/main/java/com/acme/app/Main.java": use,
    });
    repo("other", { "pom.xml": POM("other", dep("com.example", "store")), "src/main/java/com/acme/app/Main.java": use });
    // Gradle through a version catalog: declaring the store, a user; declaring another store of the same name, none.
    const catalogApp = (module: string) => ({
      "settings.gradle.kts": 'rootProject.name = "capp"\n',
      "build.gradle.kts": "dependencies {\n  implementation(libs.acme.store)\n}\n",
      "gradle/libs.versions.toml": `[libraries]\nacme-store = { module = "${module}", version = "1.0" }\n`,
      "src/main/java/com/acme/app/Main.java": use,
    });
    repo("capp", catalogApp("com.acme:store"));
    repo("cother", catalogApp("com.example:store"));
    repo("loose", { "Main.java": use });
    // The type named in full, no import: a user; named in a comment and a string only: none.
    repo("qualified", {
      "Main.java": 'package com.acme.app;\n\nclass Main { com.acme.store.Store s = new com.acme.store.Store().open("x"); }\n',
      "Note.java": 'package com.acme.app;\n\n// com.acme.store.Store\nclass Note { String s = "com.acme.store.Store"; }\n',
    });
    fs.writeFileSync(path.join(store, "src/main/java/com/acme/store/Store.java"), STORE.replace("open(String path)", "open(String path, boolean readOnly)"));
    // (nine repos: more than the 8 most active that analyze reads by default)
    const r = runBuiltCli(["analyze", "--json", "--max-repos", "20"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { cross_repo: Array<{ package: string; ecosystem: string; qualified_name: string; consumer: string; files: string[] }> };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo.map((c) => [c.package, c.ecosystem, c.qualified_name, c.consumer, c.files])).toEqual([
      ["com.acme.store", "java", "Store.open", "app", ["src/main/java/com/acme/app/Main.java"]],
      ["com.acme.store", "java", "Store.open", "capp", ["src/main/java/com/acme/app/Main.java"]],
      ["com.acme.store", "java", "Store.open", "gapp", ["web/src/main/java/com/acme/app/Main.java"]],
      ["com.acme.store", "java", "Store.open", "loose", ["Main.java"]],
      ["com.acme.store", "java", "Store.open", "papp", ["src/main/java/com/acme/app/Main.java"]],
      ["com.acme.store", "java", "Store.open", "qualified", ["Main.java"]],
    ]);
  });

  it("Rust: a crate's breaking change reaches the code that names it as its manifests do (renamed, inherited renamed from a workspace, by its library's own name) or as it aliases it", () => {
    const LIB = "pub fn open(path: &str) -> i32 {\n    0\n}\n";
    const store = repo("store", { "Cargo.toml": '[package]\nname = "acme-store"\nversion = "1.2.0"\nedition = "2021"\n', "src/lib.rs": LIB });
    const crate = (name: string, deps: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n\n${deps}`;
    repo("plain", { "Cargo.toml": crate("plain", '[dependencies]\nacme-store = "1.2"\n'), "src/main.rs": 'fn main() { let _ = acme_store::open("x"); }\n' });
    repo("renamed", {
      "Cargo.toml": crate("renamed", '[target.\'cfg(unix)\'.dependencies]\nstore = { package = "acme-store", version = "1.2" }\n'),
      "src/main.rs": 'use store::open;\n\nfn main() { let _ = open("x"); }\n',
    });
    repo("workspace", {
      "Cargo.toml": '[workspace]\nmembers = ["svc"]\n\n[workspace.dependencies]\ndb = { package = "acme-store", version = "1.2" }\n',
      "svc/Cargo.toml": crate("svc", "[dependencies]\ndb.workspace = true\n"),
      "svc/src/main.rs": 'fn main() { let _ = db::open("x"); }\n',
    });
    // A path dependency on a copy of the crate whose library is named `acmestore`: code names it so.
    repo("vendored", {
      "Cargo.toml": crate("vendored", '[dependencies]\nacme-store = { path = "vendor/store" }\n'),
      "vendor/store/Cargo.toml": '[package]\nname = "acme-store"\nversion = "1.2.0"\nedition = "2021"\n\n[lib]\nname = "acmestore"\n',
      "src/main.rs": 'fn main() { let _ = acmestore::open("x"); }\n',
    });
    // The crate under another name in code: `extern crate .. as`, and `use .. as`.
    repo("aliased", {
      "Cargo.toml": crate("aliased", '[dependencies]\nacme-store = "1.2"\n'),
      "src/main.rs": 'extern crate acme_store as st;\n\nfn main() { let _ = st::open("x"); }\n',
      "src/lib.rs": 'use acme_store as db;\n\npub fn f() { let _ = db::open("y"); }\n',
    });
    // Depends on another crate that its manifest calls `store`: not a user.
    repo("other", { "Cargo.toml": crate("other", '[dependencies]\nstore = "3"\n'), "src/main.rs": 'fn main() { let _ = store::open("x"); }\n' });
    fs.writeFileSync(path.join(store, "src/lib.rs"), LIB.replace("open(path: &str)", "open(path: &str, read_only: bool)"));
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { cross_repo: Array<{ package: string; ecosystem: string; qualified_name: string; reasons: string[]; consumer: string; files: string[] }> };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo.map((c) => [c.package, c.ecosystem, c.qualified_name, c.reasons, c.consumer, c.files])).toEqual([
      ["acme-store", "cargo", "open", ["PARAMETER_ADDED"], "aliased", ["src/lib.rs", "src/main.rs"]],
      ["acme-store", "cargo", "open", ["PARAMETER_ADDED"], "plain", ["src/main.rs"]],
      ["acme-store", "cargo", "open", ["PARAMETER_ADDED"], "renamed", ["src/main.rs"]],
      ["acme-store", "cargo", "open", ["PARAMETER_ADDED"], "vendored", ["src/main.rs"]],
      ["acme-store", "cargo", "open", ["PARAMETER_ADDED"], "workspace", ["svc/src/main.rs"]],
    ]);
  });

  it("a clone, a worktree or a fork of the publisher is no consumer; only files that import the changed name (or its module) are listed", () => {
    const manifest = JSON.stringify({ name: "@acme/lib", workspaces: ["playground"], exports: { ".": "./src/index.ts", "./types/*": "./types/*.d.ts" } });
    const index = 'export { parseConfig } from "./config.js";\n';
    const config = "export function parseConfig(path: string): object {\n  return {};\n}\n";
    // The publisher is a monorepo whose playground imports its own package.
    const lib = repo("lib", {
      "package.json": manifest,
      "src/index.ts": index,
      "src/config.ts": config,
      "playground/package.json": JSON.stringify({ name: "pg", dependencies: { "@acme/lib": "workspace:*" } }),
      "playground/main.ts": 'import { parseConfig } from "@acme/lib";\n',
    });
    sb.git(lib, "remote", "add", "origin", "git@github.com:acme/lib.git");
    sb.git(lib, "worktree", "add", "-q", "-b", "feature", path.join(sb.dir, "lib-feature"));
    sb.git(sb.dir, "clone", "-q", lib, "lib-clone");
    sb.git(path.join(sb.dir, "lib-clone"), "remote", "set-url", "origin", "https://github.com/acme/lib");
    // A fork under another remote still publishes the same package: its imports are of its own copy.
    repo("lib-fork", {
      "package.json": manifest,
      "src/index.ts": index,
      "src/config.ts": config,
      "playground/package.json": JSON.stringify({ name: "pg", dependencies: { "@acme/lib": "workspace:*" } }),
      "playground/main.ts": 'import { parseConfig } from "@acme/lib";\n',
    });
    repo("app", {
      "package.json": JSON.stringify({ name: "app", dependencies: { "@acme/lib": "^1.0.0" } }),
      "src/main.ts": 'import { parseConfig } from "@acme/lib";\nexport const c = parseConfig("a");\n',
      "src/events.ts": 'import "@acme/lib/types/customEvent";\nexport const e = 1;\n',
      "src/jsdoc.js": '/** @param {import("@acme/lib").Options} o */\nexport function f(o) { return o; }\n',
      "src/config-sub.ts": 'import * as cfg from "@acme/lib/dist/config.js";\nexport const c = cfg;\n',
      "src/types-sub.ts": 'import * as t from "@acme/lib/types/customEvent";\nexport const x = t;\n',
    });
    fs.writeFileSync(path.join(lib, "src/config.ts"), config.replace("parseConfig(path: string)", "parseConfig(path: string, strict: boolean)"));

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      cross_repo: Array<{ publisher: string; consumer: string; files: string[] }>;
      in_repo: Array<{ publisher: string; consumer: string; files: string[]; consumer_packages: unknown[] }>;
    };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo.map((i) => [i.publisher, i.consumer, i.files])).toEqual([["lib", "app", ["src/config-sub.ts", "src/main.ts"]]]);
    // The publisher's own playground package imports it by name: a user inside the monorepo, the fork's is not.
    expect(doc.in_repo.map((i) => [i.publisher, i.consumer, i.files, i.consumer_packages])).toEqual([["lib", "lib", ["playground/main.ts"], [{ name: "pg", path: "playground", files: 1 }]]]);
  });
});

describe("comity analyze: users inside a monorepo", () => {
  it("lists the files of the repo's other packages that import a broken helper by the package's name, counted by package, the inserted parameter named as such", () => {
    const helper = "export function helper(opts: Options): string {\n  return String(opts);\n}\nexport interface Options {\n  name: string;\n}\nexport function other(): number {\n  return 1;\n}\n";
    const mono = repo("mono", {
      "package.json": JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }),
      "packages/utils/package.json": JSON.stringify({ name: "@acme/utils", main: "src/index.ts" }),
      "packages/utils/src/index.ts": 'export { helper, other } from "./helper.js";\n',
      "packages/utils/src/helper.ts": helper,
      // The package's own files import it relatively: not users of the package.
      "packages/utils/src/self.ts": 'import { helper } from "./helper.js";\nexport const s = helper({ name: "s" });\n',
      "packages/a/package.json": JSON.stringify({ name: "@acme/a", dependencies: { "@acme/utils": "workspace:*" } }),
      "packages/a/src/one.ts": 'import { helper } from "@acme/utils";\nexport const one = helper({ name: "1" });\n',
      "packages/a/src/two.ts": 'import * as u from "@acme/utils";\nexport const two = u.helper({ name: "2" });\n',
      "packages/b/package.json": JSON.stringify({ name: "@acme/b", dependencies: { "@acme/utils": "workspace:*" } }),
      "packages/b/index.ts": 'import { helper as h } from "@acme/utils";\nexport const b = h({ name: "b" });\n',
      // Imports only another name of the package, or names the package in a string: not users of helper.
      "packages/c/package.json": JSON.stringify({ name: "@acme/c", dependencies: { "@acme/utils": "workspace:*" } }),
      "packages/c/index.ts": 'import { other } from "@acme/utils";\nexport const c = other();\n',
      "packages/c/docs.ts": 'export const see = "see @acme/utils for helper";\n',
      // A barrel subpath that re-exports it, imported whole: a user. A destructured require of another name: not one.
      "packages/utils/src/client.ts": 'export * from "./helper.js";\n',
      "packages/d/package.json": JSON.stringify({ name: "@acme/d", dependencies: { "@acme/utils": "workspace:*" } }),
      "packages/d/all.ts": 'import * as client from "@acme/utils/client";\nexport const d = client.helper({ name: "d" });\n',
      "packages/d/other.js": 'const { other } = require("@acme/utils");\nmodule.exports = other();\n',
    });
    // A user not yet committed counts as well.
    fs.writeFileSync(path.join(mono, "packages/b/new.ts"), 'import { helper } from "@acme/utils";\nexport const n = helper({ name: "n" });\n');
    fs.writeFileSync(
      path.join(mono, "packages/utils/src/helper.ts"),
      helper.replace("helper(opts: Options)", "helper(ctx: Context, opts: Options)").replace("export interface Options", "export type Context = { id: string };\nexport interface Options"),
    );

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { cross_repo: unknown[]; in_repo: unknown[]; briefing: string };
    expectAnalyzeSchema(doc);
    expect(doc.cross_repo).toEqual([]);
    expect(doc.in_repo).toEqual([
      {
        publisher: "mono",
        package: "@acme/utils",
        ecosystem: "npm",
        path: "packages/utils/src/helper.ts",
        qualified_name: "helper",
        public_name: "helper",
        change: "signature_changed",
        reasons: ["PARAMETER_INSERTED"],
        consumer: "mono",
        files: ["packages/a/src/one.ts", "packages/a/src/two.ts", "packages/b/index.ts", "packages/b/new.ts", "packages/d/all.ts"],
        consumer_packages: [
          { name: "@acme/a", path: "packages/a", files: 2 },
          { name: "@acme/b", path: "packages/b", files: 2 },
          { name: "@acme/d", path: "packages/d", files: 1 },
        ],
      },
    ]);
    expect(doc.briefing).toContain(
      "Breaking changes in a package that other packages of the same repo use:\n- `helper` of `@acme/utils` (mono: `packages/utils/src/helper.ts`, signature_changed: PARAMETER_INSERTED) is used by 5 files of other packages of the repo: 2 in `@acme/a`, 2 in `@acme/b`, 1 in `@acme/d` (`packages/a/src/one.ts`, `packages/a/src/two.ts`, ...)",
    );
    // The text form says it too.
    expect(runBuiltCli(["analyze"], { cwd: sb.dir, env }).stdout).toContain("is used by 5 files of other packages of the repo: 2 in `@acme/a`, 2 in `@acme/b`, 1 in `@acme/d`");
  });
});

describe("mentionsEnd: how much of a JavaScript or TypeScript file to scan for imports of some packages", () => {
  const needles = ["@acme/utils", "@acme/lib"];
  const tail = Array.from({ length: 2000 }, (_, i) => `export const v${i} = f(${i}); // "@other/pkg"`).join("\n");
  const forms = [
    'import { uid } from "@acme/utils";',
    'import type { Uid } from "@acme/utils/types";',
    'import * as utils from "@acme/utils/client";',
    'export { uid as id } from "@acme/lib";',
    "export * from '@acme/lib';",
    'import {\n  uid,\n  other,\n} from "@acme/utils";',
    'const { uid } = require("@acme/utils");',
    'const uid = require(\n  "@acme/utils"\n).uid;',
    'const lazy = () => import("@acme/lib");',
    'import def from "@acme/utils"',
  ];
  const wanted = (text: string) => scanImports(text, "typescript").filter((r) => needles.some((n) => (r.module ?? "").startsWith(n)));

  it.each(forms)("keeps every import of the packages, as the whole file gives them: %s", (form) => {
    const text = `import { a } from "./a";\n${form}\n${tail}\n`;
    const end = mentionsEnd(text, needles);
    expect(end).toBeLessThan(text.length / 10);
    expect(wanted(text.slice(0, end))).toEqual(wanted(text));
    expect(wanted(text).length).toBeGreaterThan(0);
  });

  it("scans to the last mention anywhere, and the whole text where none is found", () => {
    const late = `${forms[0]}\n${tail}\nconst again = require("@acme/lib").parse;\n`;
    expect(wanted(late.slice(0, mentionsEnd(late, needles)))).toEqual(wanted(late));
    expect(mentionsEnd(late, needles)).toBe(late.length);
    expect(mentionsEnd(tail, needles)).toBe(tail.length);
  });
});
