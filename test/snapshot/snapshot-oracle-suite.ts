import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffSnapshots, expandSnapshot } from "../../src/snapshot/diff-snapshots.js";
import type { PathChange } from "../../src/snapshot/snapshot.js";
import type { GitSpawn } from "../../src/git/load-git-config.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt, snap, type Engine } from "../helpers/snapshot-helpers.js";

/** How this test file's snapshots start git (as the daemon does, by the native addon), or by Node when undefined. */
let gitSpawn: GitSpawn | undefined;

/** A sandbox whose git settings carry the suite's way of starting git. */
function sandbox(): Sandbox {
  const sb = createSandbox();
  return gitSpawn === undefined ? sb : { ...sb, configEnv: { ...sb.configEnv, spawn: gitSpawn } };
}

// Files the operations touch. `*.log` and `ign/` are ignored; `nested/` is a nested repo.
const FILES = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "x.log", "ign/f.txt", "nested/n.txt", "tool.sh"];
const DIRS = ["dir", "dir/sub", "ign", "newdir"];
const CONTENTS = ["aaaa", "bbbb", "", "a longer line of text\n", "\u0000binary\u0001"];

type Op =
  | { op: "write"; file: string; content: string }
  | { op: "delete"; file: string }
  | { op: "rename"; from: string; to: string }
  | { op: "chmod"; file: string; exec: boolean }
  | { op: "mkdir"; dir: string }
  | { op: "rmrf"; dir: string }
  // What a command does to the index: stage a path (or everything), commit, put a file back from HEAD.
  | { op: "stage"; file: string | null }
  | { op: "commit" }
  | { op: "restore"; file: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("write" as const), file: fc.constantFrom(...FILES), content: fc.constantFrom(...CONTENTS) }),
  fc.record({ op: fc.constant("delete" as const), file: fc.constantFrom(...FILES) }),
  fc.record({ op: fc.constant("rename" as const), from: fc.constantFrom(...FILES), to: fc.constantFrom(...FILES) }),
  fc.record({ op: fc.constant("chmod" as const), file: fc.constantFrom(...FILES), exec: fc.boolean() }),
  fc.record({ op: fc.constant("mkdir" as const), dir: fc.constantFrom(...DIRS) }),
  fc.record({ op: fc.constant("rmrf" as const), dir: fc.constantFrom(...DIRS) }),
);

const indexOpArb: fc.Arbitrary<Op> = fc.oneof(
  opArb,
  fc.record({ op: fc.constant("stage" as const), file: fc.option(fc.constantFrom(...FILES)) }),
  fc.record({ op: fc.constant("commit" as const) }),
  fc.record({ op: fc.constant("restore" as const), file: fc.constantFrom(...FILES) }),
);

/** Applies an op; a file operation whose path is blocked (a folder in the way, a missing source) is skipped. */
function apply(root: string, o: Op, sb?: Sandbox): void {
  const p = (rel: string): string => path.join(root, rel);
  try {
    switch (o.op) {
      case "write":
        fs.mkdirSync(path.dirname(p(o.file)), { recursive: true });
        fs.writeFileSync(p(o.file), o.content);
        break;
      case "delete":
        fs.rmSync(p(o.file));
        break;
      case "rename":
        if (o.from === o.to || !fs.existsSync(p(o.from))) return;
        fs.mkdirSync(path.dirname(p(o.to)), { recursive: true });
        fs.renameSync(p(o.from), p(o.to));
        break;
      case "chmod":
        fs.chmodSync(p(o.file), o.exec ? 0o755 : 0o644);
        break;
      case "mkdir":
        fs.mkdirSync(p(o.dir), { recursive: true });
        break;
      case "rmrf":
        fs.rmSync(p(o.dir), { recursive: true, force: true });
        break;
      case "stage":
        sb?.git(root, "add", "-A", "--", o.file ?? ".");
        break;
      case "commit":
        sb?.git(root, "commit", "-q", "--allow-empty", "-m", "step");
        break;
      case "restore":
        sb?.git(root, "checkout", "HEAD", "--", o.file);
        break;
    }
  } catch {
    // ENOENT, EISDIR, ENOTDIR: the op does not apply to this state
  }
}

/** git status --porcelain=v2 -uall as path → line (renames are not detected without -M). */
function status(sb: Sandbox, root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of sb.git(root, "status", "--porcelain=v2", "-uall", "-z").split("\0")) {
    if (line === "") continue;
    const p = line.startsWith("? ") ? line.slice(2) : line.split(" ").slice(8).join(" ");
    out.set(p, line);
  }
  return out;
}

interface Truth {
  readonly type: "file" | "symlink" | "dir";
  readonly exec: boolean;
  readonly bytes: string;
}

