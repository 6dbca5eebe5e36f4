import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { remoteFingerprint } from "../../src/remotes/fingerprint.js";
import { readRepoState, type RepoState } from "../../src/state/read-repo-state.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

async function stateOf(root: string): Promise<RepoState> {
  const repo = discoverRepos(root, { walkUp: false }).repos.find((r) => r.root === fs.realpathSync(root));
  if (repo === undefined) throw new Error(`no repo at ${root}`);
  return readRepoState(repo, { configEnv: sb.configEnv });
}

const rev = (root: string, what: string): string => sb.git(root, "rev-parse", what).trim();
const codes = (s: RepoState): string[] => s.diagnostics.map((d) => d.code);

describe("readRepoState", () => {
  it("reads branch, HEAD and the merge base with origin's default branch (via origin/HEAD)", async () => {
    const up = initRepo(sb, "upstream");
    sb.git(up, "branch", "-m", "trunk");
    sb.git(sb.dir, "clone", "-q", up, "clone");
    const clone = path.join(sb.dir, "clone");
    const fork = rev(clone, "HEAD");
    sb.git(clone, "checkout", "-q", "-b", "feature");
    commit(sb, clone, "a.txt", "feature work");
    commit(sb, up, "b.txt", "upstream moves on");
    sb.git(clone, "fetch", "-q", "origin");
    const state = await stateOf(clone);
    expect(state.branch).toBe("feature");
    expect(state.head_sha).toBe(rev(clone, "HEAD"));
    expect(state.base_ref).toBe("refs/remotes/origin/trunk");
    expect(state.base_sha).toBe(fork);
    expect(state.base_sha).toBe(sb.git(clone, "merge-base", "HEAD", "origin/trunk").trim());
    expect(state.remote_fingerprints).toEqual([remoteFingerprint(up)]);
    expect(codes(state)).toEqual([]);
  });

  it("falls back to <remote>/main without origin/HEAD, then to local main", async () => {
    const up = initRepo(sb, "up");
    const repo = initRepo(sb, "repo");
    sb.git(repo, "remote", "add", "origin", up);
    sb.git(repo, "fetch", "-q", "origin");
    sb.git(repo, "checkout", "-q", "-b", "work", "origin/main");
    commit(sb, repo, "w.txt", "w");
    let state = await stateOf(repo);
    expect(state.base_ref).toBe("refs/remotes/origin/main");
    expect(state.base_sha).toBe(rev(up, "HEAD"));

    const solo = initRepo(sb, "solo");
    const base = rev(solo, "HEAD");
    sb.git(solo, "checkout", "-q", "-b", "topic");
    commit(sb, solo, "t.txt", "t");
    state = await stateOf(solo);
    expect(state.base_ref).toBe("refs/heads/main");
    expect(state.base_sha).toBe(base);
    expect(state.remote_fingerprints).toEqual([]);
  });

  it("handles a detached HEAD and packed refs", async () => {
    const repo = initRepo(sb, "repo");
    const first = rev(repo, "HEAD");
    commit(sb, repo, "x.txt", "x");
    sb.git(repo, "pack-refs", "--all", "--prune");
    expect(fs.existsSync(path.join(repo, ".git/refs/heads/main"))).toBe(false);
    let state = await stateOf(repo);
    expect(state.branch).toBe("main");
    expect(state.head_sha).toBe(rev(repo, "HEAD"));
    sb.git(repo, "checkout", "-q", "--detach", first);
    state = await stateOf(repo);
    expect(state.branch).toBeNull();
    expect(state.head_sha).toBe(first);
    expect(state.base_sha).toBe(first);
  });

  it("gives nulls in an unborn repo", async () => {
    const repo = path.join(sb.dir, "unborn");
    fs.mkdirSync(repo);
    sb.git(repo, "init", "-q");
    const state = await stateOf(repo);
    expect(state).toMatchObject({ branch: "main", head_sha: null, base_sha: null, base_ref: null });
    expect(codes(state)).toEqual([]);
  });

  it("reads a linked worktree's refs and remotes from its common dir", async () => {
    const main = initRepo(sb, "main");
    sb.git(main, "remote", "add", "origin", "git@github.com:acme/api.git");
    sb.git(main, "worktree", "add", "-q", "../wt", "-b", "other");
    const wt = path.join(sb.dir, "wt");
    commit(sb, wt, "w.txt", "in worktree");
    const state = await stateOf(wt);
    expect(state.branch).toBe("other");
    expect(state.head_sha).toBe(rev(wt, "HEAD"));
    expect(state.base_ref).toBe("refs/heads/main");
    expect(state.base_sha).toBe(rev(main, "HEAD"));
    expect(state.remote_fingerprints).toEqual([remoteFingerprint("https://github.com/acme/api")]);
  });

  it("reads a submodule's state", async () => {
    const lib = initRepo(sb, "lib");
    const main = initRepo(sb, "main");
    sb.git(main, "submodule", "add", "-q", lib, "deps/lib");
    const state = await stateOf(path.join(main, "deps/lib"));
    expect(state.head_sha).toBe(rev(lib, "HEAD"));
    expect(state.remote_fingerprints).toEqual([remoteFingerprint(lib)]);
  });

  it("gives a null base and a diagnostic when a shallow clone cuts the history", async () => {
    const up = initRepo(sb, "up");
    sb.git(up, "checkout", "-q", "-b", "side");
    commit(sb, up, "side.txt", "side");
    sb.git(up, "checkout", "-q", "main");
    commit(sb, up, "m1.txt", "1");
    commit(sb, up, "m2.txt", "2");
    sb.git(sb.dir, "clone", "-q", "--depth", "1", "--no-single-branch", `file://${up}`, "shallow");
    const clone = path.join(sb.dir, "shallow");
    sb.git(clone, "checkout", "-q", "side");
    const state = await stateOf(clone);
    expect(state.branch).toBe("side");
    expect(state.head_sha).toBe(rev(clone, "HEAD"));
    expect(state.base_sha).toBeNull();
    expect(codes(state)).toEqual(["shallow_history"]);
  });

  it("applies insteadOf from the repo's and the global config before fingerprinting", async () => {
    const repo = initRepo(sb, "repo");
    sb.git(repo, "config", "url.https://github.com/.insteadOf", "gh:");
    sb.git(sb.dir, "config", "--global", "url.git@gitlab.com:.insteadOf", "work:");
    sb.git(repo, "remote", "add", "origin", "gh:acme/api");
    sb.git(repo, "remote", "add", "mirror", "work:team/sub/api.git");
    sb.git(repo, "config", "--add", "remote.mirror.url", "https://gitlab.com/team/sub/api");
    const state = await stateOf(repo);
    expect(state.remotes).toEqual([
      { name: "mirror", urls: ["git@gitlab.com:team/sub/api.git", "https://gitlab.com/team/sub/api"] },
      { name: "origin", urls: ["https://github.com/acme/api"] },
    ]);
    // git itself agrees on the rewritten URLs.
    expect(sb.git(repo, "remote", "get-url", "--all", "mirror").trim().split("\n")).toEqual(state.remotes[0]?.urls);
    expect(state.remote_fingerprints).toEqual([remoteFingerprint("github.com:acme/api"), remoteFingerprint("gitlab.com:team/sub/api")].sort());
  });

  it("reports a garbage HEAD and a malformed config as diagnostics", async () => {
    const repo = initRepo(sb, "repo");
    sb.git(repo, "remote", "add", "origin", "git@github.com:acme/api.git");
    fs.writeFileSync(path.join(repo, ".git/HEAD"), "this is not a ref\n");
    fs.appendFileSync(path.join(repo, ".git/config"), "[broken\n");
    const state = await stateOf(repo);
    expect(state.head_sha).toBeNull();
    expect(state.branch).toBeNull();
    expect(codes(state).sort()).toEqual(["bad_git_config", "bad_head"]);
    // What parsed before the error still counts.
    expect(state.remote_fingerprints).toEqual([remoteFingerprint("https://github.com/acme/api")]);
  });

  it("reads HEAD of a SHA-256 repo and does not crash", async () => {
    const repo = path.join(sb.dir, "sha256");
    fs.mkdirSync(repo);
    sb.git(repo, "init", "-q", "--object-format=sha256");
    sb.write("sha256/a.txt", "a");
    sb.git(repo, "add", "-A");
    sb.git(repo, "commit", "-q", "-m", "a");
    sb.git(repo, "checkout", "-q", "-b", "topic");
    commit(sb, repo, "b.txt", "b");
    const state = await stateOf(repo);
    expect(state.head_sha).toMatch(/^[0-9a-f]{64}$/);
    expect(state.base_sha).toBeNull();
    expect(codes(state)).toEqual(["unsupported_object_format"]);
  });
});
