import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ComityError } from "../../src/errors/comity-error.js";
import { nodeSyncFs, type SyncFs } from "../../src/fs/sync-fs.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

const rel = (root: string, p: string | null): string | null => (p === null ? null : path.relative(root, p) || ".");

describe("discoverRepos", () => {
  it("finds main repos, linked worktrees, submodules, nested clones and repos in ignored folders", () => {
    const main = initRepo(sb, "main");
    sb.git(main, "worktree", "add", "-q", "../wt", "-b", "feature");
    const lib = initRepo(sb, "lib");
    sb.git(main, "submodule", "add", "-q", lib, "vendor/lib");
    sb.git(main, "commit", "-q", "-m", "add submodule");
    sb.git(main, "clone", "-q", lib, "nested-clone");
    sb.write("main/.gitignore", "ignored/\nnested-clone/\n");
    initRepo(sb, "main/ignored/deep/repo");

    const { repos, diagnostics } = discoverRepos(sb.dir);
    expect(diagnostics).toEqual([]);
    const view = repos.map((r) => ({
      root: rel(sb.dir, r.root),
      kind: r.kind,
      parent: rel(sb.dir, r.parent),
      gitDir: rel(sb.dir, r.gitDir),
      commonDir: rel(sb.dir, r.commonDir),
    }));
    expect(view).toEqual([
      { root: "lib", kind: "main", parent: null, gitDir: "lib/.git", commonDir: "lib/.git" },
      { root: "main", kind: "main", parent: null, gitDir: "main/.git", commonDir: "main/.git" },
      { root: "main/ignored/deep/repo", kind: "main", parent: "main", gitDir: "main/ignored/deep/repo/.git", commonDir: "main/ignored/deep/repo/.git" },
      { root: "main/nested-clone", kind: "main", parent: "main", gitDir: "main/nested-clone/.git", commonDir: "main/nested-clone/.git" },
      { root: "main/vendor/lib", kind: "submodule", parent: "main", gitDir: "main/.git/modules/vendor/lib", commonDir: "main/.git/modules/vendor/lib" },
      { root: "wt", kind: "worktree", parent: null, gitDir: "main/.git/worktrees/wt", commonDir: "main/.git" },
    ]);
    for (const r of repos) expect(r.diagnostics).toEqual([]);
  });

  it("prunes node_modules and the like, configurably, and never enters .git", () => {
    initRepo(sb, "app");
    initRepo(sb, "app/node_modules/dep");
    initRepo(sb, "app/build-cache/repo");
    // A repo-looking folder inside .git must not be reported.
    initRepo(sb, "app/.git/not-a-worktree");
    const roots = (prune?: string[]) => discoverRepos(sb.dir, prune === undefined ? {} : { prune }).repos.map((r) => rel(sb.dir, r.root));
    expect(roots()).toEqual(["app", "app/build-cache/repo"]);
    expect(roots(["build-cache"])).toEqual(["app", "app/node_modules/dep"]);
  });

  it("walks up to the repo that holds the folder, as git does", () => {
    const outer = initRepo(sb, "outer");
    sb.write("outer/src/deep/file.ts", "x");
    initRepo(sb, "outer/src/deep/inner");
    const { repos } = discoverRepos(path.join(outer, "src"));
    expect(repos.map((r) => [rel(sb.dir, r.root), rel(sb.dir, r.parent)])).toEqual([
      ["outer", null],
      ["outer/src/deep/inner", "outer"],
    ]);
    expect(discoverRepos(path.join(outer, "src"), { walkUp: false }).repos).toHaveLength(1);
  });

  it("does not loop on symlinks, with or without following them", () => {
    initRepo(sb, "a/repo");
    fs.symlinkSync(sb.dir, path.join(sb.dir, "a", "loop"));
    fs.symlinkSync(path.join(sb.dir, "a"), path.join(sb.dir, "a", "repo", "back"));
    fs.symlinkSync("missing-target", path.join(sb.dir, "dangling"));
    initRepo(sb, "elsewhere/linked");
    fs.symlinkSync(path.join(sb.dir, "elsewhere"), path.join(sb.dir, "a", "link-to-elsewhere"));
    const plain = discoverRepos(path.join(sb.dir, "a"));
    expect(plain.repos.map((r) => rel(sb.dir, r.root))).toEqual(["a/repo"]);
    const followed = discoverRepos(path.join(sb.dir, "a"), { followSymlinks: true });
    // Each real folder once: the repo reached through two links is reported once, at its real path.
    expect(followed.repos.map((r) => rel(sb.dir, r.root))).toEqual(["a/repo", "elsewhere/linked"]);
  });

  it("reports an unreadable folder as a diagnostic and goes on", () => {
    initRepo(sb, "ok");
    initRepo(sb, "locked/inside");
    const locked = path.join(sb.dir, "locked");
    const failing: SyncFs = {
      ...nodeSyncFs,
      readdirSync: (p, o) => {
        if (p === locked) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeSyncFs.readdirSync(p, o);
      },
    };
    const { repos, diagnostics } = discoverRepos(sb.dir, { fs: failing });
    expect(repos.map((r) => rel(sb.dir, r.root))).toEqual(["ok"]);
    expect(diagnostics).toEqual([{ code: "unreadable_folder", severity: "warning", path: locked, message: "cannot read folder (EACCES)" }]);
  });

  it.skipIf(process.getuid?.() === 0)("reports a chmod 000 folder (non-root only)", () => {
    initRepo(sb, "ok");
    fs.mkdirSync(path.join(sb.dir, "locked"));
    fs.chmodSync(path.join(sb.dir, "locked"), 0);
    try {
      const { repos, diagnostics } = discoverRepos(sb.dir);
      expect(repos).toHaveLength(1);
      expect(diagnostics.map((d) => d.code)).toEqual(["unreadable_folder"]);
    } finally {
      fs.chmodSync(path.join(sb.dir, "locked"), 0o755);
    }
  });

  it("stops at the depth limit with a diagnostic", () => {
    initRepo(sb, "a/b/c/d/repo");
    expect(discoverRepos(sb.dir).repos).toHaveLength(1);
    const shallow = discoverRepos(sb.dir, { maxDepth: 2 });
    expect(shallow.repos).toHaveLength(0);
    expect(shallow.diagnostics.map((d) => [d.code, rel(sb.dir, d.path)])).toEqual([["depth_limit", "a/b/c"]]);
  });

  it("rejects a root that is missing or a file with a coded error", () => {
    expect(() => discoverRepos(path.join(sb.dir, "nope"))).toThrowError(expect.objectContaining({ code: "ROOT_NOT_FOUND" }) as unknown as Error);
    const file = sb.write("file.txt", "x");
    try {
      discoverRepos(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ComityError);
      expect((error as ComityError).code).toBe("ROOT_NOT_A_DIRECTORY");
    }
  });

  it("reports a .git file pointing nowhere, or without gitdir, as a per-repo diagnostic", () => {
    sb.write("broken/.git", "gitdir: ../nowhere/.git\n");
    sb.write("garbage/.git", "hello\n");
    fs.mkdirSync(path.join(sb.dir, "empty/.git"), { recursive: true });
    const { repos } = discoverRepos(sb.dir);
    expect(repos.map((r) => [rel(sb.dir, r.root), r.gitDir === null, r.diagnostics.map((d) => d.code)])).toEqual([
      ["broken", true, ["gitdir_missing"]],
      ["empty", false, ["not_a_git_dir"]],
      ["garbage", true, ["bad_git_file"]],
    ]);
  });

  it("returns the same result for the same tree, sorted by root", () => {
    for (const name of ["zeta", "alpha", "Beta", "é", "mid/x"]) initRepo(sb, name);
    const a = discoverRepos(sb.dir);
    const b = discoverRepos(sb.dir);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.repos.map((r) => rel(sb.dir, r.root))).toEqual(["Beta", "alpha", "mid/x", "zeta", "é"]);
  });
});
