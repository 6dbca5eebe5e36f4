import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalizeRemoteUrl } from "../../src/remotes/canonicalize-remote-url.js";
import { remoteFingerprint, remoteFingerprints } from "../../src/remotes/fingerprint.js";

const canon = (url: string, base?: string): string | null => canonicalizeRemoteUrl(url, base)?.canonical ?? null;

/** Groups of spellings that must give one canonical form (from hosted-git-info's and git-url-parse's test suites, and the hosts' docs). */
const SAME: ReadonlyArray<[string, readonly string[]]> = [
  [
    "github.com/foo/bar",
    [
      "https://github.com/foo/bar",
      "https://github.com/foo/bar.git",
      "https://github.com/foo/bar/",
      "https://github.com/foo/bar.git/",
      "https://www.github.com/foo/bar",
      "https://GitHub.com/Foo/Bar.git",
      "https://user@github.com/foo/bar.git",
      "https://user:pa%40ss@github.com/foo/bar.git",
      "https://github.com:443/foo/bar.git",
      "http://github.com/foo/bar",
      "http://github.com:80/foo/bar",
      "git+https://github.com/foo/bar.git",
      "git://github.com/foo/bar",
      "git://github.com:9418/foo/bar.git",
      "git+ssh://git@github.com/foo/bar.git",
      "git+ssh://git@github.com:foo/bar.git",
      "ssh+git://git@github.com/foo/bar.git",
      "ssh://git@github.com/foo/bar.git",
      "ssh://git@github.com:22/foo/bar.git",
      "ssh://github.com/foo/bar",
      "ssh://git@ssh.github.com:443/foo/bar.git",
      "git@github.com:foo/bar.git",
      "git@github.com:foo/bar",
      "git@github.com:/foo/bar.git",
      "git@github.com:foo/bar.git#main",
      "github.com:foo/bar",
      "GIT@GITHUB.COM:FOO/BAR.GIT",
      "  https://github.com/foo/bar.git\n",
      "https://github.com/foo/bar?tab=readme",
      "https://github.com//foo//bar",
    ],
  ],
  [
    "gitlab.com/group/subgroup/deeper/proj",
    [
      "https://gitlab.com/group/subgroup/deeper/proj.git",
      "git@gitlab.com:group/subgroup/deeper/proj.git",
      "ssh://git@gitlab.com/group/subgroup/deeper/proj",
      "git+ssh://git@gitlab.com:group/subgroup/deeper/proj.git",
      "ssh://git@altssh.gitlab.com:443/group/subgroup/deeper/proj.git",
    ],
  ],
  ["bitbucket.org/team/repo", ["https://bitbucket.org/team/repo.git", "https://user@bitbucket.org/team/repo.git", "git@bitbucket.org:team/repo.git", "ssh://git@bitbucket.org/team/repo.git"]],
  [
    "bitbucket.corp.example/proj/repo",
    ["https://bitbucket.corp.example/scm/proj/repo.git", "ssh://git@bitbucket.corp.example:7999/proj/repo.git", "https://user@bitbucket.corp.example/scm/PROJ/repo.git"],
  ],
  [
    "dev.azure.com/myorg/myproject/myrepo",
    [
      "https://dev.azure.com/MyOrg/MyProject/_git/MyRepo",
      "https://MyOrg@dev.azure.com/MyOrg/MyProject/_git/MyRepo",
      "https://dev.azure.com/MyOrg/MyProject/_git/_optimized/MyRepo",
      "git@ssh.dev.azure.com:v3/MyOrg/MyProject/MyRepo",
      "ssh://git@ssh.dev.azure.com/v3/MyOrg/MyProject/MyRepo",
      "https://myorg.visualstudio.com/MyProject/_git/MyRepo",
      "https://myorg.visualstudio.com/DefaultCollection/MyProject/_git/MyRepo",
      "myorg@vs-ssh.visualstudio.com:v3/myorg/MyProject/MyRepo",
      "ssh://myorg@vs-ssh.visualstudio.com:22/MyProject/_ssh/MyRepo",
      "ssh://myorg@vs-ssh.visualstudio.com:22/DefaultCollection/MyProject/_ssh/MyRepo",
    ],
  ],
  ["dev.azure.com/org/repo/repo", ["https://dev.azure.com/org/_git/repo", "https://org.visualstudio.com/_git/repo"]],
  ["git.corp.example/team/app", ["ssh://git@git.corp.example:2222/team/app.git", "git@git.corp.example:team/app.git", "https://git.corp.example/team/app", "https://git.corp.example.:443/team/app"]],
  ["git.corp.example:8443/team/app", ["https://git.corp.example:8443/team/app.git", "http://git.corp.example:8443/team/app"]],
  ["[::1]/a/b", ["git@[::1]:a/b.git", "ssh://git@[::1]:22/a/b", "https://[::1]/a/b"]],
  ["file:///srv/git/app", ["/srv/git/app", "/srv/git/app.git", "/srv/git/app/", "/srv/git/app/.git", "file:///srv/git/app.git", "file://localhost/srv/git/app"]],
  ["file:///home/me/app", ["../app", "./../app", "/home/me/x/../app"]],
];

