import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverPackages, goWorkUses, setupCfgMetadata, setupPyMetadata } from "../../src/packages/discover-packages.js";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "comity-pkgs-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string | object>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  }
}

const view = () => {
  const r = discoverPackages(root);
  return {
    packages: r.packages.map((p) => `${p.path} ${p.ecosystem} ${p.name}${p.version === null ? "" : `@${p.version}`}`),
    codes: r.diagnostics.map((d) => `${d.code} ${d.path}`),
    truncated: r.truncated,
  };
};

describe("discoverPackages", () => {
  it("npm / Yarn / Bun workspaces, as an array and as {packages}", () => {
    write({
      "package.json": { name: "root", version: "1.0.0", workspaces: ["packages/*", "apps/web"] },
      "packages/a/package.json": { name: "@x/a", version: "0.1.0" },
      "packages/b/package.json": { name: "@x/b" },
      "packages/no-manifest/README.md": "a folder the glob matches, without a package.json",
      "apps/web/package.json": { name: "web" },
      "apps/other/package.json": { name: "not-listed" },
      "packages/a/node_modules/dep/package.json": { name: "dep" },
    });
    expect(view().packages).toEqual([". npm root@1.0.0", "apps/web npm web", "packages/a npm @x/a@0.1.0", "packages/b npm @x/b"]);
    write({ "package.json": { private: true, workspaces: { packages: ["packages/*"], nohoist: ["**/x"] } } });
    expect(view().packages).toEqual(["packages/a npm @x/a@0.1.0", "packages/b npm @x/b"]);
  });

  it("reads a manifest that starts with a UTF-8 byte order mark as npm does, and says an empty lerna.json at info", () => {
    write({
      "package.json": `\uFEFF${JSON.stringify({ name: "root", version: "1.0.0", workspaces: ["packages/*"] })}`,
      "packages/a/package.json": `\uFEFF${JSON.stringify({ name: "@x/a", version: "0.1.0" })}`,
      "lerna.json": "",
    });
    const r = discoverPackages(root);
    expect(r.packages.map((p) => p.name)).toEqual(["root", "@x/a"]);
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([["empty_manifest", "info", "lerna.json"]]);
  });

  it("pnpm-workspace.yaml with negated globs; the root counts", () => {
    write({
      "package.json": { name: "mono", version: "2.0.0" },
      "pnpm-workspace.yaml": "packages:\n  - 'packages/**'\n  - '!packages/**/test/**'\n  - '!packages/legacy'\n",
      "packages/core/package.json": { name: "core" },
      "packages/legacy/package.json": { name: "legacy" },
      "packages/group/deep/package.json": { name: "deep" },
      "packages/core/test/fixture/package.json": { name: "fixture" },
    });
    expect(view().packages).toEqual([". npm mono@2.0.0", "packages/core npm core", "packages/group/deep npm deep"]);
  });

  it("lerna.json (with its default), Rush (rush.json with comments) and Nx project.json", () => {
    write({ "lerna.json": { version: "1.0.0" }, "packages/l/package.json": { name: "l", version: "1.0.0" } });
    expect(view().packages).toEqual(["packages/l npm l@1.0.0"]);
    fs.rmSync(path.join(root, "lerna.json"));
    write({
      "rush.json": '/* rush */ {\n  // projects\n  "projects": [ { "packageName": "r1", "projectFolder": "apps/r1" }, ],\n}',
      "apps/r1/package.json": { name: "r1", version: "3.0.0" },
    });
    expect(view().packages).toEqual(["apps/r1 npm r1@3.0.0", "packages/l npm l@1.0.0"].filter((p) => p.startsWith("apps")));
    fs.rmSync(path.join(root, "rush.json"));
    write({ "nx.json": {}, "libs/ui/project.json": { name: "ui" }, "libs/unnamed/project.json": {} });
    expect(view().packages).toEqual(["libs/ui npm ui", "libs/unnamed npm unnamed"]);
  });

  it("Cargo [workspace] members and excludes, with a root package", () => {
    write({
      "Cargo.toml": '[package]\nname = "root-crate"\nversion = "0.1.0"\n\n[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/skip"]\n',
      "crates/a/Cargo.toml": '[package]\nname = "a"\nversion = "1.2.3"\n',
      "crates/skip/Cargo.toml": '[package]\nname = "skip"\n',
      "crates/inherit/Cargo.toml": '[package]\nname = "inherit"\nversion.workspace = true\n',
    });
    expect(view().packages).toEqual([". cargo root-crate@0.1.0", "crates/a cargo a@1.2.3", "crates/inherit cargo inherit"]);
  });

  it("go.work use directives, and a lone go.mod", () => {
    write({
      "go.work": 'go 1.22\n\nuse (\n\t./svc/api // the API\n\t"./svc/worker"\n)\nuse ./tools\n',
      "svc/api/go.mod": "module example.com/api\n\ngo 1.22\n",
      "svc/worker/go.mod": "module example.com/worker\n",
      "tools/go.mod": "module example.com/tools\n",
    });
    expect(view().packages).toEqual(["svc/api go example.com/api", "svc/worker go example.com/worker", "tools go example.com/tools"]);
    expect(goWorkUses("use ./a\nuse (\n ./b\n)")).toEqual(["./b", "./a"]);
    fs.rmSync(path.join(root, "go.work"));
    fs.rmSync(path.join(root, "svc"), { recursive: true });
    fs.rmSync(path.join(root, "tools"), { recursive: true });
    write({ "go.mod": "module github.com/acme/lone\n" });
    expect(view().packages).toEqual([". go github.com/acme/lone"]);
  });

  it("uv workspaces with members and excludes, and a lone pyproject.toml", () => {
    write({
      "pyproject.toml": '[project]\nname = "root-app"\nversion = "0.3.0"\n\n[tool.uv.workspace]\nmembers = ["libs/*"]\nexclude = ["libs/old"]\n',
      "libs/core/pyproject.toml": '[project]\nname = "core"\nversion = "1.0"\n',
      "libs/old/pyproject.toml": '[project]\nname = "old"\n',
      "libs/empty/README": "no manifest",
    });
    expect(view().packages).toEqual([". python root-app@0.3.0", "libs/core python core@1.0"]);
  });

  it("setuptools projects: setup.py's literal name (as sympy has it, beside a pyproject.toml of tools only), else setup.cfg's", () => {
    write({
      "pyproject.toml": "[tool.black]\nline-length = 88\n",
      "setup.py": "from setuptools import setup\nexec(open('sympy/release.py').read())\nsetup(\n    name='sympy',\n    version=__version__,\n    packages=['sympy'],\n)\n",
    });
    expect(view().packages).toEqual([". python sympy"]);
    write({ "setup.cfg": "[metadata]\nname = attrs-like\nversion = 23.1.0\n\n[options]\npackages = find:\n" });
    expect(view().packages).toEqual([". python attrs-like@23.1.0"]);
    // A computed name is not guessed; text that only looks like a call is no package.
    expect(setupPyMetadata("NAME = 'x'\nsetup(name=NAME)\n")).toEqual({});
    expect(setupPyMetadata("# no call here: name='fake'\n")).toEqual({});
    expect(setupCfgMetadata("[options]\nname = not-metadata\n")).toEqual({});
  });

  it("a single root manifest is one package; nested workspaces are expanded", () => {
    write({ "pyproject.toml": '[tool.poetry]\nname = "poetry-app"\nversion = "2.1"\n' });
    expect(view().packages).toEqual([". python poetry-app@2.1"]);
    write({
      "package.json": { name: "outer", workspaces: ["apps/*"] },
      "apps/inner/package.json": { name: "inner", workspaces: ["modules/*"] },
      "apps/inner/modules/m1/package.json": { name: "m1" },
    });
    expect(view().packages).toEqual([". npm outer", ". python poetry-app@2.1", "apps/inner npm inner", "apps/inner/modules/m1 npm m1"]);
  });

  it("reports a malformed manifest and keeps the rest", () => {
    write({
      "package.json": { name: "ok", workspaces: ["p/*"] },
      "p/good/package.json": { name: "good" },
      "p/bad/package.json": "{ not json",
      "pnpm-workspace.yaml": "packages: [unclosed",
      "Cargo.toml": "[package\nname=",
      "pyproject.toml": "[project]\nname = 'py'\n",
    });
    const v = view();
    expect(v.packages).toEqual([". npm ok", ". python py", "p/good npm good"]);
    expect(v.codes).toEqual(["bad_manifest Cargo.toml", "bad_manifest p/bad/package.json", "bad_manifest pnpm-workspace.yaml"]);
  });

  it("caps the list at 200, sorted by path, and says so", () => {
    const files: Record<string, object> = { "package.json": { workspaces: ["packages/*"] } };
    for (let i = 0; i < 230; i++) files[`packages/p${String(i).padStart(3, "0")}/package.json`] = { name: `p${i}` };
    write(files);
    const r = discoverPackages(root);
    expect(r.packages).toHaveLength(200);
    expect(r.truncated).toBe(true);
    expect(r.packages[0]?.path).toBe("packages/p000");
    expect(r.packages[199]?.path).toBe("packages/p199");
  });
});
