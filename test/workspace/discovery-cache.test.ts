import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeSyncFs, type SyncFs } from "../../src/fs/sync-fs.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { createDiscoveryCache } from "../../src/workspace/discovery-cache.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
let cacheDir: string;
beforeEach(() => {
  sb = createSandbox();
  cacheDir = path.join(sb.dir, "..", "cache");
});
afterEach(() => sb.cleanup());

/** Counts the folders a walk reads. */
function countingFs(): SyncFs & { reads: number } {
  const counter = { ...nodeSyncFs, reads: 0 };
  counter.readdirSync = (p, o) => {
    counter.reads++;
    return nodeSyncFs.readdirSync(p, o);
  };
  return counter;
}

/** Puts every folder's times an hour back: nothing is racy for the cache. */
function ageFolders(dir: string): void {
  const t = new Date(Date.now() - 3600_000);
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory() && !e.isSymbolicLink()) walk(path.join(d, e.name));
    fs.utimesSync(d, t, t);
  };
  walk(dir);
}

const view = (root: string) => {
  const d = discoverRepos(root, { walkUp: false });
  return { repos: d.repos, diagnostics: d.diagnostics };
};

describe("discovery cache", () => {
  it("reads no folder again when nothing changed, and finds the same repos", () => {
    const main = initRepo(sb, "ws/main");
    sb.git(main, "worktree", "add", "-q", "../wt", "-b", "feature");
    initRepo(sb, "ws/group/a");
    initRepo(sb, "ws/main/ignored/nested");
    const root = path.join(sb.dir, "ws");
    ageFolders(root);
    const cache = createDiscoveryCache(cacheDir);
    const first = countingFs();
    const a = discoverRepos(root, { walkUp: false, cache, fs: first });
    const second = countingFs();
    const b = discoverRepos(root, { walkUp: false, cache, fs: second });
    expect(first.reads).toBeGreaterThan(5);
    expect(second.reads).toBe(0);
    expect({ repos: b.repos, diagnostics: b.diagnostics }).toEqual({ repos: a.repos, diagnostics: a.diagnostics });
    expect({ repos: a.repos, diagnostics: a.diagnostics }).toEqual(view(root));
  });

  it("reads again only the folders that changed, and sees repos added and removed", () => {
    initRepo(sb, "ws/one");
    initRepo(sb, "ws/deep/x/y/two");
    fs.mkdirSync(path.join(sb.dir, "ws/empty/a/b"), { recursive: true });
    const root = path.join(sb.dir, "ws");
    ageFolders(root);
    const cache = createDiscoveryCache(cacheDir);
    discoverRepos(root, { walkUp: false, cache });
    // A repo appears in an old folder, another goes away, a folder tree appears with a repo inside.
    initRepo(sb, "ws/empty/a/b/three");
    fs.rmSync(path.join(sb.dir, "ws/deep/x/y/two"), { recursive: true });
    initRepo(sb, "ws/new/tree/four");
    const counting = countingFs();
    const after = discoverRepos(root, { walkUp: false, cache, fs: counting });
    expect(after.repos.map((r) => path.relative(root, r.root))).toEqual(["empty/a/b/three", "new/tree/four", "one"]);
    expect({ repos: after.repos, diagnostics: after.diagnostics }).toEqual(view(root));
    // Not the whole tree: the untouched folders (one's inside, deep/x) were not read.
    const all = countingFs();
    discoverRepos(root, { walkUp: false, fs: all });
    expect(counting.reads).toBeLessThan(all.reads);
  });

  it("does not trust a folder changed within the racy margin of the cached walk", () => {
    initRepo(sb, "ws/one");
    const root = path.join(sb.dir, "ws");
    const cache = createDiscoveryCache(cacheDir);
    // Folders written just now, walk recorded just now: they may still change within one timestamp tick.
    discoverRepos(root, { walkUp: false, cache });
    const counting = countingFs();
    discoverRepos(root, { walkUp: false, cache, fs: counting });
    expect(counting.reads).toBeGreaterThan(0);
  });

  it("treats a corrupt or foreign cache file as a miss", () => {
    initRepo(sb, "ws/one");
    const root = path.join(sb.dir, "ws");
    ageFolders(root);
    const cache = createDiscoveryCache(cacheDir);
    discoverRepos(root, { walkUp: false, cache });
    for (const f of fs.readdirSync(cacheDir)) fs.writeFileSync(path.join(cacheDir, f), "{not json");
    const counting = countingFs();
    const d = discoverRepos(root, { walkUp: false, cache, fs: counting });
    expect(counting.reads).toBeGreaterThan(0);
    expect(d.repos.map((r) => path.relative(root, r.root))).toEqual(["one"]);
  });

  it("always equals a walk without the cache, whatever changes between runs (property)", () => {
    const NAMES = ["a", "b", "a/c", "b/d", "a/c/e", "node_modules", "a/node_modules"];
    type Op = { op: "mkdir" | "rm" | "init" | "gitfile"; at: string };
    const opArb: fc.Arbitrary<Op> = fc.record({ op: fc.constantFrom("mkdir", "rm", "init", "gitfile"), at: fc.constantFrom(...NAMES) });
    let cachedReads = 0;
    let fullReads = 0;
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 5 }), fc.array(opArb, { minLength: 1, maxLength: 5 }), (setup, ops) => {
        const root = fs.mkdtempSync(path.join(sb.dir, "p-"));
        const cache = createDiscoveryCache(fs.mkdtempSync(path.join(sb.dir, "c-")));
        const apply = (o: Op): void => {
          const p = path.join(root, o.at);
          try {
            if (o.op === "mkdir") fs.mkdirSync(p, { recursive: true });
            else if (o.op === "rm") fs.rmSync(p, { recursive: true, force: true });
            else if (o.op === "init") {
              fs.mkdirSync(path.join(p, ".git", "objects"), { recursive: true });
              fs.writeFileSync(path.join(p, ".git", "HEAD"), "ref: refs/heads/main\n");
            } else {
              fs.mkdirSync(p, { recursive: true });
              fs.writeFileSync(path.join(p, ".git"), "gitdir: /nowhere\n");
            }
          } catch {
            // blocked by what is there
          }
        };
        for (const o of setup) apply(o);
        ageFolders(root);
        discoverRepos(root, { walkUp: false, cache });
        for (const o of ops) apply(o);
        const counting = countingFs();
        const cached = discoverRepos(root, { walkUp: false, cache, fs: counting });
        const full = countingFs();
        const walked = discoverRepos(root, { walkUp: false, fs: full });
        cachedReads += counting.reads;
        fullReads += full.reads;
        expect({ repos: cached.repos, diagnostics: cached.diagnostics }).toEqual({ repos: walked.repos, diagnostics: walked.diagnostics });
      }),
      { numRuns: 60 },
    );
    // The runs did take folders from the cache (else this would prove nothing about it).
    expect(cachedReads).toBeLessThan(fullReads);
  });
});