describe("canonicalizeRemoteUrl", () => {
  for (const [expected, spellings] of SAME) {
    it(`gives ${expected} for every spelling`, () => {
      for (const url of spellings) expect(canon(url, "/home/me/clone"), url).toBe(expected);
    });
  }

  it("keeps distinct repos distinct", () => {
    const urls = [
      "https://github.com/foo/bar",
      "https://github.com/foo/baz",
      "https://github.com/bar/foo",
      "https://gitlab.com/foo/bar",
      "https://gitlab.com/foo/bar/baz",
      "https://gitlab.com/foo/bar-baz",
      "https://git.corp.example:8443/foo/bar",
      "https://dev.azure.com/a/b/_git/c",
      "https://dev.azure.com/a/c/_git/c",
      "/srv/foo/bar",
    ];
    expect(new Set(urls.map((u) => canon(u))).size).toBe(urls.length);
  });

  it("never lets a local path collide with a hosted form", () => {
    expect(canonicalizeRemoteUrl("/github.com/foo/bar")?.kind).toBe("local");
    expect(canon("/github.com/foo/bar")).not.toBe(canon("https://github.com/foo/bar"));
    expect(canon("file:///github.com/foo/bar")).toBe("file:///github.com/foo/bar");
    expect(canonicalizeRemoteUrl("C:\\repos\\x")?.canonical).toBe("file:///c:/repos/x");
  });

  it("returns null for empty or unusable URLs", () => {
    for (const url of ["", "   ", "https://", "https:///foo", "git@github.com:", "https://github.com/", "ssh://user@/x"]) {
      expect(canon(url), JSON.stringify(url)).toBeNull();
    }
  });

  it("fingerprints are lowercase hex SHA-256 of the canonical form, sorted and de-duplicated", () => {
    const f = remoteFingerprint("git@github.com:foo/bar.git");
    expect(f).toMatch(/^[0-9a-f]{64}$/);
    expect(f).toBe(remoteFingerprint("https://github.com/foo/bar"));
    // sha256("github.com/foo/bar"), computed independently with `printf %s github.com/foo/bar | sha256sum`
    expect(f).toBe("3db1631076c25b20c6e0017d785ee419bf993d1c368d67a81254d268c39ab893");
    const list = remoteFingerprints(["https://github.com/foo/bar", "git@github.com:foo/bar", "https://gitlab.com/a/b", ""]);
    expect(list).toHaveLength(2);
    expect([...list].sort()).toEqual(list);
  });
});

// Property tests: every spelling of one generated remote gives one fingerprint.
const label = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,10}[a-z0-9]$/);
const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/).filter((s) => !s.endsWith(".git") && !s.endsWith(".") && s !== "scm" && s.toLowerCase() !== "scm");
const remote = fc.record({
  host: fc.tuple(label, fc.constantFrom("com", "org", "io", "example")).map(([a, b]) => `${a}.${b}`),
  owner: fc.array(segment, { minLength: 1, maxLength: 3 }),
  name: segment,
  user: fc.constantFrom("git", "me", "ci-bot"),
});

function spellings(r: { host: string; owner: string[]; name: string; user: string }): string[] {
  const p = [...r.owner, r.name].join("/");
  const up = (s: string) => s.toUpperCase();
  return [
    `https://${r.host}/${p}`,
    `https://${r.host}/${p}.git`,
    `https://${r.host}/${p}/`,
    `https://www.${r.host}/${p}.git`,
    `https://${r.user}@${r.host}/${p}.git`,
    `https://${r.user}:secret@${r.host}:443/${p}`,
    `http://${r.host}:80/${p}`,
    `git://${r.host}/${p}.git`,
    `git+https://${r.host}/${p}.git`,
    `ssh://${r.user}@${r.host}/${p}.git`,
    `ssh://${r.user}@${r.host}:22/${p}`,
    `git+ssh://${r.user}@${r.host}/${p}.git`,
    // npm's `git+ssh://host:owner/name` is ambiguous with a port when the owner is all digits.
    ...(/^\d+$/.test(r.owner[0] ?? "") ? [] : [`git+ssh://${r.user}@${r.host}:${p}.git`]),
    `${r.user}@${r.host}:${p}.git`,
    `${r.user}@${r.host}:/${p}`,
    `${r.host}:${p}`,
    up(`https://${r.host}/${p}.git`),
  ];
}

describe("remote fingerprints (property)", () => {
  it("every spelling of one remote gives one fingerprint", () => {
    fc.assert(
      fc.property(remote, (r) => {
        const prints = new Set(spellings(r).map((u) => remoteFingerprint(u)));
        expect([...prints]).toHaveLength(1);
        expect([...prints][0]).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("different owner/name pairs on one host never share a fingerprint", () => {
    fc.assert(
      fc.property(remote, remote, (a, b) => {
        const pa = [...a.owner, a.name].join("/").toLowerCase();
        const pb = [...b.owner, b.name].join("/").toLowerCase();
        fc.pre(pa !== pb);
        expect(remoteFingerprint(`https://${a.host}/${pa}`)).not.toBe(remoteFingerprint(`https://${a.host}/${pb}`));
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
        const c = canonicalizeRemoteUrl(s);
        if (c !== null && c.kind === "hosted") expect(c.canonical.startsWith("file:")).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
