import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexChecksum, scanIndexFacts } from "../../src/git/index-facts.js";
import { parseGitIndex } from "../../src/git/read-git-index.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
let root: string;
beforeEach(() => {
  sb = createSandbox();
  root = initRepo(sb, "repo");
  for (let i = 0; i < 30; i++) sb.write(`repo/deep/dir-${i % 3}/name-${i}.txt`, `${i}`);
  sb.git(root, "add", "-A");
  // A path longer than the 12 bits of length an entry's flags hold (the file need not exist to be in the index).
  const oid = sb.git(root, "hash-object", "-w", "README.md").trim();
  sb.git(root, "update-index", "--add", "--cacheinfo", `100644,${oid},${Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(200, "x")).join("/")}.txt`);
  sb.git(root, "commit", "-q", "-m", "files");
});
afterEach(() => sb.cleanup());

const read = () => fs.readFileSync(path.join(root, ".git", "index"));

describe("scanIndexFacts", () => {
  it("counts what the full parser reads, and the checksum git wrote, in index versions 2, 3 and 4", () => {
    for (const v of ["2", "3", "4"]) {
      sb.git(root, "update-index", "--index-version", v);
      const buf = read();
      const facts = scanIndexFacts(buf);
      // git writes version 3 only when an entry needs extended flags, else 2.
      expect(facts).toMatchObject({ version: buf.readUInt32BE(4), files: parseGitIndex(buf)?.entries.length, gitlinks: [], distrust: null });
      expect(facts?.checksum).toBe(buf.subarray(buf.length - 20).toString("hex"));
    }
  });

  it("tells apart two indexes written with index.skipHash (a zero trailer, git 2.40+) by their content", () => {
    const zeroed = (buf: Buffer): Buffer => Buffer.concat([buf.subarray(0, buf.length - 20), Buffer.alloc(20)]);
    const first = zeroed(read());
    sb.write("repo/another.txt", "x");
    sb.git(root, "add", "another.txt");
    const second = zeroed(read());
    const a = scanIndexFacts(first)?.checksum;
    expect(a).toMatch(/^[0-9a-f]{40}$/);
    expect(a).not.toBe("0".repeat(40));
    expect(scanIndexFacts(second)?.checksum).not.toBe(a);
    expect(indexChecksum(Buffer.from(first))).toBe(a);
  });

  it("says why git status would hide a change", () => {
    sb.git(root, "update-index", "--assume-unchanged", "deep/dir-0/name-0.txt");
    expect(scanIndexFacts(read())?.distrust).toMatch(/assume-unchanged/);
    sb.git(root, "update-index", "--no-assume-unchanged", "deep/dir-0/name-0.txt");
    sb.git(root, "update-index", "--skip-worktree", "deep/dir-0/name-0.txt");
    expect(scanIndexFacts(read())?.distrust).toMatch(/skip-worktree/);
    sb.git(root, "update-index", "--no-skip-worktree", "deep/dir-0/name-0.txt");
    expect(scanIndexFacts(read())?.distrust).toBeNull();
    for (const v of ["2", "4"]) {
      sb.write("repo/deep/dir-1/.gitattributes", "*.txt text\n");
      sb.git(root, "add", "-A");
      sb.git(root, "update-index", "--index-version", v);
      // A tracked .gitattributes is listed, not distrusted: what it sets decides (attributesDistrust).
      expect(scanIndexFacts(read())).toMatchObject({ distrust: null, attributes: ["deep/dir-1/.gitattributes"] });
    }
    sb.git(root, "rm", "-q", "-f", "deep/dir-1/.gitattributes");
    sb.write("repo/not.gitattributes", "a file whose name only ends like one");
    sb.git(root, "add", "-A");
    expect(scanIndexFacts(read())).toMatchObject({ distrust: null, attributes: [] });
  });

  it("lists gitlinks apart from files, and rejects what is not an index", () => {
    const lib = initRepo(sb, "lib");
    sb.git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "deps/lib");
    const facts = scanIndexFacts(read());
    expect(facts?.gitlinks).toEqual(["deps/lib"]);
    expect(facts?.files).toBe((parseGitIndex(read())?.entries.length ?? 0) - 1);
    expect(scanIndexFacts(Buffer.from("not an index at all, but long enough"))).toBeNull();
    expect(scanIndexFacts(read().subarray(0, 100))).toBeNull();
  });
});
