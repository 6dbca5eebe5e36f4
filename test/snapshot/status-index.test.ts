import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeWorktreeFs } from "../../src/snapshot/content-hasher.js";
import { readGitStatusView, readGitStatusViewAsync } from "../../src/snapshot/git-status-view.js";
import { privateStatusIndex } from "../../src/snapshot/status-index.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt } from "../helpers/snapshot-helpers.js";

describe("privateStatusIndex", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = createSandbox();
  });
  afterEach(() => sb.cleanup());
  const A = "a".repeat(40);
  const B = "b".repeat(40);

  it("copies the index once per checksum, and removes the copies of older indexes", () => {
    const dir = path.join(sb.dir, "cache");
    const first = privateStatusIndex({ dir }, "/repo/.git", Buffer.from("index one"), A);
    expect(first).not.toBeNull();
    expect(path.basename(first as string)).toBe(`${A}.index`);
    expect(fs.readFileSync(first as string, "utf8")).toBe("index one");
    // git rewrites the copy (refreshed stats, untracked cache): the same checksum keeps it.
    fs.writeFileSync(first as string, "refreshed by git");
    expect(privateStatusIndex({ dir }, "/repo/.git", Buffer.from("index one"), A)).toBe(first);
    expect(fs.readFileSync(first as string, "utf8")).toBe("refreshed by git");
    fs.writeFileSync(`${first as string}.lock`, "left by a killed git");
    const second = privateStatusIndex({ dir }, "/repo/.git", Buffer.from("index two"), B);
    expect(fs.readdirSync(path.dirname(second as string))).toEqual([`${B}.index`]);
    // Another repo has its own folder.
    const other = privateStatusIndex({ dir }, "/other/.git", Buffer.from("x"), A);
    expect(path.dirname(other as string)).not.toBe(path.dirname(second as string));
  });

  it("gives null (plain git status) for a missing checksum or a folder it cannot write", () => {
    expect(privateStatusIndex({ dir: path.join(sb.dir, "c") }, "/r/.git", Buffer.from("x"), "")).toBeNull();
    fs.writeFileSync(path.join(sb.dir, "file"), "not a folder");
    expect(privateStatusIndex({ dir: path.join(sb.dir, "file") }, "/r/.git", Buffer.from("x"), A)).toBeNull();
  });
});

