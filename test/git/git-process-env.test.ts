import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mergeBaseOf } from "../../src/analyze/clone-collisions.js";
import { gitProcessEnv, REPO_SELECTING_GIT_ENV } from "../../src/git/git-process-env.js";
import { rootCommitFingerprints } from "../../src/remotes/root-commit-fingerprints.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe("the environment of every git process Comity starts", () => {
  it("keeps the caller's config variables, takes HOME from where it is told, drops what selects another repo, and never takes optional locks", () => {
    const env = gitProcessEnv({ env: { GIT_DIR: "/elsewhere/.git", GIT_INDEX_FILE: "/x", GIT_CONFIG_GLOBAL: "/cfg", HOME: "/wrong", PATH: "/p" }, homeDir: "/h" });
    for (const name of REPO_SELECTING_GIT_ENV) expect(env[name]).toBeUndefined();
    expect(env).toMatchObject({ GIT_CONFIG_GLOBAL: "/cfg", HOME: "/h", PATH: "/p", GIT_OPTIONAL_LOCKS: "0" });
    expect(gitProcessEnv({ env: { GIT_OPTIONAL_LOCKS: "0" }, homeDir: "/h" }, { writesIndex: true })["GIT_OPTIONAL_LOCKS"]).toBeUndefined();
  });

  it("asks git about the repo in its folder even when the caller's environment names another (a git hook's GIT_DIR)", async () => {
    const a = initRepo(sb, "a");
    const b = initRepo(sb, "b", "other.md");
    const where = (env: Record<string, string | undefined>) => ({ env: { ...sb.env, ...env }, homeDir: sb.env["HOME"] ?? "/" });
    const own = await rootCommitFingerprints(a, where({}));
    expect(own).toHaveLength(1);
    expect(await rootCommitFingerprints(a, where({ GIT_DIR: path.join(b, ".git"), GIT_WORK_TREE: b }))).toEqual(own);
    const head = sb.git(a, "rev-parse", "HEAD").trim();
    expect(await mergeBaseOf(a, [head], where({ GIT_DIR: path.join(b, ".git") }))).toBe(head);
  });
});
