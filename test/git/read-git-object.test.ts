import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDelta, createObjectReader, readFileAtCommit, UnsupportedObjectStore } from "../../src/git/read-git-object.js";
import { headReader } from "../../src/symbols/analyze-file.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
let repo: string;

/** Bytes of `git show COMMIT:PATH`: the oracle. */
const gitShow = (cwd: string, commit: string, file: string): Buffer => execFileSync("git", ["show", `${commit}:${file}`], { cwd, env: sb.env, maxBuffer: 1 << 26 });

/** Every file of every commit, read by us and by git. */
function expectSameAsGit(cwd: string, gitDir = path.join(cwd, ".git")): number {
  const reader = createObjectReader(path.join(gitDir, "objects"));
  let checked = 0;
  for (const commit of sb.git(cwd, "rev-list", "--all").trim().split("\n")) {
    const files = execFileSync("git", ["ls-tree", "-r", "-z", "--name-only", commit], { cwd, env: sb.env, encoding: "utf8" })
      .split("\0")
      .filter((f) => f !== "");
    for (const f of files) {
      const ours = readFileAtCommit(reader, commit, f);
      expect(ours, `${commit}:${f}`).not.toBeNull();
      expect(Buffer.compare(ours as Buffer, gitShow(cwd, commit, f)), `${commit}:${f}`).toBe(0);
      checked++;
    }
    expect(readFileAtCommit(reader, commit, "no/such/file.ts")).toBeNull();
    expect(readFileAtCommit(reader, commit, "src")).toBeNull(); // a folder is not a file
  }
  return checked;
}

beforeAll(() => {
  sb = createSandbox();
  repo = initRepo(sb, "objects");
  const write = (rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), data);
  };
  // Large, repetitive text, edited a little each commit: deltas with long copies (over 64 KiB) and inserts.
  const big = Array.from({ length: 6000 }, (_, i) => `export const value${i} = ${i * 7}; // line ${i}\n`).join("");
  for (let round = 0; round < 6; round++) {
    write("src/big.ts", `${big.replace(`value${round * 500}`, `renamed${round}`)}// round ${round}\n`);
    write("src/deep/nested/file.py", `def f${round}(x):\n    return x * ${round}\n`);
    write("data/blob.bin", Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31 + round) % 256)));
    write("docs/ünïcode name.md", `# round ${round}\n`);
    write("empty.txt", "");
    if (round === 0) fs.symlinkSync("src/big.ts", path.join(repo, "link.ts"));
    sb.git(repo, "add", "-A");
    sb.git(repo, "commit", "-q", "-m", `round ${round}`);
  }
});
afterAll(() => sb.cleanup());

