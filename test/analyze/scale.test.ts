import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { analyzeCommand } from "../../src/cli/commands/analyze.js";
import { extractMany } from "../../src/symbols/extract-pool.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { crashingPools } from "../helpers/crashing-pool.js";

let sb: Sandbox;
let config: string;
beforeEach(() => {
  sb = createSandbox();
  config = path.join(sb.dir, "..", "config");
});
afterEach(() => {
  delete process.env["COMITY_TEST_CRASH_ON"];
  sb.cleanup();
});

function fakeIo(tty: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (s: string) => out.push(s), isTTY: tty },
      stderr: { write: (s: string) => err.push(s), isTTY: tty },
      cwd: sb.dir,
      env: { ...sb.env, COMITY_CONFIG_DIR: config, NO_COLOR: "1" },
    },
    out,
    err,
  };
}

describe("analyze at scale", () => {
  it("asks git status in a folder of three repos that each have `* text=auto`: no snapshot_walked diagnostic", async () => {
    for (const name of ["one", "two", "three"]) {
      const r = initRepo(sb, name);
      commit(sb, r, ".gitattributes", "* text=auto eol=lf\n*.png binary\n");
      commit(sb, r, "a.ts", "export function f(a: number) {}\n");
      fs.writeFileSync(path.join(r, "a.ts"), "export function f(a: number, b: number) {}\r\n");
    }
    const { io, out } = fakeIo(false);
    expect(await analyzeCommand(["--json"], io)).toBe(0);
    const doc = JSON.parse(out.join("")) as { repos: Array<{ root: string; diagnostics: Array<{ code: string }>; changes: Array<{ path: string }> }> };
    expect(doc.repos.map((r) => r.root).sort()).toEqual(["one", "three", "two"]);
    for (const r of doc.repos) {
      expect(r.diagnostics.map((d) => d.code)).not.toContain("snapshot_walked");
      expect(r.changes.map((c) => c.path)).toEqual(["a.ts"]);
    }
  });

  it("keeps progress and timings off stdout, and --json free of both", async () => {
    const r = initRepo(sb, "repo");
    commit(sb, r, "a.ts", "export function f() {}\n");
    fs.writeFileSync(path.join(r, "a.ts"), "export function f(x: number) {}\n");
    const human = fakeIo(true);
    expect(await analyzeCommand(["--timings"], human.io)).toBe(0);
    expect(human.err.join("")).toMatch(/analysing 1\/1: repo/);
    expect(human.err.join("")).toMatch(/^discovery\s+\d+ ms$/m);
    expect(human.err.join("")).toMatch(/^symbols\s+\d+ ms$/m);
    expect(human.out.join("")).not.toMatch(/analysing|discovery .* ms/);
    const json = fakeIo(true);
    await analyzeCommand(["--json", "--timings"], json.io);
    expect(() => JSON.parse(json.out.join(""))).not.toThrow();
    expect(json.err.join("")).not.toContain("analysing");
  });

  it("reuses the symbol cache across runs and sees a file changed between them", async () => {
    const r = initRepo(sb, "repo");
    commit(sb, r, "a.py", "def f(a):\n    return a\n");
    fs.writeFileSync(path.join(r, "a.py"), "def f(a, b):\n    return a\n");
    const run = async () => {
      const x = fakeIo(false);
      await analyzeCommand(["--json"], x.io);
      return JSON.parse(x.out.join("")) as { repos: Array<{ changes: Array<{ symbols: Array<{ reasons: Array<{ code: string }> }> }> }> };
    };
    const first = await run();
    const entries = fs.readdirSync(path.join(config, "symbols")).length;
    const second = await run();
    expect(second).toEqual(first);
    expect(fs.readdirSync(path.join(config, "symbols")).length).toBe(entries);
    fs.writeFileSync(path.join(r, "a.py"), "def f(a, b=1):\n    return a\n");
    const third = await run();
    expect(first.repos[0]?.changes[0]?.symbols[0]?.reasons[0]?.code).toBe("PARAMETER_ADDED_REQUIRED");
    expect(third.repos[0]?.changes[0]?.symbols[0]?.reasons[0]?.code).toBe("PARAMETER_ADDED_OPTIONAL");
  });

  it("keeps each changed file's analysis by its two blob ids: a second run needs no symbol cache, a corrupt memo is a miss", async () => {
    const r = initRepo(sb, "repo");
    commit(sb, r, "a.ts", "export function f(a: number) {}\n");
    commit(sb, r, "b.py", "def g(a):\n    return a\n");
    fs.writeFileSync(path.join(r, "a.ts"), "export function f(a: number, b: string) {}\n");
    fs.writeFileSync(path.join(r, "b.py"), "def g(a, *, key):\n    return a\n");
    fs.writeFileSync(path.join(r, "c.ts"), "export const c = 1;\n");
    const run = async () => {
      const x = fakeIo(false);
      await analyzeCommand(["--json"], x.io);
      return x.out.join("");
    };
    const first = await run();
    const symbols = path.join(config, "symbols");
    const memos = fs.readdirSync(path.join(symbols, "changes"));
    expect(memos).toHaveLength(1);
    // The old versions are kept by blob id, in one pack for the run (read when a file changes again); the working
    // versions the memo remembers are not stored again, and nothing is stored one file an entry.
    const files = fs.readdirSync(symbols, { recursive: true, encoding: "utf8" }).filter((f) => /\.jsonl?$/.test(f) && !f.startsWith("changes"));
    expect(files).toHaveLength(1);
    const packed = fs
      .readFileSync(path.join(symbols, files[0] as string), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as string[]).slice(0, 2));
    expect(packed.map(([key, language]) => `${language}:${/^g[0-9a-f]{40}$/.test(key ?? "") ? "blob" : key}`).sort()).toEqual(["python:blob", "typescript:blob"]);
    // Without the symbol cache, the same report: it came from the memo (nothing was extracted or cached again).
    for (const d of fs.readdirSync(symbols)) if (d !== "changes") fs.rmSync(path.join(symbols, d), { recursive: true });
    expect(await run()).toBe(first);
    expect(fs.readdirSync(symbols)).toEqual(["changes"]);
    // A corrupt memo: everything is analysed again, with the same result.
    fs.writeFileSync(path.join(symbols, "changes", memos[0] as string), "{not json");
    expect(await run()).toBe(first);
    expect(fs.readdirSync(symbols).length).toBeGreaterThan(1);
  });

  it("analysing a repo's own folder (its git status started before discovery) reports what analysing its parent reports", async () => {
    const r = initRepo(sb, "repo");
    commit(sb, r, "a.ts", "export function f(a: number) {}\n");
    fs.writeFileSync(path.join(r, "a.ts"), "export function f(a: number, b: string) {}\n");
    fs.mkdirSync(path.join(r, "new"));
    fs.writeFileSync(path.join(r, "new/b.py"), "def g():\n    pass\n");
    const report = async (dir: string) => {
      const x = fakeIo(false);
      await analyzeCommand(["--json", dir], x.io);
      const doc = JSON.parse(x.out.join("")) as { repos: Array<{ worktree_hash: string; changes: unknown[] }> };
      return { worktree_hash: doc.repos[0]?.worktree_hash, changes: doc.repos[0]?.changes };
    };
    const own = await report(r);
    expect(own.changes).toHaveLength(2);
    expect(await report(sb.dir)).toEqual(own);
  });

  it("survives a worker that crashes on one file: a diagnostic for that file, the run goes on", async () => {
    const dir = path.join(sb.dir, "files");
    fs.mkdirSync(dir);
    const jobs = Array.from({ length: 60 }, (_, i) => {
      fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
      return { path: `f${i}.ts`, abs: path.join(dir, `f${i}.ts`) };
    });
    const results = await extractMany(jobs, { workers: 2, cacheDir: null, minFilesForPool: 1, startPool: crashingPools("f17.ts") });
    expect(results.map((r) => r.path)).toEqual(jobs.map((j) => j.path));
    expect(results.every((r) => r.symbols.length === 1)).toBe(true);
    expect(results[17]?.diagnostics.map((d) => d.code)).toEqual(["worker_crashed"]);
    expect(results.filter((r) => r.diagnostics.length > 0).length).toBeGreaterThanOrEqual(1);
  });
});
