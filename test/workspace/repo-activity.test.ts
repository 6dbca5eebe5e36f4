import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildLocalBriefing } from "../../src/briefing/build-local-briefing.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { rankByActivity, repoActivityMs } from "../../src/workspace/repo-activity.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe("repo activity", () => {
  it("ranks repos by their last git activity, in the order they were touched, ties by root", () => {
    const names = ["alpha", "bravo", "charlie", "delta", "echo"];
    for (const n of names) initRepo(sb, n);
    const base = Date.now() - 100_000;
    // Touch in a known order: echo, alpha, delta, bravo, charlie (most recent last).
    ["echo", "alpha", "delta", "bravo", "charlie"].forEach((n, i) => {
      const t = new Date(base + i * 1000);
      for (const f of ["HEAD", "index", "logs/HEAD"]) fs.utimesSync(path.join(sb.dir, n, ".git", f), t, t);
    });
    const repos = discoverRepos(sb.dir).repos;
    const ranked = rankByActivity(repos.map((r) => ({ root: path.basename(r.root), activityMs: repoActivityMs(r) })));
    expect(ranked.map((r) => r.root)).toEqual(["charlie", "bravo", "delta", "alpha", "echo"]);
    expect(
      rankByActivity([
        { root: "b", activityMs: 5 },
        { root: "a", activityMs: 5 },
      ]).map((r) => r.root),
    ).toEqual(["a", "b"]);
  });

  it("counts the last working-tree change an agent's command made, as its hooks noted it", () => {
    const r = initRepo(sb, "r");
    const repo = discoverRepos(r).repos[0];
    if (repo === undefined) throw new Error("no repo");
    const git = repoActivityMs(repo);
    expect(repoActivityMs(repo, { agentActivityMs: git + 60_000 })).toBe(git + 60_000);
    expect(repoActivityMs(repo, { agentActivityMs: git - 60_000 })).toBe(git);
    expect(repoActivityMs(repo, { agentActivityMs: null })).toBe(git);
  });
});

describe("buildLocalBriefing", () => {
  it("writes branch, distance to base, changes, symbols (breaking first) and packages touched", () => {
    const text = buildLocalBriefing({
      branch: "feature/login",
      head_sha: "a".repeat(40),
      base_ref: "refs/remotes/origin/main",
      ahead: 3,
      behind: 1,
      packages: [
        { name: "root", path: ".", ecosystem: "npm", version: null },
        { name: "@acme/api", path: "packages/api", ecosystem: "npm", version: "1.0.0" },
        { name: "@acme/web", path: "packages/web", ecosystem: "npm", version: "1.0.0" },
      ],
      changes: [
        {
          path: "packages/api/src/a.ts",
          change: "modified",
          symbols: [
            { qualified_name: "helper", kind: "function", change: "body_changed", renamed_from: null, exported: true, compatibility: "internal", reasons: [] },
            {
              qualified_name: "added",
              kind: "function",
              change: "added",
              renamed_from: null,
              exported: true,
              compatibility: "compatible",
              reasons: [{ code: "EXPORT_ADDED", verdict: "compatible", conservative: false, message: "" }],
            },
            {
              qualified_name: "parseConfig",
              kind: "function",
              change: "signature_changed",
              renamed_from: null,
              exported: true,
              compatibility: "breaking",
              reasons: [{ code: "PARAMETER_ADDED_REQUIRED", verdict: "breaking", conservative: false, message: "" }],
            },
          ],
        },
        { path: "README.md", change: "added" },
      ],
    });
    expect(text).toBe(
      [
        "- Working on feature/login, 3 commits ahead of origin/main, 1 behind",
        "- 2 uncommitted changes: packages/api/src/a.ts (M), README.md (A)",
        "- Breaking: function parseConfig in packages/api/src/a.ts (PARAMETER_ADDED_REQUIRED)",
        "- Compatible: function added in packages/api/src/a.ts (EXPORT_ADDED)",
        "- 1 internal symbol change (bodies, private or unexported code)",
        "- Packages touched: @acme/api (packages/api)",
        "",
      ].join("\n"),
    );
  });
});
