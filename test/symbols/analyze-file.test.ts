import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readRepoState } from "../../src/state/read-repo-state.js";
import { analyzeFile, headReader, stripLocal } from "../../src/symbols/analyze-file.js";
import { createHeadHashes } from "../../src/symbols/head-hashes.js";
import { createSymbolCache } from "../../src/symbols/symbol-cache.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt } from "../helpers/snapshot-helpers.js";

let extractor: SymbolExtractor;
let sb: Sandbox;
beforeAll(async () => {
  extractor = await createSymbolExtractor();
});
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

async function analyze(root: string, file: string) {
  const repo = repoAt(root);
  const state = await readRepoState(repo, { configEnv: sb.configEnv });
  return analyzeFile(repo.root, file, { extractor, readHead: headReader(repo.commonDir ?? "", state.head_sha) });
}

describe("analyzeFile: HEAD versus the working tree", () => {
  it("reports a breaking signature change and new references of an edited tracked file", async () => {
    const root = initRepo(sb, "repo");
    commit(sb, root, "src/config.ts", "export function parseConfig(path: string): object {\n  return {};\n}\n");
    fs.writeFileSync(
      path.join(root, "src/config.ts"),
      'import { readFileSync } from "node:fs";\nexport function parseConfig(path: string, strict: boolean): object {\n  return JSON.parse(readFileSync(path, "utf8"));\n}\n',
    );
    const a = await analyze(root, "src/config.ts");
    expect(a.language).toBe("typescript");
    expect(a.changes).toEqual([
      expect.objectContaining({ qualified_name: "parseConfig", change: "signature_changed", compatibility: "breaking", reasons: [expect.objectContaining({ code: "PARAMETER_ADDED_REQUIRED" })] }),
    ]);
    expect(a.new_references).toEqual([
      { kind: "call", name: "JSON.parse", module: null },
      { kind: "call", name: "readFileSync", module: null },
      { kind: "import", name: "readFileSync", module: "node:fs" },
    ]);
    // What is sent leaves the signature text and detail behind.
    const sent = JSON.stringify(a.symbols.map(stripLocal));
    expect(sent).not.toContain("strict");
    expect(Object.keys(a.symbols.map(stripLocal)[0] ?? {})).toEqual(["name", "qualified_name", "kind", "exported", "range", "signature_hash", "body_hash"]);
  });

  it("treats a new file as all added and a deleted one as all removed", async () => {
    const root = initRepo(sb, "repo");
    commit(sb, root, "lib/old.py", "def gone(a):\n    return a\n");
    fs.writeFileSync(path.join(root, "lib/new.py"), "def fresh(a):\n    return a\n");
    fs.rmSync(path.join(root, "lib/old.py"));
    expect((await analyze(root, "lib/new.py")).changes).toEqual([expect.objectContaining({ qualified_name: "fresh", change: "added", compatibility: "compatible" })]);
    expect((await analyze(root, "lib/old.py")).changes).toEqual([expect.objectContaining({ qualified_name: "gone", change: "removed", compatibility: "breaking" })]);
  });

  it("reads HEAD through the common dir in a linked worktree", async () => {
    const main = initRepo(sb, "main");
    commit(sb, main, "a.ts", "export const x = 1;\n");
    sb.git(main, "worktree", "add", "-q", "../wt", "-b", "topic");
    const wt = path.join(sb.dir, "wt");
    fs.writeFileSync(path.join(wt, "a.ts"), "export const x = 1;\nexport const y = 2;\n");
    expect((await analyze(wt, "a.ts")).changes.map((c) => [c.qualified_name, c.change])).toEqual([["y", "added"]]);
  });
});

describe("analyzeFile: HEAD's version known by its content hash", () => {
  it("answers a repeated edit without reading HEAD, and the same as reading it", async () => {
    const root = initRepo(sb, "repo");
    commit(sb, root, "src/a.ts", "export function f(a: string): void {}\n");
    commit(sb, root, "src/b.ts", "export const b = 1;\n");
    const repo = repoAt(root);
    const state = await readRepoState(repo, { configEnv: sb.configEnv });
    const head = state.head_sha as string;
    const cache = createSymbolCache(path.join(sb.dir, "cache"));
    const heads = createHeadHashes(path.join(sb.dir, "heads"), head);
    let reads = 0;
    const realRead = headReader(repo.commonDir ?? "", head);
    const readHead = async (p: string) => {
      reads++;
      return realRead(p);
    };
    fs.writeFileSync(path.join(root, "src/a.ts"), "export function f(a: string, b: number): void {}\n");
    fs.writeFileSync(path.join(root, "src/new.ts"), "export const n = 1;\n");
    const first = await analyzeFile(root, "src/a.ts", { extractor, readHead, cache, headHashes: heads });
    const firstNew = await analyzeFile(root, "src/new.ts", { extractor, readHead, cache, headHashes: heads });
    expect(reads).toBe(2);
    // Another process, the same commit: nothing read from git, the same answers.
    const again = createHeadHashes(path.join(sb.dir, "heads"), head);
    expect(again.get("src/a.ts")).toMatch(/^[0-9a-f]{16}$/);
    expect(again.get("src/new.ts")).toBeNull();
    expect(again.get("src/b.ts")).toBeUndefined();
    const second = await analyzeFile(root, "src/a.ts", { extractor, readHead, cache, headHashes: again });
    const secondNew = await analyzeFile(root, "src/new.ts", { extractor, readHead, cache, headHashes: again });
    expect(reads).toBe(2);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(JSON.stringify(secondNew)).toBe(JSON.stringify(firstNew));
    expect(first.changes.map((c) => [c.qualified_name, c.compatibility])).toEqual([["f", "breaking"]]);
    // A known hash whose symbols left the cache: HEAD is read again.
    const emptyCache = createSymbolCache(path.join(sb.dir, "cache2"));
    const third = await analyzeFile(root, "src/a.ts", { extractor, readHead, cache: emptyCache, headHashes: again });
    expect(reads).toBe(3);
    expect(JSON.stringify(third)).toBe(JSON.stringify(first));
  });

  it("keeps one file per commit, atomic, and forgets the oldest commits past the cap", () => {
    const dir = path.join(sb.dir, "heads");
    for (let i = 0; i < 5; i++) {
      createHeadHashes(dir, `c${i}`, { maxCommits: 3 }).set("a.ts", `h${i}`);
      fs.utimesSync(path.join(dir, `c${i}.json`), 1000 + i, 1000 + i);
    }
    createHeadHashes(dir, "c5", { maxCommits: 3 }).set("a.ts", "h5");
    expect(fs.readdirSync(dir).sort()).toEqual(["c3.json", "c4.json", "c5.json"]);
    fs.writeFileSync(path.join(dir, "c4.json"), "{not json");
    expect(createHeadHashes(dir, "c4").get("a.ts")).toBeUndefined();
    const two = createHeadHashes(dir, "c5");
    createHeadHashes(dir, "c5").set("b.ts", null);
    two.set("c.ts", "hc");
    expect(createHeadHashes(dir, "c5").get("a.ts")).toBe("h5");
    expect(createHeadHashes(dir, "c5").get("b.ts")).toBeNull();
    expect(createHeadHashes(dir, "c5").get("c.ts")).toBe("hc");
  });
});
