import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readRepoState } from "../../src/state/read-repo-state.js";
import { analyzeFile, headReader, stripLocal } from "../../src/symbols/analyze-file.js";
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
    fs.writeFileSync(path.join(root, "src/config.ts"), 'import { readFileSync } from "node:fs";\nexport function parseConfig(path: string, strict: boolean): object {\n  return JSON.parse(readFileSync(path, "utf8"));\n}\n');
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
