import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "comity-config") };
});
afterEach(() => sb.cleanup());

describe("comity snapshot", () => {
  it("take then diff prints exactly the changed paths, per repo in a folder of repos, then forgets the snapshot", () => {
    const a = initRepo(sb, "a");
    const b = initRepo(sb, "b");
    initRepo(sb, "a/nested");
    const take = runBuiltCli(["snapshot", "take", "--id", "tool-1"], { cwd: sb.dir, env });
    expect(take.status).toBe(0);
    expect(take.stdout).toMatch(/^a: \d+ paths/m);
    fs.writeFileSync(path.join(a, "new.txt"), "n");
    fs.writeFileSync(path.join(a, "nested/inner.txt"), "i");
    fs.rmSync(path.join(b, "README.md"));
    fs.chmodSync(path.join(a, "README.md"), 0o755);
    const diff = runBuiltCli(["snapshot", "diff", "--id", "tool-1", "--json"], { cwd: sb.dir, env });
    expect(diff.status).toBe(0);
    const doc = JSON.parse(diff.stdout) as { schema: string; repos: Array<{ root: string; changes: unknown[] }> };
    expect(doc.schema).toBe("comity.snapshot-diff/1");
    expect(doc.repos.map((r) => [r.root, r.changes])).toEqual([
      [
        "a",
        [
          { path: "README.md", change: "mode_changed" },
          { path: "new.txt", change: "added" },
        ],
      ],
      ["a/nested", [{ path: "inner.txt", change: "added" }]],
      ["b", [{ path: "README.md", change: "deleted" }]],
    ]);
    const again = runBuiltCli(["snapshot", "diff", "--id", "tool-1"], { cwd: sb.dir, env });
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("no snapshot 'tool-1'");
  });

  it("keeps parallel ids apart and prints short status letters", () => {
    const a = initRepo(sb, "a");
    runBuiltCli(["snapshot", "take", "--id", "one"], { cwd: a, env });
    fs.writeFileSync(path.join(a, "x.txt"), "x");
    runBuiltCli(["snapshot", "take", "--id", "two"], { cwd: a, env });
    fs.writeFileSync(path.join(a, "y.txt"), "y");
    expect(runBuiltCli(["snapshot", "diff", "--id", "two"], { cwd: a, env }).stdout).toBe("A y.txt\n");
    expect(runBuiltCli(["snapshot", "diff", "--id", "one"], { cwd: a, env }).stdout).toBe("A x.txt\nA y.txt\n");
  });

  it("fails clearly outside any repo or without an id", () => {
    fs.mkdirSync(path.join(sb.dir, "plain"));
    const r = runBuiltCli(["snapshot", "take", "--id", "x"], { cwd: path.join(sb.dir, "plain"), env });
    expect(r).toMatchObject({ status: 2, stdout: "" });
    expect(r.stderr).toBe("comity: no git repository in or under .\n");
    expect(runBuiltCli(["snapshot", "take"], { cwd: sb.dir, env }).status).toBe(2);
  });
});

describe("comity shell-paths", () => {
  it("prints the files a command writes, resolved against --cwd", () => {
    const r = runBuiltCli(["shell-paths", "--cwd", "/repo", "--", 'cd sub && make > build.log 2>&1; echo x | tee -a /tmp/t.log > "$OUT"'], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("/repo/sub/build.log\n/tmp/t.log\n");
    expect(r.stderr).toContain("1 target(s) not resolved");
    const json = JSON.parse(runBuiltCli(["shell-paths", "--json", "--cwd", "/r", "--", "echo > a"], { cwd: sb.dir, env }).stdout) as unknown;
    expect(json).toEqual({ paths: ["/r/a"], unresolved: 0, truncated: false, parse_error: false });
  });
});