describe("readGitStatusView on a private copy of the index", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = createSandbox();
  });
  afterEach(() => sb.cleanup());

  const sorted = (records: ReadonlyArray<{ kind: string; path: string }>) => records.map((r) => `${r.kind} ${r.path}`).sort();

  it("lists what plain git status lists (untracked folders expanded, ignored files left out), and never writes the user's index", () => {
    const root = initRepo(sb, "r");
    fs.writeFileSync(path.join(root, ".gitignore"), "*.log\n");
    fs.mkdirSync(path.join(root, "src"));
    fs.writeFileSync(path.join(root, "src/a.ts"), "a");
    sb.git(root, "add", "-A");
    sb.git(root, "commit", "-q", "-m", "files");
    fs.writeFileSync(path.join(root, "src/a.ts"), "changed");
    fs.writeFileSync(path.join(root, "new.txt"), "untracked");
    fs.mkdirSync(path.join(root, "fresh/deeper"), { recursive: true });
    fs.writeFileSync(path.join(root, "fresh/one.txt"), "1");
    fs.writeFileSync(path.join(root, "fresh/deeper/two.txt"), "2");
    fs.writeFileSync(path.join(root, "fresh/skip.log"), "ignored");
    fs.mkdirSync(path.join(root, "logs"));
    fs.writeFileSync(path.join(root, "logs/only.log"), "ignored: the folder is not listed");
    fs.mkdirSync(path.join(root, "tools"));
    initRepo(sb, "r/tools/nested");
    initRepo(sb, "r/vendored");
    const indexFile = path.join(root, ".git/index");
    const indexBefore = fs.readFileSync(indexFile);
    const statBefore = fs.statSync(indexFile);

    const repo = repoAt(root);
    const dir = path.join(sb.dir, "status-index");
    const plain = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv);
    const cached = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 });
    const again = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 });
    if ("walk" in plain || "walk" in cached || "walk" in again) throw new Error("expected git status views");
    expect(sorted(plain.records)).toEqual(["changed src/a.ts", "untracked fresh/deeper/two.txt", "untracked fresh/one.txt", "untracked new.txt", "untracked tools/nested/", "untracked vendored/"]);
    expect(sorted(cached.records)).toEqual(sorted(plain.records));
    expect(sorted(again.records)).toEqual(sorted(plain.records));
    // git wrote its untracked cache into the copy, and never touched the user's index.
    const copies = fs.readdirSync(dir).flatMap((d) =>
      fs
        .readdirSync(path.join(dir, d))
        .filter((f) => f.endsWith(".index"))
        .map((f) => path.join(dir, d, f)),
    );
    expect(copies).toHaveLength(1);
    expect(fs.readFileSync(copies[0] as string).includes(Buffer.from("UNTR"))).toBe(true);
    expect(fs.readFileSync(indexFile).equals(indexBefore)).toBe(true);
    expect(fs.statSync(indexFile).mtimeMs).toBe(statBefore.mtimeMs);
    expect(fs.existsSync(`${indexFile}.lock`)).toBe(false);
  });

  it("follows the user's index: after staging, the copy is of the new index", () => {
    const root = initRepo(sb, "r");
    const repo = repoAt(root);
    const dir = path.join(sb.dir, "status-index");
    fs.writeFileSync(path.join(root, "b.txt"), "b");
    const first = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 });
    if ("walk" in first) throw new Error("expected a view");
    expect(sorted(first.records)).toEqual(["untracked b.txt"]);
    sb.git(root, "add", "b.txt");
    const second = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 });
    if ("walk" in second) throw new Error("expected a view");
    // Staged, not untracked: the copy holds the new index's entries, and the old copy is gone.
    expect(sorted(second.records)).toEqual(["changed b.txt"]);
    const names = fs.readdirSync(dir).flatMap((d) => fs.readdirSync(path.join(dir, d)));
    expect(names.sort()).toEqual([`${second.facts.checksum}.index`, "facts.json"].sort());
  });

  it("remembers the index's facts: a view without index bytes does not read an unchanged index again", () => {
    const root = initRepo(sb, "r");
    const repo = repoAt(root);
    const dir = path.join(sb.dir, "status-index");
    fs.writeFileSync(path.join(root, "b.txt"), "b");
    const first = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 }, { withIndex: false });
    const second = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 }, { withIndex: false });
    if ("walk" in first || "walk" in second) throw new Error("expected views");
    expect(first.index.length).toBeGreaterThan(0); // read and scanned once
    expect(second.index.length).toBe(0); // from the memo
    expect(second.facts).toEqual(first.facts);
    expect(second.records).toEqual(first.records);
    // A snapshot asks for the bytes: it always gets them.
    const withBytes = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 });
    if ("walk" in withBytes) throw new Error("expected a view");
    expect(withBytes.index.length).toBeGreaterThan(0);
    // The index changes (staged): its facts are those of the new index.
    sb.git(root, "add", "b.txt");
    const third = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, { dir, minEntries: 0 }, { withIndex: false });
    if ("walk" in third) throw new Error("expected a view");
    expect(third.facts.checksum).not.toBe(first.facts.checksum);
    expect(third.facts.files).toBe(first.facts.files + 1);
    expect(third.records.map((r) => `${r.kind} ${r.path}`)).toEqual(["changed b.txt"]);
  });

  it("makes no copy for an index below minEntries", () => {
    const root = initRepo(sb, "r");
    const dir = path.join(sb.dir, "status-index");
    const view = readGitStatusView(repoAt(root), nodeWorktreeFs, sb.configEnv, { dir });
    expect("walk" in view).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  });
});

describe("readGitStatusViewAsync (git in the background)", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = createSandbox();
  });
  afterEach(() => sb.cleanup());

  it("gives what readGitStatusView gives, on the repo's index and on a private copy", async () => {
    const root = initRepo(sb, "r");
    fs.writeFileSync(path.join(root, "README.md"), "changed");
    fs.mkdirSync(path.join(root, "fresh"));
    fs.writeFileSync(path.join(root, "fresh/one.txt"), "1");
    fs.writeFileSync(path.join(root, "top.txt"), "t");
    const repo = repoAt(root);
    const dir = path.join(sb.dir, "status-index");
    const strip = (v: unknown) => JSON.stringify(v, (k, x: unknown) => (k === "index" ? undefined : x));
    for (const statusIndex of [null, { dir, minEntries: 0 }]) {
      const sync = readGitStatusView(repo, nodeWorktreeFs, sb.configEnv, statusIndex);
      const background = await readGitStatusViewAsync(repo, nodeWorktreeFs, sb.configEnv, statusIndex);
      if ("walk" in sync || "walk" in background) throw new Error("expected git status views");
      expect(strip(background)).toBe(strip(sync));
      expect(background.records.map((r) => r.path).sort()).toEqual(["README.md", "fresh/one.txt", "top.txt"]);
    }
  });
});
