import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { groupClones } from "../../src/analyze/clone-collisions.js";
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

const CONFIG = 'export function parseConfig(path: string): object {\n  return { path };\n}\n\nexport function defaultPath(): string {\n  return "comity.json";\n}\n';

interface Doc {
  collisions: Array<{
    repos: string[];
    path: string;
    symbols: string[];
    sides: Array<{ root: string; branch: string | null; since: string | null; change: string; symbols: Array<{ qualified_name: string; change: string; compatibility: string }> | null }>;
  }>;
  briefing: string;
}

describe("comity analyze: collisions between clones and worktrees", () => {
  it("three worktrees of one repo, two editing the same function (one uncommitted, one committed on its branch): the collision with both sides named", () => {
    const main = initRepo(sb, "app");
    const base = commit(sb, main, "src/config.ts", CONFIG);
    sb.git(main, "worktree", "add", "-q", "-b", "feat-a", path.join(sb.dir, "wt-a"));
    sb.git(main, "worktree", "add", "-q", "-b", "feat-b", path.join(sb.dir, "wt-b"));
    // wt-a: uncommitted, a required parameter (breaking).
    fs.writeFileSync(path.join(sb.dir, "wt-a/src/config.ts"), CONFIG.replace("parseConfig(path: string)", "parseConfig(path: string, strict: boolean)"));
    // wt-b: committed on its branch, an optional parameter (compatible), and an unrelated file.
    commit(sb, path.join(sb.dir, "wt-b"), "src/config.ts", CONFIG.replace("parseConfig(path: string)", "parseConfig(path: string, strict?: boolean)"));
    commit(sb, path.join(sb.dir, "wt-b"), "src/other.ts", "export const x = 1;\n");
    // app (main) changes another function of the same file: the file collides three ways, the function two.
    fs.writeFileSync(path.join(main, "src/config.ts"), CONFIG.replace('"comity.json"', '"comity.jsonc"'));

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expectAnalyzeSchema(doc);

    expect(doc.collisions).toEqual([
      {
        repos: ["app", "wt-a", "wt-b"],
        path: "src/config.ts",
        symbols: ["parseConfig"],
        sides: [
          { root: "app", branch: "main", since: base, change: "modified", symbols: [{ qualified_name: "defaultPath", change: "body_changed", compatibility: "internal" }] },
          { root: "wt-a", branch: "feat-a", since: base, change: "modified", symbols: [{ qualified_name: "parseConfig", change: "signature_changed", compatibility: "breaking" }] },
          { root: "wt-b", branch: "feat-b", since: base, change: "modified", symbols: [{ qualified_name: "parseConfig", change: "signature_changed", compatibility: "compatible" }] },
        ],
      },
    ]);
    // The briefing opens with it, both sides of the function named with their compatibility.
    expect(doc.briefing.split("\n").slice(0, 2)).toEqual([
      "Changed in more than one clone or worktree of the same repo:",
      "- parseConfig in src/config.ts, changed in 3 clones: app (main): modified / wt-a (feat-a): parseConfig signature_changed, breaking / wt-b (feat-b): parseConfig signature_changed, compatible",
    ]);
    const human = runBuiltCli(["analyze"], { cwd: sb.dir, env });
    expect(human.stdout).toContain("Changed in more than one clone or worktree of the same repo:");
  });

  it("clones of one remote in separate folders collide too; unrelated repos and a lone repo do not", () => {
    const origin = initRepo(sb, "origin-src");
    commit(sb, origin, "src/config.ts", CONFIG);
    for (const name of ["one", "two"]) {
      sb.git(sb.dir, "clone", "-q", origin, name);
      sb.git(path.join(sb.dir, name), "remote", "set-url", "origin", "git@github.com:acme/app.git");
    }
    const lone = initRepo(sb, "lone");
    commit(sb, lone, "src/config.ts", CONFIG);
    for (const name of ["one", "two", "lone"]) fs.writeFileSync(path.join(sb.dir, name, "src/config.ts"), CONFIG.replace("parseConfig(path: string)", `parseConfig(path: string, ${name}: number)`));
    fs.rmSync(origin, { recursive: true });
    const doc = JSON.parse(runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env }).stdout) as Doc;
    expect(doc.collisions.map((c) => [c.repos, c.path, c.symbols, c.sides.map((s) => s.symbols?.[0]?.compatibility)])).toEqual([
      [["one", "two"], "src/config.ts", ["parseConfig"], ["breaking", "breaking"]],
    ]);
  });

  it("groups by shared remote fingerprint or git folder, transitively", () => {
    const groups = groupClones([
      { root: "/a", commonDir: "/a/.git", fingerprints: ["f1"] },
      { root: "/b", commonDir: "/b/.git", fingerprints: ["f2"] },
      { root: "/c", commonDir: "/a/.git", fingerprints: [] },
      { root: "/d", commonDir: "/d/.git", fingerprints: ["f2", "f1"] },
      { root: "/e", commonDir: "/e/.git", fingerprints: ["f3"] },
    ]);
    expect(groups).toEqual([[0, 1, 2, 3]]);
  });

  it("counts the hook configs comity init writes as nobody's work: no collision, no change, no briefing line", () => {
    const main = initRepo(sb, "app");
    commit(sb, main, "src/config.ts", CONFIG);
    sb.git(main, "worktree", "add", "-q", "-b", "feat", path.join(sb.dir, "app-feat"));
    // As `comity init --each` leaves a folder of repos: each working tree has its own, uncommitted.
    const init = runBuiltCli(["init", "--each", "--tool", "claude_code", "--tool", "codex"], { cwd: sb.dir, env });
    expect(init.status, init.stderr).toBe(0);
    expect(fs.existsSync(path.join(sb.dir, "app-feat/.claude/settings.json"))).toBe(true);
    const doc = JSON.parse(runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env }).stdout) as Doc & { repos: Array<{ root: string; changes: Array<{ path: string }> }> };
    expect(doc.collisions).toEqual([]);
    expect(doc.repos.flatMap((r) => r.changes.map((c) => c.path))).toEqual([]);
    expect(doc.briefing).not.toMatch(/settings\.json|hooks\.json/);
  });

  it("a worktree's changed file that imports a function the other worktree broke: the clash the hooks catch, in analyze too", () => {
    const main = initRepo(sb, "app");
    commit(sb, main, "src/config.ts", CONFIG);
    commit(sb, main, "src/main.ts", 'import { defaultPath } from "./config.js";\nexport const p = defaultPath();\n');
    commit(sb, main, "app/settings.py", "def load(path):\n    return path\n");
    sb.git(main, "worktree", "add", "-q", "-b", "feat-a", path.join(sb.dir, "wt-a"));
    sb.git(main, "worktree", "add", "-q", "-b", "feat-b", path.join(sb.dir, "wt-b"));
    // wt-a breaks parseConfig (uncommitted) and Python's load (committed on its branch).
    fs.writeFileSync(path.join(sb.dir, "wt-a/src/config.ts"), CONFIG.replace("parseConfig(path: string)", "parseConfig(path: string, strict: boolean)"));
    commit(sb, path.join(sb.dir, "wt-a"), "app/settings.py", "def load(path, strict):\n    return path\n");
    // wt-b's own work calls both; its untouched main.ts imports only defaultPath and is nobody's change.
    fs.writeFileSync(path.join(sb.dir, "wt-b/src/cli.ts"), '// see import("./config.js") for the rest\nimport { parseConfig } from "./config.js";\nexport const c = parseConfig("x");\n');
    commit(sb, path.join(sb.dir, "wt-b"), "app/run.py", "from app.settings import load\nload('x')\n");
    fs.writeFileSync(path.join(sb.dir, "wt-b/src/unrelated.ts"), 'import "./config.js";\n');

    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc & { clone_breaks: unknown[] };
    expectAnalyzeSchema(doc);
    expect(doc.collisions).toEqual([]);
    expect(doc.clone_breaks).toEqual([
      {
        repos: ["app", "wt-a", "wt-b"],
        author: "wt-a",
        author_branch: "feat-a",
        path: "app/settings.py",
        qualified_name: "load",
        change: "signature_changed",
        reasons: ["PARAMETER_ADDED_REQUIRED"],
        user: "wt-b",
        user_branch: "feat-b",
        files: ["app/run.py"],
      },
      {
        repos: ["app", "wt-a", "wt-b"],
        author: "wt-a",
        author_branch: "feat-a",
        path: "src/config.ts",
        qualified_name: "parseConfig",
        change: "signature_changed",
        reasons: ["PARAMETER_ADDED_REQUIRED"],
        user: "wt-b",
        user_branch: "feat-b",
        files: ["src/cli.ts"],
      },
    ]);
    expect(doc.briefing.split("\n").slice(0, 3)).toEqual([
      "Breaking changes in one clone or worktree that another one's changes use:",
      "- `load` in `app/settings.py` (wt-a (feat-a): signature_changed: PARAMETER_ADDED_REQUIRED) breaks the changes of wt-b (feat-b), which use it in `app/run.py`",
      "- `parseConfig` in `src/config.ts` (wt-a (feat-a): signature_changed: PARAMETER_ADDED_REQUIRED) breaks the changes of wt-b (feat-b), which use it in `src/cli.ts`",
    ]);
  });
});
