import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffSnapshots } from "../../src/snapshot/diff-snapshots.js";
import { takeSnapshot } from "../../src/snapshot/take-snapshot.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt, writeAged } from "../helpers/snapshot-helpers.js";

let sb: Sandbox;
let root: string;
beforeEach(() => {
  sb = createSandbox();
  root = initRepo(sb, "repo");
  writeAged(root, "a.txt", "committed");
  sb.git(root, "add", "-A");
  sb.git(root, "commit", "-q", "-m", "a");
});
afterEach(() => sb.cleanup());

/** Snapshot, change, snapshot: whether `git status` was used, and what changed. */
async function run(change: () => void, configEnv = sb.configEnv, at = root) {
  const repo = repoAt(at);
  const before = await takeSnapshot(repo, { configEnv });
  change();
  const after = await takeSnapshot(repo, { configEnv, previous: before.snapshot });
  return { viaGit: before.snapshot.base !== undefined, changes: diffSnapshots(before.snapshot, after.snapshot), before, after };
}

describe("snapshots relative to the git index", () => {
  it("are taken from git status where git sees everything, and list only what differs from the index", async () => {
    const r = await run(() => fs.writeFileSync(path.join(root, "a.txt"), "edited"));
    expect(r.viaGit).toBe(true);
    expect(r.before.snapshot.entries).toEqual([]);
    expect(r.after.snapshot.entries.map((e) => e.path)).toEqual(["a.txt"]);
    expect(r.after.paths).toBe(2);
    expect(r.changes).toEqual([{ path: "a.txt", change: "modified" }]);
  });

  it("walk instead where git status could hide a change, and still find it", async () => {
    sb.git(root, "config", "core.fileMode", "false");
    let r = await run(() => fs.chmodSync(path.join(root, "a.txt"), 0o755));
    expect(r.viaGit).toBe(false);
    // Why it walked is said, once per snapshot.
    expect(r.before.diagnostics.filter((d) => d.code === "snapshot_walked").map((d) => d.message)).toEqual(["walked the work tree instead of asking git status: core.fileMode is off"]);
    expect(r.changes).toEqual([{ path: "a.txt", change: "mode_changed" }]);
    sb.git(root, "config", "core.fileMode", "true");

    // Without ctime, git misses a same-size rewrite that puts the old mtime back: the walk does not.
    sb.git(root, "config", "core.trustCtime", "false");
    const st = fs.statSync(path.join(root, "a.txt"));
    r = await run(() => {
      fs.writeFileSync(path.join(root, "a.txt"), "COMMITTED");
      fs.utimesSync(path.join(root, "a.txt"), st.atime, st.mtime);
    });
    expect(r.viaGit).toBe(false);
    expect(r.changes).toEqual([{ path: "a.txt", change: "modified" }]);
    sb.git(root, "config", "core.trustCtime", "true");
    sb.git(root, "checkout", "--", "a.txt");
    for (const [key, v] of [
      ["core.checkStat", "minimal"],
      ["core.ignoreStat", "true"],
    ]) {
      sb.git(root, "config", key as string, v as string);
      expect((await run(() => undefined)).viaGit).toBe(false);
      sb.git(root, "config", "--unset", key as string);
    }
    expect((await run(() => undefined)).viaGit).toBe(true);

    sb.git(root, "update-index", "--assume-unchanged", "a.txt");
    r = await run(() => fs.writeFileSync(path.join(root, "a.txt"), "assumed, yet changed"));
    expect(r.viaGit).toBe(false);
    expect(r.changes).toEqual([{ path: "a.txt", change: "modified" }]);
    sb.git(root, "update-index", "--no-assume-unchanged", "a.txt");

    // Line-ending attributes leave git's view whole (it is the one that matters): no walk.
    writeAged(root, "sub/.gitattributes", "*.txt eol=crlf\n");
    r = await run(() => fs.writeFileSync(path.join(root, "sub/b.txt"), "x\n"));
    expect(r.viaGit).toBe(true);
    expect(r.changes).toEqual([{ path: "sub/b.txt", change: "added" }]);
    // A clean/smudge filter does not: git compares through a program. The diagnostic says which attribute, where.
    writeAged(root, "sub/.gitattributes", "*.txt eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs -text\n");
    r = await run(() => fs.writeFileSync(path.join(root, "sub/c.txt"), "y\n"));
    expect(r.viaGit).toBe(false);
    expect(r.before.diagnostics.map((d) => d.message)).toEqual(["walked the work tree instead of asking git status: a clean/smudge filter (filter=lfs) in sub/.gitattributes (untracked)"]);
    expect(r.changes).toEqual([{ path: "sub/c.txt", change: "added" }]);
  });

  it("walk when git cannot be run", async () => {
    const noGit = { ...sb.configEnv, env: { ...sb.configEnv.env, PATH: path.join(sb.dir, "no-such-bin") } };
    const r = await run(() => fs.writeFileSync(path.join(root, "new.txt"), "n"), noGit);
    expect(r.viaGit).toBe(false);
    expect(r.changes).toEqual([{ path: "new.txt", change: "added" }]);
  });

  it("name the nested repos and submodules they stop at", async () => {
    initRepo(sb, "repo/nested");
    const lib = initRepo(sb, "lib");
    sb.git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "deps/lib");
    sb.git(root, "commit", "-q", "-m", "sub");
    const r = await run(() => {
      fs.writeFileSync(path.join(root, "nested", "inside.txt"), "belongs to nested");
      fs.writeFileSync(path.join(root, "deps", "lib", "inside.txt"), "belongs to lib");
    });
    expect(r.viaGit).toBe(true);
    expect(r.changes).toEqual([]);
    expect(r.after.nested).toEqual([path.join(root, "deps/lib"), path.join(root, "nested")].map((p) => fs.realpathSync(p)));
  });

  it("work in a linked worktree, against its own index", async () => {
    const wt = path.join(sb.dir, "wt");
    sb.git(root, "worktree", "add", "-q", wt);
    const r = await run(
      () => {
        fs.writeFileSync(path.join(wt, "a.txt"), "changed in the worktree");
        fs.writeFileSync(path.join(root, "a.txt"), "changed in the main tree: not this one");
      },
      sb.configEnv,
      wt,
    );
    expect(r.viaGit).toBe(true);
    expect(r.changes).toEqual([{ path: "a.txt", change: "modified" }]);
  });

  it("never write the index, so the user's own git never meets an index.lock of ours", async () => {
    const index = path.join(root, ".git", "index");
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(root, "a.txt"), old, new Date()); // stat changed, content not: git status would refresh the index
    const before = fs.statSync(index);
    await run(() => undefined);
    const after = fs.statSync(index);
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size]);
  });
});