/** What is on disk, read directly: the fixture's ignore rules (`*.log`, `ign/`), `nested/` and `.git` left out. */
function truth(root: string): Map<string, Truth> {
  const out = new Map<string, Truth>();
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(root, rel))) {
      const r = rel === "" ? name : `${rel}/${name}`;
      if (name === ".git" || r === "nested" || r === "ign" || name.endsWith(".log")) continue;
      const st = fs.lstatSync(path.join(root, r));
      if (st.isDirectory()) {
        out.set(r, { type: "dir", exec: false, bytes: "" });
        walk(r);
      } else {
        out.set(r, { type: st.isSymbolicLink() ? "symlink" : "file", exec: (st.mode & 0o100) !== 0, bytes: fs.readFileSync(path.join(root, r)).toString("hex") });
      }
    }
  };
  walk("");
  return out;
}

function expectedChanges(before: Map<string, Truth>, after: Map<string, Truth>): PathChange[] {
  const out: PathChange[] = [];
  for (const p of [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const x = before.get(p);
    const y = after.get(p);
    if (x === undefined) {
      if (y !== undefined && y.type !== "dir") out.push({ path: p, change: "added" });
    } else if (y === undefined) {
      if (x.type !== "dir") out.push({ path: p, change: "deleted" });
    } else if (x.type !== y.type) out.push({ path: p, change: "type_changed" });
    else if (x.type !== "dir" && x.bytes !== y.bytes) out.push({ path: p, change: "modified" });
    else if (x.type === "file" && x.exec !== y.exec) out.push({ path: p, change: "mode_changed" });
  }
  return out;
}

/** The fixture repo: ignore rules, three committed files, a nested repo; optionally a `.gitattributes` and git config. */
async function setup(sb: Sandbox, options: { attributes?: string; config?: ReadonlyArray<[string, string]>; content?: string } = {}): Promise<string> {
  const root = initRepo(sb, "repo");
  for (const [k, v] of options.config ?? []) sb.git(root, "config", k, v);
  fs.writeFileSync(path.join(root, ".gitignore"), "*.log\nign/\n");
  if (options.attributes !== undefined) fs.writeFileSync(path.join(root, ".gitattributes"), options.attributes);
  for (const f of ["a.txt", "dir/c.txt", "tool.sh"]) apply(root, { op: "write", file: f, content: options.content ?? "committed" });
  sb.git(root, "add", "-A");
  sb.git(root, "commit", "-q", "-m", "base");
  initRepo(sb, "repo/nested");
  return root;
}

interface Played {
  readonly sb: Sandbox;
  readonly root: string;
  readonly before: Awaited<ReturnType<typeof snap>>;
  readonly after: Awaited<ReturnType<typeof snap>>;
  readonly statusBefore: Map<string, string>;
  readonly statusAfter: Map<string, string>;
  readonly truthBefore: Map<string, Truth>;
  readonly truthAfter: Map<string, Truth>;
}

/**
 * One run of a property: a fixture repo, `first` applied, a snapshot, then `ops` applied and a second snapshot,
 * with git status and the bytes on disk at both points; `check` compares them. `withGit`: the ops may stage,
 * commit and restore. The sandbox is removed whatever happens.
 */
async function play(engine: Engine, fixture: Parameters<typeof setup>[1], first: readonly Op[], ops: readonly Op[], withGit: boolean, check: (p: Played) => void): Promise<void> {
  const sb = sandbox();
  try {
    const root = await setup(sb, fixture);
    for (const o of first) apply(root, o, withGit ? sb : undefined);
    const repo = repoAt(root);
    const before = await snap(sb, repo, undefined, engine);
    const statusBefore = status(sb, root);
    const truthBefore = truth(root);
    for (const o of ops) apply(root, o, withGit ? sb : undefined);
    const after = await snap(sb, repo, before, engine);
    check({ sb, root, before, after, statusBefore, statusAfter: status(sb, root), truthBefore, truthAfter: truth(root) });
  } finally {
    sb.cleanup();
  }
}

const EOL_CONTENTS = ["one\ntwo\n", "one\r\ntwo\r\n", "other\n", "other\r\n", "\u0000bin\r\n"];
const eolOpArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("write" as const), file: fc.constantFrom(...FILES), content: fc.constantFrom(...EOL_CONTENTS) }),
  fc.record({ op: fc.constant("delete" as const), file: fc.constantFrom(...FILES) }),
  fc.record({ op: fc.constant("chmod" as const), file: fc.constantFrom(...FILES), exec: fc.boolean() }),
);

/** Fixtures whose committed text is LF: with `* text=auto eol=lf`, and with a clean/smudge filter. */
const TEXT_AUTO = { attributes: "* text=auto eol=lf\n", content: "one\ntwo\n" };
const FILTERED = {
  attributes: "*.txt filter=upper\n",
  config: [
    ["filter.upper.clean", "tr a-z A-Z"],
    ["filter.upper.smudge", "cat"],
  ] as Array<[string, string]>,
  content: "one\ntwo\n",
};

