import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { remoteFingerprint } from "../../src/remotes/fingerprint.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

const analyze = (...args: string[]) => runBuiltCli(["analyze", ...args], { cwd: sb.dir, env: sb.env });

describe("comity analyze", () => {
  it("prints one JSON document with a schema, repos sorted by root, relative paths and stable key order", () => {
    const api = initRepo(sb, "api");
    sb.git(api, "remote", "add", "origin", "git@github.com:acme/api.git");
    initRepo(sb, "api/vendor/nested");
    sb.git(api, "worktree", "add", "-q", "../api-wt", "-b", "feature");
    const r = analyze("--json");
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const doc = JSON.parse(r.stdout) as { schema: string; repos: Array<Record<string, unknown>>; diagnostics: unknown[] };
    expect(doc.schema).toBe("comity.analyze/2");
    expect(Object.keys(doc)).toEqual(["schema", "repos", "collisions", "clone_breaks", "cross_repo", "in_repo", "contract_users", "briefing", "diagnostics"]);
    expect(doc.repos.map((x) => [x["root"], x["kind"], x["parent"], x["branch"]])).toEqual([
      ["api", "main", null, "main"],
      ["api-wt", "worktree", null, "feature"],
      ["api/vendor/nested", "main", "api", "main"],
    ]);
    expect(Object.keys(doc.repos[0] ?? {})).toEqual([
      "root",
      "kind",
      "parent",
      "remote_fingerprints",
      "branch",
      "head_sha",
      "base_sha",
      "base_ref",
      "active_rank",
      "analysed",
      "ahead",
      "behind",
      "worktree_hash",
      "packages",
      "packages_truncated",
      "changes",
      "diagnostics",
    ]);
    const fp = remoteFingerprint("https://github.com/acme/api");
    expect(doc.repos[0]?.["remote_fingerprints"]).toEqual([fp]);
    // The worktree shares the main repo's remotes.
    expect(doc.repos[1]?.["remote_fingerprints"]).toEqual([fp]);
    expect(doc.repos[0]?.["head_sha"]).toBe(sb.git(api, "rev-parse", "HEAD").trim());
    // No absolute paths leak into the default output, and it is byte-stable.
    expect(r.stdout).not.toContain(sb.dir);
    expect(analyze("--json").stdout).toBe(r.stdout);
    expect(r.stdout.endsWith("}\n")).toBe(true);
  });

  it("ranks repos alike in two runs with nothing changed between them (its own snapshots never rank the next run)", () => {
    const a = initRepo(sb, "a");
    const b = initRepo(sb, "b");
    const t = Date.now() - 600_000;
    const at = (root: string, ms: number) => {
      for (const f of ["HEAD", "index", "logs/HEAD"]) fs.utimesSync(path.join(root, ".git", f), new Date(ms), new Date(ms));
    };
    // a's git activity is newer; b has an edit nobody committed or staged, newer still.
    at(a, t + 10_000);
    at(b, t);
    fs.writeFileSync(path.join(b, "README.md"), "# b, edited\n");
    fs.utimesSync(path.join(b, "README.md"), new Date(t + 20_000), new Date(t + 20_000));
    const ranks = () => {
      const r = analyze("--json");
      expect(r.status).toBe(0);
      return (JSON.parse(r.stdout) as { repos: Array<{ root: string; active_rank: number }> }).repos.map((x) => [x.root, x.active_rank]);
    };
    const first = ranks();
    expect(first).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(ranks()).toEqual(first);
  });

  it("prints a readable table for people", () => {
    initRepo(sb, "one");
    initRepo(sb, "two");
    const r = analyze();
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ROOT\s+KIND\s+BRANCH\s+HEAD\s+BASE\s+AHEAD\/BEHIND\s+CHANGES\s+REMOTES\s+DIAGNOSTICS$/);
    expect(lines.slice(1, 3).map((l) => l.split(/\s+/)[0])).toEqual(["one", "two"]);
  });

  it("analyses DIR relative to the current folder and finds the repo above it", () => {
    initRepo(sb, "repo");
    sb.write("repo/src/x.ts", "x");
    const r = runBuiltCli(["analyze", "src", "--json"], { cwd: path.join(sb.dir, "repo"), env: sb.env });
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { repos: Array<{ root: string }> }).repos.map((x) => x.root)).toEqual([".."]);
  });

  it("fails with one clear line and exit 2 on a missing folder or a file", () => {
    const missing = analyze("does-not-exist");
    expect(missing).toMatchObject({ status: 2, stdout: "" });
    expect(missing.stderr).toBe("comity: does-not-exist: no such folder\n");
    sb.write("plain.txt", "x");
    const file = analyze("plain.txt");
    expect(file).toMatchObject({ status: 2, stdout: "", stderr: "comity: plain.txt: not a folder\n" });
  });

  it("reports broken repos per repo; exit 2 only when nothing could be analysed", () => {
    sb.write("broken/.git", "gitdir: ../gone\n");
    initRepo(sb, "garbage-head");
    fs.writeFileSync(path.join(sb.dir, "garbage-head/.git/HEAD"), "\u0000\u0001garbage");
    let r = analyze("--json");
    expect(r.status).toBe(2);
    const doc = JSON.parse(r.stdout) as { repos: Array<{ root: string; diagnostics: Array<{ code: string }> }> };
    expect(doc.repos.map((x) => [x.root, x.diagnostics.map((d) => d.code)])).toEqual([
      ["broken", ["gitdir_missing"]],
      ["garbage-head", ["bad_head"]],
    ]);
    initRepo(sb, "good");
    r = analyze();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("broken/.git: error gitdir_missing");
  });

  it("says each diagnostic once, at the file it is about", () => {
    const repo = initRepo(sb, "app");
    fs.writeFileSync(path.join(repo, "package.json"), "");
    fs.writeFileSync(path.join(repo, "lerna.json"), "\n");
    const lines = analyze(".")
      .stdout.split("\n")
      .filter((l) => l.includes("empty_manifest"));
    expect(lines).toEqual(["app/lerna.json: info empty_manifest: empty: read as saying nothing", "app/package.json: info empty_manifest: empty: read as saying nothing"]);
  });

  it("says so when a folder holds no repo, and exits 0", () => {
    fs.mkdirSync(path.join(sb.dir, "empty"));
    const r = runBuiltCli(["analyze", "."], { cwd: path.join(sb.dir, "empty"), env: sb.env });
    expect(r).toMatchObject({ status: 0, stdout: "no git repositories under .\n", stderr: "" });
  });

  it("rejects unknown commands and options with exit 2", () => {
    expect(runBuiltCli(["frobnicate"], { cwd: sb.dir }).status).toBe(2);
    const bad = analyze("--nope");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^comity analyze: unknown option --nope\nusage: comity analyze/);
    expect(runBuiltCli(["analyze", "--help"], { cwd: sb.dir })).toMatchObject({ status: 0 });
  });
});
