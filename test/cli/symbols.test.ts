import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";
import { hasSettled } from "../../src/symbols/file-index.js";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "config") };
});
afterEach(() => sb.cleanup());

describe("comity symbols", () => {
  it("prints each file's symbols, and a JSON document with --json", () => {
    sb.write("a.ts", "export function f(a: number): string { return ''; }\nclass Hidden { m() {} }\n");
    sb.write("b.py", "def g(x=1):\n    pass\n");
    const human = runBuiltCli(["symbols", "a.ts", "b.py"], { cwd: sb.dir, env });
    expect(human.status).toBe(0);
    expect(human.stdout).toContain("a.ts (typescript, 3 symbols)");
    expect(human.stdout).toMatch(/1\s+function\s+export\s+f\s+function f\(a: number\): string/);
    const json = runBuiltCli(["symbols", "a.ts", "--json"], { cwd: sb.dir, env });
    const doc = JSON.parse(json.stdout) as { schema: string; files: Array<{ symbols: Array<Record<string, unknown>> }> };
    expect(doc.schema).toBe("comity.symbols/1");
    expect(doc.files[0]?.symbols.map((s) => s["qualified_name"])).toEqual(["Hidden", "Hidden.m", "f"]);
    expect(Object.keys(doc.files[0]?.symbols[0] ?? {})).toEqual(["name", "qualified_name", "kind", "exported", "range", "signature_hash", "body_hash", "signature"]);
    // The second run is served from the cache and prints the same bytes.
    expect(runBuiltCli(["symbols", "a.ts", "--json"], { cwd: sb.dir, env }).stdout).toBe(json.stdout);
    expect(fs.readdirSync(path.join(sb.dir, "..", "config", "symbols")).length).toBeGreaterThan(0);
  });

  it("--diff prints changes with their compatibility", () => {
    sb.write("old.ts", "export function parseConfig(path: string) {}\n");
    sb.write("new.ts", "export function parseConfig(path: string, strict: boolean) {}\nexport function extra() { helper(); }\n");
    const r = runBuiltCli(["symbols", "--diff", "old.ts", "new.ts"], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("breaking   signature_changed function    parseConfig\n    PARAMETER_ADDED_REQUIRED: required parameter strict added");
    expect(r.stdout).toContain("compatible added");
    expect(r.stdout).toContain("new references:\n  call helper");
    const json = JSON.parse(runBuiltCli(["symbols", "--diff", "old.ts", "new.ts", "--json"], { cwd: sb.dir, env }).stdout) as { schema: string; changes: Array<{ compatibility: string }> };
    expect(json.schema).toBe("comity.symbols-diff/1");
    expect(json.changes.map((c) => c.compatibility)).toEqual(["compatible", "breaking"]);
  });

  it("reads many files on a worker thread per core, with the same output as on one thread, cached or not", () => {
    const files: string[] = [];
    for (let i = 0; i < 40; i++) {
      files.push(
        path.relative(
          sb.dir,
          sb.write(
            `src/m${i}.ts`,
            `import { x } from "./m${(i + 1) % 40}";
export function f${i}(a: number, b = ${i}): number {
  return a + b;
}
export class C${i} { m(): void {} }
`,
          ),
        ),
      );
      files.push(
        path.relative(
          sb.dir,
          sb.write(
            `py/p${i}.py`,
            `from .q import y

def g${i}(x, *, k=${i}):
    return x
`,
          ),
        ),
      );
    }
    // One with a syntax error: its diagnostic travels from the worker, and from the cache, as its symbols do.
    files.push(path.relative(sb.dir, sb.write("src/broken.ts", "export function ok(a: number) {}\nexport function bad(a: number {\n")));
    const one = runBuiltCli(["symbols", "--json", "--no-cache", "--jobs", "1", ...files], { cwd: sb.dir, env });
    const two = runBuiltCli(["symbols", "--json", "--no-cache", "--jobs", "2", ...files], { cwd: sb.dir, env });
    const cold = runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env });
    const warm = runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env });
    // Without the native parser (as where it could not be built): web-tree-sitter, the same output.
    const wasm = ["1", "2"].map((jobs) => runBuiltCli(["symbols", "--json", "--no-cache", "--jobs", jobs, ...files], { cwd: sb.dir, env: { ...env, COMITY_FLAT_PARSER: "wasm" } }));
    expect(one.status).toBe(0);
    const printed = JSON.parse(one.stdout) as { files: Array<{ path: string; diagnostics: Array<{ code: string; path: string }> }> };
    expect(printed.files).toHaveLength(81);
    expect(printed.files.at(-1)?.diagnostics).toEqual([expect.objectContaining({ code: "parse_error", path: "src/broken.ts" })]);
    // Each language's grammar was loaded (a process loads only those its files need): every file has its symbols.
    const counts = (JSON.parse(one.stdout) as { files: Array<{ path: string; symbols: unknown[] }> }).files.map((f) => f.symbols.length);
    expect(counts.every((n) => n > 0)).toBe(true);
    for (const r of [two, cold, warm, ...wasm]) expect(r.stdout).toBe(one.stdout);
    expect(runBuiltCli(["symbols", "--jobs", "0", ...files], { cwd: sb.dir, env }).status).toBe(2);
  });

  it("answers a re-run over many unchanged files by their stats, and sees a file changed since", async () => {
    // Many files (the file index is kept for 32 or more: for a few, writing it costs more than it saves).
    const files = ["b.ts", "c.py"];
    sb.write("b.ts", "export const b = 1;\n");
    sb.write("c.py", "def c(y):\n    return y\n");
    for (let i = 0; i < 30; i++) files.push(path.relative(sb.dir, sb.write(`src/a${i}.ts`, `export function a${i}(x: number): number { return x; }\n`)));
    // Files changed in the last SETTLED_MS are read every time: these must be older for the index to record them.
    // Waited on as such: until each file's stat says it has settled (its ctime cannot be set back).
    const unsettled = () => files.some((f) => !hasSettled(fs.statSync(path.join(sb.dir, f)), Date.now()));
    while (unsettled()) await new Promise((resolve) => setTimeout(resolve, 20));
    // (each folder's lines, by stat: `symbols --json` into a pipe prints from them)
    const index = path.join(sb.dir, "..", "config", "symbols", "lines");
    const few = runBuiltCli(["symbols", "--json", "b.ts", "c.py"], { cwd: sb.dir, env });
    expect(fs.existsSync(index)).toBe(false);
    const cold = runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env });
    expect(fs.readdirSync(index)).toHaveLength(2);
    const warm = runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env });
    expect(warm.stdout).toBe(cold.stdout);
    expect((JSON.parse(cold.stdout) as { files: unknown[] }).files.slice(0, 2)).toEqual((JSON.parse(few.stdout) as { files: unknown[] }).files);
    expect(JSON.parse(warm.stdout)).toEqual(JSON.parse(runBuiltCli(["symbols", "--json", "--no-cache", ...files], { cwd: sb.dir, env }).stdout));
    // A change: its stat differs from the recorded one, so the file is read again.
    sb.write("b.ts", "export const b = 2;\nexport function added(): void {}\n");
    const after = runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env }).stdout;
    const changed = JSON.parse(after) as { files: Array<{ symbols: Array<{ name: string }> }> };
    expect(changed.files[0]?.symbols.map((s) => s.name)).toEqual(["added", "b"]);
    // And again: the same, from the lines kept (by content hash: the change is too recent for its stat to be kept).
    expect(runBuiltCli(["symbols", "--json", ...files], { cwd: sb.dir, env }).stdout).toBe(after);
  });

  it("fails clearly on a missing file", () => {
    const r = runBuiltCli(["symbols", "nope.ts"], { cwd: sb.dir, env });
    expect(r).toMatchObject({ status: 2, stdout: "", stderr: "comity: nope.ts: no such file\n" });
  });
});
