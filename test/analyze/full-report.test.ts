import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { expectAnalyzeSchema } from "../helpers/analyze-schema.js";
import { runBuiltCli } from "../helpers/run-cli.js";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "config") };
});
afterEach(() => sb.cleanup());

/** Sets a repo's activity: its HEAD, index and reflog get this mtime. */
function touchRepo(repoRoot: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  for (const f of ["HEAD", "index", "logs/HEAD"]) {
    const file = path.join(repoRoot, ".git", f);
    if (fs.existsSync(file)) fs.utimesSync(file, t, t);
  }
}

describe("comity analyze: the full report", () => {
  it("reports 12 repos, analyses and briefs the 8 most active, with changed symbols and their compatibility", () => {
    const roots: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = initRepo(sb, `repo-${String(i).padStart(2, "0")}`);
      sb.git(r, "remote", "add", "origin", `git@github.com:acme/repo-${i}.git`);
      if (i % 2 === 0) {
        commit(sb, r, "src/config.ts", "export function parseConfig(path: string): object {\n  return {};\n}\n");
        fs.writeFileSync(path.join(r, "src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return { strict };\n}\nexport const VERSION = 2;\n");
      } else {
        commit(sb, r, "lib/util.py", "def helper(a, b=1):\n    return a + b\n");
        fs.writeFileSync(path.join(r, "lib/util.py"), "def helper(a, b=1, *, c):\n    return a + b + c\n\ndef _private():\n    pass\n");
      }
      fs.writeFileSync(path.join(r, "package.json"), JSON.stringify({ name: `pkg-${i}`, version: "1.0.0" }));
      roots.push(r);
    }
    // Activity: repo-11 most recent, repo-00 least.
    roots.forEach((r, i) => {
      touchRepo(r, 1000 - i * 60);
    });

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      repos: Array<{
        root: string;
        analysed: boolean;
        active_rank: number;
        changes: Array<{ path: string; symbols: Array<{ qualified_name: string; compatibility: string; reasons: Array<{ code: string }> }> | null }>;
        packages: Array<{ name: string }>;
        worktree_hash: string | null;
      }>;
      briefing: string;
    };
    expectAnalyzeSchema(doc);

    expect(doc.repos).toHaveLength(12);
    expect(
      doc.repos
        .filter((x) => x.analysed)
        .map((x) => x.root)
        .sort(),
    ).toEqual(["repo-04", "repo-05", "repo-06", "repo-07", "repo-08", "repo-09", "repo-10", "repo-11"]);
    expect(doc.repos.find((x) => x.root === "repo-11")?.active_rank).toBe(1);
    const ts = doc.repos.find((x) => x.root === "repo-10");
    expect(ts?.packages.map((p) => p.name)).toEqual(["pkg-10"]);
    expect(ts?.worktree_hash).toMatch(/^[0-9a-f]{64}$/);
    const config = ts?.changes.find((c) => c.path === "src/config.ts");
    expect(config?.symbols?.map((s) => [s.qualified_name, s.compatibility, s.reasons[0]?.code])).toEqual([
      ["VERSION", "compatible", "EXPORT_ADDED"],
      ["parseConfig", "breaking", "PARAMETER_ADDED_REQUIRED"],
    ]);
    const py = doc.repos.find((x) => x.root === "repo-11")?.changes.find((c) => c.path === "lib/util.py");
    expect(py?.symbols?.map((s) => [s.qualified_name, s.compatibility, s.reasons[0]?.code])).toEqual([
      ["_private", "internal", undefined],
      ["helper", "breaking", "PARAMETER_ADDED_REQUIRED"],
    ]);
    // The briefing names exactly the 8 most active, most active first, and leads with breaking changes.
    const headings = doc.briefing.split("\n").filter((l) => l.startsWith("## "));
    expect(headings).toEqual(["## repo-11", "## repo-10", "## repo-09", "## repo-08", "## repo-07", "## repo-06", "## repo-05", "## repo-04"]);
    expect(doc.briefing).toContain("- Breaking: function parseConfig in src/config.ts (PARAMETER_ADDED_REQUIRED)");
    expect(doc.briefing.length).toBeLessThanOrEqual(6000);

    const human = runBuiltCli(["analyze"], { cwd: sb.dir, env });
    expect(human.stdout).toContain("breaking    signature_changed function    parseConfig");
    expect(human.stdout).toMatch(/\nBriefing\n(.+\n)*## repo-11\n/);
    expect(human.stdout).not.toContain("\u001b["); // no colour when not a terminal
    expect(human.stderr).toBe(""); // no progress when stderr is not a terminal
  });

  it("--since compares with another commit, --no-symbols skips symbols, --max-repos limits the depth", () => {
    const r = initRepo(sb, "repo");
    const first = sb.git(r, "rev-parse", "HEAD").trim();
    commit(sb, r, "a.ts", "export function f() {}\n");
    const since = JSON.parse(runBuiltCli(["analyze", "--json", "--since", first], { cwd: r, env }).stdout) as { repos: Array<{ changes: Array<{ path: string; change: string }> }> };
    expect(since.repos[0]?.changes.map((c) => [c.path, c.change])).toEqual([["a.ts", "added"]]);
    const head = JSON.parse(runBuiltCli(["analyze", "--json"], { cwd: r, env }).stdout) as { repos: Array<{ changes: unknown[] }> };
    expect(head.repos[0]?.changes).toEqual([]);
    fs.writeFileSync(path.join(r, "a.ts"), "export function f(x: number) {}\n");
    const noSymbols = JSON.parse(runBuiltCli(["analyze", "--json", "--no-symbols"], { cwd: r, env }).stdout) as { repos: Array<{ changes: Array<{ symbols: unknown }> }> };
    expect(noSymbols.repos[0]?.changes[0]?.symbols).toBeNull();
    const none = JSON.parse(runBuiltCli(["analyze", "--json", "--max-repos", "0"], { cwd: r, env }).stdout) as { repos: Array<{ analysed: boolean }>; briefing: string };
    expect(none.repos[0]?.analysed).toBe(false);
    expect(none.briefing).toBe("");
    const bad = JSON.parse(runBuiltCli(["analyze", "--json", "--since", "no-such-ref"], { cwd: r, env }).stdout) as { repos: Array<{ diagnostics: Array<{ code: string }> }> };
    expect(bad.repos[0]?.diagnostics.map((d) => d.code)).toContain("bad_since");
  });
});
