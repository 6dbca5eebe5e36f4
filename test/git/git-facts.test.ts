import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitFactsFile } from "../../src/git/git-facts-file.js";
import { systemGitConfig } from "../../src/git/load-git-config.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A `git` that says where its system config is, and counts how often it is asked. */
function fakeGit(answer: string): { bin: string; asked: () => number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-fake-git-"));
  dirs.push(dir);
  const log = path.join(dir, "asked");
  fs.writeFileSync(path.join(dir, "git"), `#!/bin/sh\necho x >> ${log}\necho ${answer}\n`, { mode: 0o755 });
  return {
    bin: dir,
    asked: () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l !== "").length
        : 0,
  };
}

describe("what git says about itself, kept across processes", () => {
  it("asks a git once; another process with the same file does not ask it again; a changed binary is asked anew", () => {
    const git = fakeGit("/opt/git/etc/gitconfig");
    const file = path.join(git.bin, "facts.json");
    // (a PATH of its own each time: the process's own memo is by PATH, the file's by the binary)
    const where = (n: number) => ({ env: { PATH: `${git.bin}${path.delimiter}/nonexistent-${n}` }, homeDir: git.bin, gitFacts: gitFactsFile(file) });
    expect(systemGitConfig(where(1))).toBe("/opt/git/etc/gitconfig");
    expect(git.asked()).toBe(1);
    expect(systemGitConfig(where(2))).toBe("/opt/git/etc/gitconfig");
    expect(git.asked()).toBe(1);
    // Rebuilt or upgraded: its size changes, and it is asked again.
    fs.appendFileSync(path.join(git.bin, "git"), "# rebuilt\n");
    expect(systemGitConfig(where(3))).toBe("/opt/git/etc/gitconfig");
    expect(git.asked()).toBe(2);
  });

  it("a file that cannot be read is no cache, and a guess is never kept", () => {
    const git = fakeGit("not-a-path");
    const file = path.join(git.bin, "facts.json");
    fs.writeFileSync(file, "{broken");
    const where = (n: number) => ({ env: { PATH: `${git.bin}${path.delimiter}/nonexistent-g${n}` }, homeDir: git.bin, gitFacts: gitFactsFile(file) });
    expect(systemGitConfig(where(1))).toBe("/etc/gitconfig");
    expect(systemGitConfig(where(2))).toBe("/etc/gitconfig");
    expect(git.asked()).toBe(2);
  });
});
