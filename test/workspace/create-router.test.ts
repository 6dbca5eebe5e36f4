import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeSyncFs, type SyncFs } from "../../src/fs/sync-fs.js";
import { createRouter } from "../../src/workspace/create-router.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import type { Repo } from "../../src/workspace/repo.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
let repos: readonly Repo[];
beforeEach(() => {
  sb = createSandbox();
  initRepo(sb, "outer");
  initRepo(sb, "outer/packages/inner");
  initRepo(sb, "other");
  sb.write("outer/src/a.ts", "a");
  fs.symlinkSync(path.join(sb.dir, "outer", "packages", "inner"), path.join(sb.dir, "inner-link"));
  repos = discoverRepos(sb.dir).repos;
});
afterEach(() => sb.cleanup());

const owner = (r: ReturnType<ReturnType<typeof createRouter>["route"]>): [string, string] | null => (r === null ? null : [path.relative(sb.dir, r.repo.root), r.path]);

describe("createRouter", () => {
  it("routes to the innermost repo, with repo-relative POSIX paths", () => {
    const router = createRouter(repos);
    expect(owner(router.route(path.join(sb.dir, "outer/src/a.ts")))).toEqual(["outer", "src/a.ts"]);
    expect(owner(router.route(path.join(sb.dir, "outer/packages/inner/README.md")))).toEqual(["outer/packages/inner", "README.md"]);
    expect(owner(router.route(path.join(sb.dir, "outer/packages/other.ts")))).toEqual(["outer", "packages/other.ts"]);
    expect(owner(router.route(path.join(sb.dir, "outer")))).toEqual(["outer", "."]);
  });

  it("resolves relative paths, `..` and symlinked folders", () => {
    const router = createRouter(repos);
    const cwd = path.join(sb.dir, "outer", "src");
    expect(owner(router.route("a.ts", cwd))).toEqual(["outer", "src/a.ts"]);
    expect(owner(router.route("../packages/inner/x/../y.ts", cwd))).toEqual(["outer/packages/inner", "y.ts"]);
    expect(owner(router.route("../../other/z.py", cwd))).toEqual(["other", "z.py"]);
    expect(owner(router.route(path.join(sb.dir, "inner-link/src/new.ts")))).toEqual(["outer/packages/inner", "src/new.ts"]);
    expect(owner(router.route(path.join(sb.dir, "inner-link")))).toEqual(["outer/packages/inner", "."]);
  });

  it("routes paths that do not exist yet, in folders that do not exist yet", () => {
    const router = createRouter(repos);
    expect(owner(router.route(path.join(sb.dir, "outer/new/dir/deep/file.ts")))).toEqual(["outer", "new/dir/deep/file.ts"]);
    expect(owner(router.route(path.join(sb.dir, "inner-link/new/file.ts")))).toEqual(["outer/packages/inner", "new/file.ts"]);
  });

  it("gives no owner inside .git or outside every repo", () => {
    const router = createRouter(repos);
    expect(router.route(path.join(sb.dir, "outer/.git/config"))).toBeNull();
    expect(router.route(path.join(sb.dir, "outer/.git"))).toBeNull();
    expect(router.route(path.join(sb.dir, "outer/packages/inner/.git/HEAD"))).toBeNull();
    expect(router.route(path.join(sb.dir, "loose.txt"))).toBeNull();
    expect(router.route("/")).toBeNull();
    // `.gitignore` and `.github` are ordinary files, not git's folder.
    expect(owner(router.route(path.join(sb.dir, "outer/.gitignore")))).toEqual(["outer", ".gitignore"]);
    expect(owner(router.route(path.join(sb.dir, "outer/.github/ci.yml")))).toEqual(["outer", ".github/ci.yml"]);
  });

  it("routes 500 paths with one realpath per folder, whatever the number of repos", () => {
    for (let i = 0; i < 40; i++) initRepo(sb, `many/r${i}`);
    let realpaths = 0;
    const counting: SyncFs = {
      ...nodeSyncFs,
      realpathSync: (p) => {
        realpaths++;
        return nodeSyncFs.realpathSync(p);
      },
    };
    const all = discoverRepos(sb.dir).repos;
    const router = createRouter(all, { fs: counting });
    const targets = Array.from({ length: 500 }, (_, i) => path.join(sb.dir, `many/r${i % 40}/src/f${i}.ts`));
    const routes = router.routeAll(targets);
    expect(routes.every((r, i) => r !== null && r.path === `src/f${i}.ts`)).toBe(true);
    // 40 `src` folders (missing: their parents are resolved once each too), not 500 × 40.
    expect(realpaths).toBeLessThanOrEqual(40 * 2 + 5);
  });
});