/**
 * The oracles on one snapshot engine: one test file each, so that vitest runs them side by side. `share` scales the
 * number of generated cases: the engine a user's hook and daemon take (`auto`) plays them all; an engine `auto`
 * only falls back to, or picks for part of a repo, plays a share of them (with fast-check's seed of the run, so
 * successive runs still cover different cases).
 */
export function snapshotOracleSuite(engine: Engine, spawn?: GitSpawn, share = 1): void {
  gitSpawn = spawn;
  const runs = (n: number): number => Math.max(5, Math.round(n * share));
  describe(`snapshot diff against git status (oracle, engine ${engine})`, () => {
    it("equals the change git status shows, and also sees what status diffing cannot", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 6 }), fc.array(opArb, { minLength: 1, maxLength: 8 }), async (dirtyFirst, ops) => {
          const sb = sandbox();
          try {
            const root = await setup(sb);
            for (const o of dirtyFirst) apply(root, o);
            const repo = repoAt(root);
            const before = await snap(sb, repo, undefined, engine);
            const statusBefore = status(sb, root);
            const truthBefore = truth(root);
            for (const o of ops) apply(root, o);
            const after = await snap(sb, repo, before, engine);
            expect(before.base === undefined).toBe(engine === "walk");
            const statusAfter = status(sb, root);
            const ours: PathChange[] = diffSnapshots(before, after);
            const ourPaths = new Set(ours.map((c) => c.path));

            // 1. Every path whose git status changed is in our diff (git's view: files, no folders).
            for (const p of new Set([...statusBefore.keys(), ...statusAfter.keys()])) {
              if (statusBefore.get(p) !== statusAfter.get(p)) {
                if (p.endsWith("/")) continue; // a nested repo shown as an untracked folder
                expect(ourPaths, `git saw ${p} change`).toContain(p);
              }
            }
            // 2. What we report beyond git's view is only what git status diffing cannot see:
            //    a path dirty or untracked in both states (a second edit, an untracked file's mode).
            for (const c of ours) {
              if (statusBefore.get(c.path) !== statusAfter.get(c.path)) continue;
              if (c.change === "type_changed" && !fs.existsSync(path.join(root, c.path))) continue;
              const line = statusAfter.get(c.path);
              const isFolderNow = fs.existsSync(path.join(root, c.path)) && fs.lstatSync(path.join(root, c.path)).isDirectory();
              expect(line !== undefined || isFolderNow, `we reported ${c.path} ${c.change}, git shows it clean`).toBe(true);
            }
            // 3. Never a path that is ignored, inside the nested repo, or inside .git.
            for (const c of ours) {
              expect(c.path.startsWith("nested/") || c.path.startsWith(".git/") || c.path.endsWith(".log") || c.path.startsWith("ign/")).toBe(false);
            }
            // 4. Exactly an independent model: every file read whole before and after, compared byte for byte.
            expect(ours).toEqual(expectedChanges(truthBefore, truth(root)));
            // 5. Relative to one index, the short diff equals the diff of both snapshots with every path listed.
            expect(diffSnapshots(expandSnapshot(before), expandSnapshot(after))).toEqual(ours);
          } finally {
            sb.cleanup();
          }
        }),
        { numRuns: runs(60) },
      );
    });

    it("equals the byte-level model when the command also stages, commits or restores files", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(indexOpArb, { maxLength: 6 }), fc.array(indexOpArb, { minLength: 1, maxLength: 8 }), (first, ops) =>
          play(engine, {}, first, ops, true, ({ before, after, truthBefore, truthAfter }) => {
            expect(diffSnapshots(before, after)).toEqual(expectedChanges(truthBefore, truthAfter));
          }),
        ),
        { numRuns: runs(40) },
      );
    });

    it("catches a second edit to an already dirty file and a mode change on an untracked file", async () => {
      const sb = sandbox();
      try {
        const root = await setup(sb);
        apply(root, { op: "write", file: "a.txt", content: "dirty once" });
        apply(root, { op: "write", file: "b.txt", content: "untracked" });
        const repo = repoAt(root);
        const before = await snap(sb, repo, undefined, engine);
        const statusBefore = status(sb, root);
        apply(root, { op: "write", file: "a.txt", content: "dirty twice" });
        apply(root, { op: "chmod", file: "b.txt", exec: true });
        const after = await snap(sb, repo, before, engine);
        // git status lines are the same before and after: diffing them sees nothing.
        expect(status(sb, root)).toEqual(statusBefore);
        expect(diffSnapshots(before, after)).toEqual([
          { path: "a.txt", change: "modified" },
          { path: "b.txt", change: "mode_changed" },
        ]);
      } finally {
        sb.cleanup();
      }
    });
  });

  // Line-ending attributes (issue: shell-command snapshots at git speed on real repos). Committed text is LF; the
  // ops write LF and CRLF versions of it, other text, and binary bytes.
  describe(`snapshot diff with attributes (oracle, engine ${engine})`, () => {
    it("with `* text=auto eol=lf`: equals git's view, where a line-ending-only rewrite of a clean file is no change", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(eolOpArb, { maxLength: 5 }), fc.array(eolOpArb, { minLength: 1, maxLength: 6 }), (dirtyFirst, ops) =>
          play(engine, TEXT_AUTO, dirtyFirst, ops, false, ({ before, after, statusBefore, statusAfter, truthBefore, truthAfter }) => {
            const ours = diffSnapshots(before, after);
            const bytes = expectedChanges(truthBefore, truthAfter);
            if (engine === "walk") {
              // Forced to walk, the engine compares bytes: the byte model.
              expect(ours).toEqual(bytes);
              return;
            }
            expect(before.base).toBeDefined(); // git's view, not a walk
            // The documented rule: git's view. The byte model, less the files git shows clean before and after (their
            // bytes can then only differ in line endings that git's own normalisation hides).
            const gitView = bytes.filter((c) => !(c.change === "modified" && !statusBefore.has(c.path) && !statusAfter.has(c.path)));
            expect(ours).toEqual(gitView);
            // And every path whose git status changed is there.
            const ourPaths = new Set(ours.map((c) => c.path));
            for (const p of new Set([...statusBefore.keys(), ...statusAfter.keys()])) {
              if (statusBefore.get(p) !== statusAfter.get(p) && !p.endsWith("/")) expect(ourPaths, `git saw ${p} change`).toContain(p);
            }
          }),
        ),
        { numRuns: runs(40) },
      );
    });

    it("with a clean/smudge filter: asks git status, looks at the filtered paths itself, says so, and equals the byte model", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(eolOpArb, { maxLength: 4 }), fc.array(eolOpArb, { minLength: 1, maxLength: 5 }), (dirtyFirst, ops) =>
          play(engine, FILTERED, dirtyFirst, ops, false, ({ before, after, truthBefore, truthAfter }) => {
            expect(before.base === undefined).toBe(engine === "walk");
            expect(diffSnapshots(before, after)).toEqual(expectedChanges(truthBefore, truthAfter));
          }),
        ),
        { numRuns: runs(15) },
      );
      if (engine !== "auto") return;
      const sb = sandbox();
      try {
        const root = await setup(sb, FILTERED);
        const { takeSnapshot } = await import("../../src/snapshot/take-snapshot.js");
        const r = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv });
        expect(r.diagnostics.filter((d) => d.code === "snapshot_walked")).toEqual([]);
        expect(r.diagnostics.map((d) => d.message)).toContain("asked git status, and looked at the 2 path(s) under a clean/smudge filter (filter=upper) itself (git's view of them may hide a write)");
      } finally {
        sb.cleanup();
      }
    });
  });
}

