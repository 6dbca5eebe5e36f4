import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createSnapshotMemo } from "../../src/daemon/snapshot-memo.js";
import { createWatchedRoots, type ChangeWatch } from "../../src/daemon/watched-roots.js";
import type { SnapshotResult } from "../../src/snapshot/snapshot.js";
import type { Repo } from "../../src/workspace/repo.js";

// The daemon's reuse of a shell command's snapshots (pure, on a watch the test drives): only the same repo, under
// the same git settings, with nothing changed since the snapshot began, not too old, and without diagnostics.

function fakeWatch(): ChangeWatch & { touch(root: string): void; roots: string[] } {
  const roots: string[] = [];
  let pending = new Set<number>();
  return {
    roots,
    add: (root) => roots.push(root) - 1,
    changed: () => {
      const out = [...pending];
      pending = new Set();
      return out;
    },
    touch: (root) => pending.add(roots.indexOf(root)),
  };
}

const result = (n: number, diagnostics: SnapshotResult["diagnostics"] = []): SnapshotResult => ({
  snapshot: { version: 1, root: "/r", startedMs: n, entries: [] },
  diagnostics,
  nested: [],
  counts: { hashed: n, fromPrevious: 0, fromIndex: 0 },
  paths: 0,
});

describe("the daemon's snapshot memo (pure)", () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "comity-memo-")));
  const repo: Repo = { root, gitDir: root, commonDir: root, kind: "main", parent: null, diagnostics: [] };

  it("reuses a snapshot from the repo's second on, until something under it changes, and only under the same settings", () => {
    const watch = fakeWatch();
    let now = 0;
    const memo = createSnapshotMemo({ roots: createWatchedRoots(() => watch), clock: () => now, maxAgeMs: 1000 });
    expect(memo.kept(repo, "s")).toBeNull();
    expect(memo.begin(repo, "s")).toBeNull(); // watched from now
    const keep = memo.begin(repo, "s");
    keep?.(result(1));
    expect(memo.kept(repo, "s")?.snapshot.startedMs).toBe(1);
    expect(memo.kept(repo, "other settings")).toBeNull();
    memo.begin(repo, "s")?.(result(2));
    watch.touch(root);
    expect(memo.kept(repo, "s")).toBeNull();
    memo.begin(repo, "s")?.(result(3));
    now = 2000; // too old
    expect(memo.kept(repo, "s")).toBeNull();
    expect(memo.stats()).toEqual({ reused: 1, taken: 4 });
  });

  it("keeps neither a snapshot whose repo changed while it was taken nor one with diagnostics", () => {
    const watch = fakeWatch();
    const memo = createSnapshotMemo({ roots: createWatchedRoots(() => watch) });
    memo.begin(repo, "s");
    const keep = memo.begin(repo, "s");
    watch.touch(root);
    keep?.(result(1));
    expect(memo.kept(repo, "s")).toBeNull();
    memo.begin(repo, "s")?.(result(2, [{ code: "x", severity: "warning", path: root, message: "walked" }]));
    expect(memo.kept(repo, "s")).toBeNull();
  });
});
