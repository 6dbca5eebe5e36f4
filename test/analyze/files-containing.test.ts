import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { filesContaining } from "../../src/analyze/files-containing.js";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

/** A repo of 600 files, every third naming the package, committed; then one untracked and one changed file that name it. */
function monorepo(): { dir: string; named: string[] } {
  const dir = path.join(sb.dir, "mono");
  const named: string[] = [];
  for (let i = 0; i < 600; i++) {
    const rel = `packages/p${i % 30}/src/f${i}.ts`;
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    const uses = i % 3 === 0;
    fs.writeFileSync(path.join(dir, rel), uses ? `import { uid } from "@acme/utils";\nexport const x${i} = uid();\n` : `export const x${i} = ${i};\n`);
    if (uses) named.push(rel);
  }
  sb.git(dir, "init", "-q");
  sb.git(dir, "add", "-A");
  sb.git(dir, "commit", "-q", "-m", "init");
  fs.writeFileSync(path.join(dir, "packages/p0/src/new.ts"), 'import { uid } from "@acme/utils";\n');
  fs.writeFileSync(path.join(dir, "packages/p1/src/f1.ts"), 'import { uid } from "@acme/utils";\nexport const x1 = uid();\n');
  return { dir, named };
}

describe("filesContaining", () => {
  it("gives each file to onFile as git names it, once, and returns the same files sorted", async () => {
    const { dir, named } = monorepo();
    const seen: string[] = [];
    const found = await filesContaining({ abs: dir, changes: [] }, ["@acme/utils"], sb.configEnv, { onFile: (f) => seen.push(f) });
    const expected = [...named, "packages/p0/src/new.ts", "packages/p1/src/f1.ts"].sort();
    expect(found).toEqual(expected);
    expect([...seen].sort()).toEqual(expected);
  });

  it("with the repo's whole list of changes, searches tracked files and reads the changed ones itself, giving those to onFile too", async () => {
    const { dir, named } = monorepo();
    const seen: string[] = [];
    const changes = [{ path: "packages/p0/src/new.ts" }, { path: "packages/p1/src/f1.ts" }, { path: "packages/p2/src/gone.ts" }];
    const found = await filesContaining({ abs: dir, changes, complete: true }, ["@acme/utils"], sb.configEnv, { onFile: (f) => seen.push(f) });
    const expected = [...named, "packages/p0/src/new.ts", "packages/p1/src/f1.ts"].sort();
    expect(found).toEqual(expected);
    expect([...seen].sort()).toEqual(expected);
  });

  it("finds nothing, and names nothing, where git cannot search", async () => {
    const plain = path.join(sb.dir, "plain");
    fs.mkdirSync(plain);
    fs.writeFileSync(path.join(plain, "a.ts"), 'import { uid } from "@acme/utils";\n');
    const seen: string[] = [];
    const found = await filesContaining({ abs: plain, changes: [] }, ["@acme/utils"], sb.configEnv, { onFile: (f) => seen.push(f) });
    expect([found, seen]).toEqual([[], []]);
  });
});