describe("createObjectReader / readFileAtCommit", () => {
  it("reads loose objects exactly as git shows them", () => {
    expect(fs.readdirSync(path.join(repo, ".git", "objects", "pack")).filter((f) => f.endsWith(".pack"))).toEqual([]);
    expect(expectSameAsGit(repo)).toBeGreaterThan(30);
  });

  it("reads packs with offset deltas, and with reference deltas", () => {
    sb.git(repo, "repack", "-adfq", "--depth=50", "--window=50");
    const verify = sb.git(
      repo,
      "verify-pack",
      "-v",
      ...fs
        .readdirSync(path.join(repo, ".git", "objects", "pack"))
        .filter((f) => f.endsWith(".idx"))
        .map((f) => path.join(repo, ".git", "objects", "pack", f)),
    );
    expect(verify).toMatch(/chain length = [1-9]/); // there are deltas to resolve
    expect(fs.readdirSync(path.join(repo, ".git", "objects")).filter((d) => /^[0-9a-f]{2}$/.test(d))).toEqual([]);
    expectSameAsGit(repo);
    sb.git(repo, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50", "--window=50");
    expectSameAsGit(repo);
  });

  it("follows alternates (a clone made with --shared)", () => {
    const shared = path.join(sb.dir, "shared");
    sb.git(sb.dir, "clone", "-q", "--shared", repo, shared);
    expect(fs.existsSync(path.join(shared, ".git", "objects", "info", "alternates"))).toBe(true);
    expectSameAsGit(shared);
  });

  it("says what it cannot read instead of guessing", async () => {
    const head = sb.git(repo, "rev-parse", "HEAD").trim();
    const v1 = path.join(sb.dir, "v1");
    sb.git(sb.dir, "clone", "-q", "--no-local", repo, v1);
    sb.git(v1, "-c", "pack.indexVersion=1", "repack", "-adfq");
    expect(() => readFileAtCommit(createObjectReader(path.join(v1, ".git", "objects")), head, "src/big.ts")).toThrow(UnsupportedObjectStore);
    // isomorphic-git cannot read a v1 index either: the HEAD reader reports ours, the clearer of the two.
    await expect(headReader(path.join(v1, ".git"), head)("src/deep/nested/file.py")).rejects.toThrow(/only version 2 pack indexes/);
    expect((await headReader(path.join(repo, ".git"), head)("src/deep/nested/file.py"))?.equals(gitShow(repo, head, "src/deep/nested/file.py"))).toBe(true);
    expect(await headReader(path.join(repo, ".git"), head)("no/such.ts")).toBeNull();
    expect(() => readFileAtCommit(createObjectReader(path.join(repo, ".git", "objects")), "0".repeat(40), "src/big.ts")).toThrow(UnsupportedObjectStore);
  });
});

describe("applyDelta", () => {
  /** A delta built from instructions, as git writes them. */
  const encode = (baseLen: number, ops: Array<{ copy: [number, number] } | { insert: Buffer }>, targetLen: number): Buffer => {
    const varint = (n: number) => {
      const out: number[] = [];
      do {
        let b = n & 0x7f;
        n = Math.floor(n / 128);
        if (n > 0) b |= 0x80;
        out.push(b);
      } while (n > 0);
      return out;
    };
    const bytes = [...varint(baseLen), ...varint(targetLen)];
    for (const op of ops) {
      if ("insert" in op) bytes.push(op.insert.length, ...op.insert);
      else {
        const [off, len] = op.copy;
        let code = 0x80;
        const args: number[] = [];
        for (let b = 0; b < 4; b++)
          if ((off >> (8 * b)) & 0xff) {
            code |= 1 << b;
            args.push((off >> (8 * b)) & 0xff);
          }
        for (let b = 0; b < 3; b++)
          if ((len >> (8 * b)) & 0xff) {
            code |= 0x10 << b;
            args.push((len >> (8 * b)) & 0xff);
          }
        bytes.push(code, ...args);
      }
    }
    return Buffer.from(bytes);
  };

  it("rebuilds the target of any well-formed delta", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.array(fc.oneof(fc.tuple(fc.nat(), fc.nat()), fc.uint8Array({ minLength: 1, maxLength: 127 })), { maxLength: 20 }),
        (baseArr, raw) => {
          const base = Buffer.from(baseArr);
          const ops = raw.map((r) => (Array.isArray(r) ? { copy: [r[0] % base.length, 1 + (r[1] % (base.length - (r[0] % base.length)))] as [number, number] } : { insert: Buffer.from(r) }));
          const expected = Buffer.concat(ops.map((o) => ("insert" in o ? o.insert : base.subarray(o.copy[0], o.copy[0] + o.copy[1]))));
          expect(applyDelta(base, encode(base.length, ops, expected.length)).equals(expected)).toBe(true);
        },
      ),
    );
  });

  it("rejects garbage with UnsupportedObjectStore, never another error or a wrong buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (base, delta) => {
        try {
          const out = applyDelta(Buffer.from(base), Buffer.from(delta));
          expect(Buffer.isBuffer(out)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(UnsupportedObjectStore);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
