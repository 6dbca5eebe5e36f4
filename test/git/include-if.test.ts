import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeSyncFs } from "../../src/fs/sync-fs.js";
import { gitConfigFiles, loadGitConfig } from "../../src/git/load-git-config.js";
import type { GitConfigEntry } from "../../src/git/parse-git-config.js";
import { wildmatch } from "../../src/git/wildmatch.js";
import { discoverRepos } from "../../src/workspace/discover-repos.js";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

/** The last value of `section[.subsection].key`, as `git config --get` gives it. */
function configGet(entries: readonly GitConfigEntry[], name: string): string | undefined {
  const parts = name.split(".");
  const section = (parts[0] as string).toLowerCase();
  const key = (parts.at(-1) as string).toLowerCase();
  const sub = parts.length > 2 ? parts.slice(1, -1).join(".") : null;
  let v: string | undefined;
  for (const e of entries) if (e.section === section && e.key === key && e.subsection === sub) v = e.value;
  return v;
}

const KEYS = ["user.name", "user.email", "comity.branch", "comity.hasconfig", "remote.origin.url", "comity.rel", "comity.here"];

describe("git config with conditional includes, as git reads it (git itself is the oracle)", () => {
  it("evaluates gitdir:, gitdir/i:, onbranch: and hasconfig:remote.*.url: for repos, worktrees and paths through a symlink", () => {
    const home = sb.configEnv.homeDir;
    const put = (file: string, text: string) => fs.writeFileSync(path.join(home, file), text);
    put("work.inc", "[user]\n\tname = At Work\n");
    put("case.inc", "[user]\n\temail = case@example.com\n");
    put("feature.inc", "[comity]\n\tbranch = feature\n");
    put("has.inc", "[comity]\n\thasconfig = yes\n");
    put("rel.inc", "[comity]\n\trel = yes\n");
    put("here.inc", "[comity]\n\there = yes\n");
    fs.appendFileSync(
      sb.globalConfig,
      [
        '[includeIf "gitdir:~/work/"]\n\tpath = ~/work.inc',
        '[includeIf "gitdir/i:~/CASE/"]\n\tpath = ~/case.inc',
        '[includeIf "onbranch:feature/"]\n\tpath = ~/feature.inc',
        '[includeIf "hasconfig:remote.*.url:https://example.com/**"]\n\tpath = ~/has.inc',
        '[includeIf "gitdir:rel/"]\n\tpath = ~/rel.inc',
        '[includeIf "gitdir:./here/"]\n\tpath = ~/here.inc',
        "",
      ].join("\n"),
    );
    const init = (rel: string, branch = "main"): string => {
      const root = path.join(home, rel);
      fs.mkdirSync(root, { recursive: true });
      execFileSync("git", ["init", "-q", "-b", branch], { cwd: root, env: sb.env });
      fs.writeFileSync(path.join(root, "a.txt"), "a\n");
      execFileSync("git", ["add", "-A"], { cwd: root, env: sb.env });
      execFileSync("git", ["commit", "-q", "-m", "a"], { cwd: root, env: sb.env });
      return root;
    };
    const roots = [init("work/a"), init("case/b"), init("other/c", "feature/x"), init("other/rel/d"), init("here/e"), init("other/f", "feature")];
    execFileSync("git", ["remote", "add", "origin", "https://example.com/org/c.git"], { cwd: path.join(home, "other/c"), env: sb.env });
    execFileSync("git", ["worktree", "add", "-q", path.join(home, "elsewhere/wt"), "-b", "feature/wt"], { cwd: path.join(home, "work/a"), env: sb.env });
    fs.symlinkSync(path.join(home, "work"), path.join(home, "linked"));
    roots.push(path.join(home, "elsewhere/wt"), path.join(home, "linked/a"));
    for (const root of roots) {
      const repo = discoverRepos(root).repos.find((r) => path.resolve(r.root) === path.resolve(fs.realpathSync(root)) || r.root === root);
      if (repo === undefined) throw new Error(`no repo at ${root}`);
      const ours = loadGitConfig(nodeSyncFs, sb.configEnv, gitConfigFiles(sb.configEnv, repo.commonDir, repo.gitDir), { gitDir: repo.gitDir }).entries;
      for (const key of KEYS) {
        const r = spawnSync("git", ["config", "--get", key], { cwd: root, env: sb.env, encoding: "utf8" });
        const git = r.status === 0 ? r.stdout.replace(/\n$/, "") : undefined;
        expect(configGet(ours, key), `${path.relative(home, root)}: ${key}`).toBe(git);
      }
    }
  });

  it("reads the system config where the git on PATH keeps it, as that git says", () => {
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const asGitSays = execFileSync(realGit, ["config", "--system", "--edit"], { env: { PATH: process.env["PATH"], GIT_EDITOR: "echo" }, encoding: "utf8" }).trim();
    const where = (env: Record<string, string | undefined>) => ({ env, homeDir: sb.configEnv.homeDir });
    expect(gitConfigFiles(where({ PATH: process.env["PATH"] }), null, null)[0]).toBe(asGitSays);
    // A git built with another sysconfdir (Homebrew's, say): its own path, not /etc/gitconfig.
    const bin = path.join(sb.dir, "other-git");
    fs.mkdirSync(bin);
    const system = path.join(sb.dir, "other-etc", "gitconfig");
    fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\nif [ "$1 $2 $3" = "config --system --edit" ]; then "$GIT_EDITOR" "${system}"; exit 0; fi\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
    expect(gitConfigFiles(where({ PATH: `${bin}:${process.env["PATH"]}` }), null, null)[0]).toBe(system);
    // Told by the environment, as git is: that file, or none.
    expect(gitConfigFiles(where({ PATH: process.env["PATH"], GIT_CONFIG_SYSTEM: "/x/gitconfig" }), null, null)[0]).toBe("/x/gitconfig");
    expect(gitConfigFiles(where({ PATH: process.env["PATH"], GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/g" }), null, null)[0]).toBe("/g");
  });

  it("matches globs as git's wildmatch does", () => {
    expect(wildmatch("/h/work/**", "/h/work/a/.git", { pathname: true })).toBe(true);
    expect(wildmatch("**/rel/**", "/h/other/rel/d/.git", { pathname: true })).toBe(true);
    expect(wildmatch("/h/*/a/.git", "/h/x/y/a/.git", { pathname: true })).toBe(false);
    expect(wildmatch("/h/*/a/.git", "/h/x/y/a/.git")).toBe(true);
    expect(wildmatch("feature/**", "feature/x/y", { pathname: true })).toBe(true);
    expect(wildmatch("feat?re", "feature")).toBe(true);
    expect(wildmatch("[a-c]x", "bx")).toBe(true);
    expect(wildmatch("[!a-c]x", "bx")).toBe(false);
    expect(wildmatch("/H/WORK/**", "/h/work/a", { pathname: true, caseFold: true })).toBe(true);
    expect(wildmatch("a\\*b", "a*b")).toBe(true);
    expect(wildmatch("a\\*b", "axb")).toBe(false);
    // `**/` is nothing or whole folders; a negated class takes a slash only without WM_PATHNAME, as in git.
    expect(wildmatch("**/", "a", { pathname: true })).toBe(false);
    expect(wildmatch("**/", "a/b/", { pathname: true })).toBe(true);
    expect(wildmatch("b[!a]", "b/")).toBe(true);
    expect(wildmatch("b[!a]", "b/", { pathname: true })).toBe(false);
    // A pattern that makes a backtracking matcher take exponential time is answered like any other (a regular
    // expression took 34 s on the first of these).
    expect(wildmatch(`${"*a".repeat(12)}b`, "a".repeat(40))).toBe(false);
    expect(wildmatch(`${"/*a".repeat(12)}b`, "/a".repeat(40), { pathname: true })).toBe(false);
    expect(wildmatch("*a".repeat(12), "a".repeat(40))).toBe(true);
  });
});
