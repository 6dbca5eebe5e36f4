import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadContentHasher, type WorktreeFs } from "../../src/snapshot/content-hasher.js";
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

  it("reads a changed file again only when its stat moved, given the files it read last time", async () => {
    const a = clone("a");
    fs.writeFileSync(path.join(a, "src/a.ts"), "export const a = 2;\n");
    fs.writeFileSync(path.join(a, "new.ts"), "new\n");
    const old = new Date(Date.now() - 3600_000);
    for (const f of ["src/a.ts", "new.ts"]) fs.utimesSync(path.join(a, f), old, old);
    const real = await loadContentHasher();
    let reads: string[] = [];
    const hasher = {
      ...real,
      gitBlobFile: (f: WorktreeFs, file: string, size: number) => {
        reads.push(path.basename(file));
        return real.gitBlobFile(f, file, size);
      },
    };
    const repo = repoAt(a);
    const first = await worktreeHash(repo, { configEnv: sb.configEnv, hasher });
    expect(reads.sort()).toEqual(["a.ts", "new.ts"]);
    const asSnapshot = (files: typeof first.files) => ({ version: 1 as const, root: repo.root, startedMs: 0, entries: files });
    reads = [];
    const second = await worktreeHash(repo, { configEnv: sb.configEnv, hasher, previous: asSnapshot(first.files) });
    expect(reads).toEqual([]);
    expect(second.worktree_hash).toBe(first.worktree_hash);
    // A same-size rewrite that puts the old mtime back still moves ctime: read again, and the hash follows.
    fs.writeFileSync(path.join(a, "new.ts"), "NEW\n");
    fs.utimesSync(path.join(a, "new.ts"), old, old);
    reads = [];
    const third = await worktreeHash(repo, { configEnv: sb.configEnv, hasher, previous: asSnapshot(second.files) });
    expect(reads).toEqual(["new.ts"]);
    expect(third.worktree_hash).not.toBe(first.worktree_hash);
    expect(third.worktree_hash).toBe((await worktreeHash(repo, { configEnv: sb.configEnv, engine: "walk" })).worktree_hash);
  });

  it("works in an unborn repo", async () => {
    const root = path.join(sb.dir, "unborn");
    fs.mkdirSync(root);
    sb.git(root, "init", "-q");
    const empty = await hashOf(root);
    fs.writeFileSync(path.join(root, "f"), "f");
    expect(await hashOf(root)).not.toBe(empty);
  });

  it("gives the same result from git status as from a walk, whatever the tree and the index hold (property)", async () => {
    const FILES = ["src/a.ts", "run.sh", "new.ts", "dir/x.ts", "debug.log", "src"];
    type Op = { op: "write" | "delete" | "chmod" | "symlink" | "stage" | "unstage"; file: string; n: number } | { op: "commit" | "merge-conflict"; file: string; n: number };
    const opArb: fc.Arbitrary<Op> = fc.record({
      op: fc.constantFrom("write", "delete", "chmod", "symlink", "stage", "unstage", "commit", "merge-conflict"),
      file: fc.constantFrom(...FILES),
      n: fc.nat(3),
    }) as fc.Arbitrary<Op>;
    const a = clone("a");
    sb.git(a, "checkout", "-q", "-b", "work");
    const apply = (o: Op): void => {
      const p = path.join(a, o.file);
      try {
        switch (o.op) {
          case "write":
            fs.rmSync(p, { recursive: true, force: true });
            fs.mkdirSync(path.dirname(p), { recursive: true });
            fs.writeFileSync(p, `content ${o.n}\n`);
            break;
          case "delete":
            fs.rmSync(p, { recursive: true, force: true });
            break;
          case "chmod":
            fs.chmodSync(p, o.n % 2 === 0 ? 0o755 : 0o644);
            break;
          case "symlink":
            fs.rmSync(p, { recursive: true, force: true });
            fs.mkdirSync(path.dirname(p), { recursive: true });
            fs.symlinkSync(`target-${o.n}`, p);
            break;
          case "stage":
            sb.git(a, "add", "-A", "--", o.file);
            break;
          case "unstage":
            sb.git(a, "rm", "-q", "-r", "--cached", "--", o.file);
            break;
          case "commit":
            sb.git(a, "commit", "-q", "--allow-empty", "-m", `c${o.n}`);
            break;
          case "merge-conflict":
            // A fresh conflict on src/a.ts: two branches from main change it each their way, then merge.
            for (const args of [
              ["merge", "--abort"],
              ["stash", "-q", "-u"],
            ]) {
              try {
                sb.git(a, ...args);
              } catch {
                // nothing to abort or stash
              }
            }
            for (const [branch, text] of [
              [`side${o.n}`, "theirs"],
              [`work${o.n}`, "ours"],
            ] as const) {
              sb.git(a, "checkout", "-q", "-f", "-B", branch, "main");
              fs.writeFileSync(path.join(a, "src/a.ts"), `${text} ${o.n}\n`);
              sb.git(a, "commit", "-q", "-am", text);
            }
            sb.git(a, "merge", "-q", `side${o.n}`);
            break;
        }
      } catch {
        // the op does not apply to this state (a failed merge leaves its conflict, which is what is wanted)
      }
    };
    let conflicted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 6 }), async (ops) => {
        for (const o of ops) apply(o);
        const repo = repoAt(a);
        if (/^u /m.test(sb.git(a, "status", "--porcelain=v2"))) conflicted++;
        const { files: _read, ...viaGit } = await worktreeHash(repo, { configEnv: sb.configEnv });
        const { files: _none, ...walked } = await worktreeHash(repo, { configEnv: sb.configEnv, engine: "walk" });
        expect(viaGit).toEqual(walked);
      }),
      { numRuns: 60 },
    );
    // The runs did meet the case that needs care: a conflict (its stages in the index, its markers on disk).
    expect(conflicted).toBeGreaterThan(0);
  });
});