/** The line-ending rule by example (engine-independent): with the first engine's file. */
export function lineEndingExamples(): void {
  describe("the line-ending rule, by example", () => {
    it("under `* text=auto eol=lf` a snapshot diff is what git status shows: a CRLF rewrite of a clean file as git lists it", async () => {
      const sb = sandbox();
      try {
        const root = await setup(sb, TEXT_AUTO);
        const repo = repoAt(root);
        const before = await snap(sb, repo);
        apply(root, { op: "write", file: "a.txt", content: "one\r\ntwo\r\n" });
        apply(root, { op: "write", file: "dir/c.txt", content: "one\r\nTWO\r\n" });
        const after = await snap(sb, repo, before);
        // git lists the CRLF rewrite as modified until it touches the file (then it would stage nothing).
        expect(sb.git(root, "status", "--porcelain", "--", "a.txt", "dir")).toBe(" M a.txt\n M dir/c.txt\n");
        expect(diffSnapshots(before, after)).toEqual([
          { path: "a.txt", change: "modified" },
          { path: "dir/c.txt", change: "modified" },
        ]);
        // Once git has renormalised it (git add), the same bytes are clean to git, and to the next snapshot.
        sb.git(root, "add", "a.txt");
        const staged = await snap(sb, repo, after);
        expect(sb.git(root, "diff", "--cached", "--name-only")).toBe("");
        expect(diffSnapshots(after, staged)).toEqual([{ path: "a.txt", change: "modified" }]);
        const again = await snap(sb, repo, staged);
        expect(diffSnapshots(staged, again)).toEqual([]);
      } finally {
        sb.cleanup();
      }
    });
  });
}
