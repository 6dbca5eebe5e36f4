import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseGitConfig } from "../../src/git/parse-git-config.js";

describe("parseGitConfig", () => {
  it("reads sections, subsections, quoting, escapes, comments and continuations", () => {
    const text = [
      "# comment",
      "[core]",
      "\tbare = false ; trailing comment",
      "\tautocrlf",
      '[remote "Origin"]',
      '\turl = "git@github.com:a/b.git" # why not',
      "\tfetch = +refs/heads/*:refs/remotes/Origin/*",
      '[url "https://github.com/"]',
      "\tinsteadOf = gh:",
      "[Section.SubName]",
      '\tKey = "  spaced \\"quoted\\" \\t tab"',
      "\tlong = first \\",
      "second",
      '[weird "sub \\"q\\" \\\\ x"] key = inline',
    ].join("\n");
    const { entries, error } = parseGitConfig(text);
    expect(error).toBeNull();
    expect(entries).toEqual([
      { section: "core", subsection: null, key: "bare", value: "false" },
      { section: "core", subsection: null, key: "autocrlf", value: "true" },
      { section: "remote", subsection: "Origin", key: "url", value: "git@github.com:a/b.git" },
      { section: "remote", subsection: "Origin", key: "fetch", value: "+refs/heads/*:refs/remotes/Origin/*" },
      { section: "url", subsection: "https://github.com/", key: "insteadof", value: "gh:" },
      { section: "section", subsection: "subname", key: "key", value: '  spaced "quoted" \t tab' },
      { section: "section", subsection: "subname", key: "long", value: "first second" },
      { section: "weird", subsection: 'sub "q" \\ x', key: "key", value: "inline" },
    ]);
  });

  it("reports the first syntax error with its line and keeps what came before", () => {
    const { entries, error } = parseGitConfig("[core]\n\tbare = false\n[broken\n\tx = 1\n");
    expect(entries).toHaveLength(1);
    expect(error).toEqual({ line: 3, message: "bad section header" });
    expect(parseGitConfig("x = 1").error?.message).toBe("key outside a section");
    expect(parseGitConfig('[a]\nk = "open').error?.line).toBe(2);
  });

  it("agrees with `git config --list` on values git wrote itself (oracle)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-cfg-"));
    const file = path.join(dir, "config");
    fs.writeFileSync(file, "");
    const values = ["plain", "with space", " lead", "trail ", 'q"uote', "back\\slash", "semi;colon", "hash#tag", "tab\there"];
    const set = (key: string, value: string) => execFileSync("git", ["config", "--file", file, key, value]);
    values.forEach((v, i) => {
      set(`sec.sub${i}.key`, v);
    });
    const parsed = parseGitConfig(fs.readFileSync(file, "utf8")).entries.map((e) => e.value);
    fs.rmSync(dir, { recursive: true });
    expect(parsed).toEqual(values);
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        parseGitConfig(s);
      }),
      { numRuns: 2000 },
    );
  });
});
