import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { worktreeHash } from "../../src/snapshot/worktree-hash.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt } from "../helpers/snapshot-helpers.js";

let sb: Sandbox;
let origin: string;
beforeEach(() => {
  sb = createSandbox();
  origin = initRepo(sb, "origin");
  fs.writeFileSync(path.join(origin, ".gitignore"), "*.log\n");
  fs.mkdirSync(path.join(origin, "src"));
  fs.writeFileSync(path.join(origin, "src/a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(origin, "run.sh"), "echo\n");
  sb.git(origin, "add", "-A");
  sb.git(origin, "commit", "-q", "-m", "base");
});
afterEach(() => sb.cleanup());

const hashOf = async (root: string) => (await worktreeHash(repoAt(root), { configEnv: sb.configEnv })).worktree_hash;
const clone = (name: string): string => {
  sb.git(sb.dir, "clone", "-q", origin, name);
  return path.join(sb.dir, name);
};

describe("worktreeHash", () => {
  it("is the same for two checkouts with the same HEAD and the same changes, anywhere", async () => {
    const a = clone("a");
    const b = clone("deeper/path/b");
    expect(await hashOf(a)).toBe(await hashOf(b));
    for (const root of [a, b]) {
      fs.writeFileSync(path.join(root, "src/a.ts"), "export const a = 2;\n");
      fs.writeFileSync(path.join(root, "new.ts"), "new\n");
      fs.rmSync(path.join(root, "run.sh"));
    }
    // Staged in one, not in the other: the working tree is the same.
    sb.git(b, "add", "src/a.ts");
    const ha = await hashOf(a);
    expect(ha).toMatch(/^[0-9a-f]{64}$/);
    expect(ha).toBe(await hashOf(b));
    expect(ha).not.toBe(await hashOf(origin));
  });

  it("is stable for a clean tree and comes back when a change is undone", async () => {
    const a = clone("a");
    const clean = await hashOf(a);
    expect(await hashOf(a)).toBe(clean);
    fs.writeFileSync(path.join(a, "src/a.ts"), "changed\n");
    const dirty = await hashOf(a);
    expect(dirty).not.toBe(clean);
    fs.writeFileSync(path.join(a, "src/a.ts"), "export const a = 1;\n");
    expect(await hashOf(a)).toBe(clean);
  });

  it("counts untracked files and mode changes, not ignored files", async () => {
    const a = clone("a");
    const clean = await hashOf(a);
    fs.writeFileSync(path.join(a, "debug.log"), "ignored");
    expect(await hashOf(a)).toBe(clean);
    fs.chmodSync(path.join(a, "run.sh"), 0o755);
    const modeChanged = await hashOf(a);
    expect(modeChanged).not.toBe(clean);
    fs.writeFileSync(path.join(a, "untracked.txt"), "u");
    expect(await hashOf(a)).not.toBe(modeChanged);
  });

  it("differs for different changes and for different HEADs", async () => {
    const a = clone("a");
    const b = clone("b");
    fs.writeFileSync(path.join(a, "src/a.ts"), "one\n");
    fs.writeFileSync(path.join(b, "src/a.ts"), "two\n");
    expect(await hashOf(a)).not.toBe(await hashOf(b));
    const c = clone("c");
    const before = await hashOf(c);
    fs.writeFileSync(path.join(c, "x"), "x");
    sb.git(c, "add", "x");
    sb.git(c, "commit", "-q", "-m", "x");
    expect(await hashOf(c)).not.toBe(before);
  });

  it("works in an unborn repo", async () => {
    const root = path.join(sb.dir, "unborn");
    fs.mkdirSync(root);
    sb.git(root, "init", "-q");
    const empty = await hashOf(root);
    fs.writeFileSync(path.join(root, "f"), "f");
    expect(await hashOf(root)).not.toBe(empty);
  });
});
