import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";
import { diffSnapshots } from "../../src/snapshot/diff-snapshots.js";
import { takeSnapshot } from "../../src/snapshot/take-snapshot.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { age, changesOf as changesWith, engineOptions, ENGINES, repoAt, snap, writeAged } from "../helpers/snapshot-helpers.js";

let sb: Sandbox;
let root: string;
beforeEach(() => {
  sb = createSandbox();
  root = initRepo(sb, "repo");
});
afterEach(() => sb.cleanup());

const file = (rel: string): string => path.join(root, rel);

describe.each(ENGINES)("takeSnapshot + diffSnapshots (engine %s)", (engine) => {
  const changesOf = (s: Sandbox, r: string, change: () => void) => changesWith(s, r, change, engine);
  it("finds a same-second, same-size rewrite (racy entry)", async () => {
    fs.writeFileSync(file("a.txt"), "aaaa");
    const now = new Date(); // whole milliseconds, so utimes can put it back exactly
    fs.utimesSync(file("a.txt"), now, now);
    const mtimeBefore = fs.statSync(file("a.txt")).mtimeMs;
    const changes = await changesOf(sb, root, () => {
      fs.writeFileSync(file("a.txt"), "bbbb");
      fs.utimesSync(file("a.txt"), now, now);
    });
    expect(fs.statSync(file("a.txt")).mtimeMs).toBe(mtimeBefore);
    expect(changes).toEqual([{ path: "a.txt", change: "modified" }]);
  });

  it("finds a same-size rewrite that puts an old mtime back", async () => {
    writeAged(root, "old.txt", "1111");
    const st = fs.statSync(file("old.txt"));
    const changes = await changesOf(sb, root, () => {
      fs.writeFileSync(file("old.txt"), "2222");
      fs.utimesSync(file("old.txt"), st.atime, st.mtime);
    });
    expect(changes).toEqual([{ path: "old.txt", change: "modified" }]);
  });

  it("does not report touch alone", async () => {
    writeAged(root, "t.txt", "same");
    const changes = await changesOf(sb, root, () => {
      const now = new Date();
      fs.utimesSync(file("t.txt"), now, now);
      fs.utimesSync(file("README.md"), now, now);
    });
    expect(changes).toEqual([]);
  });

  it("reports chmod +x as mode_changed, on tracked and untracked files", async () => {
    writeAged(root, "untracked.sh", "echo");
    const changes = await changesOf(sb, root, () => {
      fs.chmodSync(file("README.md"), 0o755);
      fs.chmodSync(file("untracked.sh"), 0o755);
    });
    expect(changes).toEqual([
      { path: "README.md", change: "mode_changed" },
      { path: "untracked.sh", change: "mode_changed" },
    ]);
  });

  it("reports a file replaced by a symlink, or by a folder, as type_changed", async () => {
    writeAged(root, "x.txt", "x");
    writeAged(root, "y.txt", "y");
    const changes = await changesOf(sb, root, () => {
      fs.rmSync(file("x.txt"));
      fs.symlinkSync("README.md", file("x.txt"));
      fs.rmSync(file("y.txt"));
      fs.mkdirSync(file("y.txt"));
      fs.writeFileSync(file("y.txt/inner"), "i");
    });
    expect(changes).toEqual([
      { path: "x.txt", change: "type_changed" },
      { path: "y.txt", change: "type_changed" },
      { path: "y.txt/inner", change: "added" },
    ]);
  });

  it("reports a changed symlink target, and never follows a link out of the repo", async () => {
    fs.symlinkSync("README.md", file("link"));
    fs.symlinkSync(sb.dir, file("outside"));
    const changes = await changesOf(sb, root, () => {
      fs.rmSync(file("link"));
      fs.symlinkSync("other-target", file("link"));
      fs.writeFileSync(path.join(sb.dir, "outside-file.txt"), "not ours");
    });
    expect(changes).toEqual([{ path: "link", change: "modified" }]);
  });

  it("reports each of 100 files in a deleted folder", async () => {
    for (let i = 0; i < 100; i++) writeAged(root, `gen/f${String(i).padStart(3, "0")}.txt`, `${i}`);
    const changes = await changesOf(sb, root, () => fs.rmSync(file("gen"), { recursive: true }));
    expect(changes).toHaveLength(100);
    expect(changes.every((c) => c.change === "deleted" && c.path.startsWith("gen/"))).toBe(true);
  });

  it("keeps ignored files out: every .gitignore level, negations, info/exclude, core.excludesFile", async () => {
    writeAged(root, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    writeAged(root, "sub/.gitignore", "local-*\n!local-keep\n");
    fs.writeFileSync(path.join(root, ".git/info/exclude"), "excluded.txt\n");
    const globalIgnore = path.join(sb.dir, "..", "global-ignore");
    fs.writeFileSync(globalIgnore, "*.swp\n");
    sb.git(root, "config", "core.excludesFile", globalIgnore);
    const changes = await changesOf(sb, root, () => {
      for (const f of ["a.log", "keep.log", "build/out.js", "sub/local-x", "sub/local-keep", "sub/x.log", "excluded.txt", "f.swp", "sub/ok.txt"]) {
        fs.mkdirSync(path.dirname(file(f)), { recursive: true });
        fs.writeFileSync(file(f), "new");
      }
    });
    expect(changes).toEqual([
      { path: "keep.log", change: "added" },
      { path: "sub/local-keep", change: "added" },
      { path: "sub/ok.txt", change: "added" },
    ]);
    // git agrees on what it can see.
    const untracked = sb
      .git(root, "status", "--porcelain=v2", "-uall")
      .split("\n")
      .filter((l) => l.startsWith("? "))
      .map((l) => l.slice(2));
    expect(untracked.sort()).toEqual([".gitignore", "keep.log", "sub/.gitignore", "sub/local-keep", "sub/ok.txt"]);
  });

  it("still sees a tracked file that an ignore rule matches", async () => {
    writeAged(root, "tracked.log", "v1");
    sb.git(root, "add", "tracked.log");
    sb.git(root, "commit", "-q", "-m", "log");
    writeAged(root, ".gitignore", "*.log\n");
    const changes = await changesOf(sb, root, () => fs.writeFileSync(file("tracked.log"), "v2"));
    expect(changes).toEqual([{ path: "tracked.log", change: "modified" }]);
  });

  it("treats nested repos and submodules as boundaries", async () => {
    const nested = initRepo(sb, "repo/nested");
    const lib = initRepo(sb, "lib");
    sb.git(root, "submodule", "add", "-q", lib, "deps/lib");
    sb.git(root, "commit", "-q", "-m", "sub");
    const outer = await changesOf(sb, root, () => {
      fs.writeFileSync(path.join(nested, "inside.txt"), "x");
      fs.writeFileSync(path.join(nested, "README.md"), "changed");
      fs.writeFileSync(path.join(root, "deps/lib/README.md"), "changed");
      fs.writeFileSync(file("outer.txt"), "x");
    });
    expect(outer).toEqual([{ path: "outer.txt", change: "added" }]);
    const inner = await snap(sb, repoAt(nested), undefined, engine);
    expect(inner.entries.map((e) => e.path)).toEqual(["README.md", "inside.txt"]);
  });

  it("never includes .git", async () => {
    const s = await snap(sb, repoAt(root), undefined, engine);
    expect(s.entries.some((e) => e.path === ".git" || e.path.startsWith(".git/"))).toBe(false);
  });

  it("hashes files of any size and binary files (large ones streamed)", async () => {
    const big = Buffer.alloc(20 * 1024 * 1024 + 123, 7);
    fs.writeFileSync(file("big.bin"), big);
    fs.writeFileSync(file("bin.dat"), Buffer.from([0, 255, 0, 1, 2]));
    const changes = await changesOf(sb, root, () => {
      big[big.length - 1] = 8;
      fs.writeFileSync(file("big.bin"), big);
      fs.writeFileSync(file("bin.dat"), Buffer.from([0, 255, 0, 1, 3]));
    });
    expect(changes).toEqual([
      { path: "big.bin", change: "modified" },
      { path: "bin.dat", change: "modified" },
    ]);
  });

  it("is a stat cache: the index vouches for clean files, the previous snapshot for unchanged ones", async () => {
    for (let i = 0; i < 50; i++) writeAged(root, `src/f${i}.ts`, `export const v = ${i};\n`);
    age(file("README.md"));
    sb.git(root, "add", "-A");
    sb.git(root, "commit", "-q", "-m", "files");
    const hasher = await loadContentHasher();
    const repo = repoAt(root);
    const first = await takeSnapshot(repo, { hasher, configEnv: sb.configEnv, ...engineOptions(sb, engine) });
    expect(first.counts).toEqual({ hashed: 0, fromPrevious: 0, fromIndex: 51 });
    fs.writeFileSync(file("src/f1.ts"), "changed");
    fs.writeFileSync(file("new.ts"), "new");
    const second = await takeSnapshot(repo, { hasher, configEnv: sb.configEnv, ...engineOptions(sb, engine), previous: first.snapshot });
    // A walk re-checks every clean file against the previous snapshot; relative to the index, git vouches for them.
    expect(second.counts).toEqual(engine === "walk" ? { hashed: 2, fromPrevious: 50, fromIndex: 0 } : { hashed: 2, fromPrevious: 0, fromIndex: 50 });
    expect(second.paths).toBe(52);
    // The two files were just written (racy): the next snapshot checks them again, the one after trusts their stat.
    const later = () => Date.now() + 60_000;
    const third = await takeSnapshot(repo, { hasher, configEnv: sb.configEnv, ...engineOptions(sb, engine), previous: second.snapshot, clock: later });
    expect(third.counts.hashed).toBe(2);
    const fourth = await takeSnapshot(repo, { hasher, configEnv: sb.configEnv, ...engineOptions(sb, engine), previous: third.snapshot, clock: later });
    expect(fourth.counts).toEqual(engine === "walk" ? { hashed: 0, fromPrevious: 52, fromIndex: 0 } : { hashed: 0, fromPrevious: 2, fromIndex: 50 });
    expect(diffSnapshots(first.snapshot, second.snapshot)).toEqual([
      { path: "new.ts", change: "added" },
      { path: "src/f1.ts", change: "modified" },
    ]);
  });

  it("asks git status with text and line-ending attributes, and with a filter, an encoding or ident looks at the paths they cover itself", async () => {
    writeAged(root, ".gitattributes", "* text=auto eol=lf\n*.png binary\n*.md linguist-documentation diff=markdown export-ignore\n");
    writeAged(root, "a.txt", "a\n");
    sb.git(root, "add", "-A");
    sb.git(root, "commit", "-q", "-m", "attrs");
    const r = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv, ...engineOptions(sb, engine) });
    // git's view is the one that matters there (README, Snapshots): the git engine is used.
    expect(r.snapshot.base === undefined).toBe(engine === "walk");
    expect(r.diagnostics.filter((d) => d.code === "snapshot_walked")).toEqual([]);
    for (const [attrs, why] of [
      ["*.dat filter=crypt\n", "a clean/smudge filter (filter=crypt) in .gitattributes"],
      ["*.txt working-tree-encoding=UTF-16LE\n", "a working-tree-encoding in .gitattributes"],
      ["*.c ident\n", "ident (keyword expansion) in .gitattributes"],
    ] as const) {
      writeAged(root, ".gitattributes", `* text=auto\n${attrs}`);
      sb.git(root, "add", "-A");
      sb.git(root, "commit", "-q", "-m", why);
      const w = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv, ...engineOptions(sb, engine) });
      expect(w.snapshot.base === undefined).toBe(engine === "walk");
      if (engine !== "walk")
        expect(w.diagnostics.map((d) => d.message)).toContain(
          `asked git status, and looked at the ${why.includes("ident") || why.includes("filter") ? 0 : 1} path(s) under ${why.replace(/ in .*$/, "")} itself (git's view of them may hide a write)`,
        );
    }
  });

  it("reads index versions 2, 3 and 4 alike", async () => {
    for (let i = 0; i < 20; i++) writeAged(root, `deep/dir/name-${i}.txt`, `${i}`);
    sb.git(root, "add", "-A");
    sb.git(root, "commit", "-q", "-m", "many");
    const results: number[] = [];
    for (const v of ["2", "3", "4"]) {
      sb.git(root, "update-index", "--index-version", v);
      const r = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv, ...engineOptions(sb, engine), clock: () => Date.now() + 60_000 });
      results.push(r.counts.fromIndex);
    }
    expect(results[0]).toBeGreaterThan(0);
    expect(new Set(results).size).toBe(1);
  });

  it("reports odd file names exactly", async () => {
    const names = ["tab\there.txt", "new\nline.txt", "émoji-😀.txt", 'quote"d.txt', "back\\slash.txt", " lead space.txt", "-dash.txt"];
    const changes = await changesOf(sb, root, () => {
      for (const n of names) fs.writeFileSync(file(n), n);
    });
    expect(changes.map((c) => c.path).sort()).toEqual([...names].sort());
  });
});
