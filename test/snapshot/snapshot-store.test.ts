import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeSnapshot, encodeSnapshot } from "../../src/snapshot/snapshot-codec.js";
import type { IndexBase, Snapshot, SnapshotEntry } from "../../src/snapshot/snapshot.js";
import { createSnapshotStore } from "../../src/snapshot/snapshot-store.js";

const entryArb: fc.Arbitrary<SnapshotEntry> = fc.record({
  path: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }),
  type: fc.constantFrom("file" as const, "symlink" as const, "dir" as const),
  executable: fc.boolean(),
  size: fc.nat(),
  mtimeMs: fc.double({ min: 0, max: 4e12, noNaN: true }),
  ctimeMs: fc.double({ min: 0, max: 4e12, noNaN: true }),
  ino: fc.nat(),
  hash: fc.option(fc.stringMatching(/^[0-9a-f]{16}$|^[0-9a-f]{40}$/), { nil: null }),
  racy: fc.boolean(),
});

const byPath = <T extends { path: string }>(xs: T[]): T[] => [...xs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
const pathArb = fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).filter((p) => !p.includes("\0"));
const baseArb: fc.Arbitrary<IndexBase> = fc.record({
  checksum: fc.stringMatching(/^([0-9a-f]{40})?$/),
  index: fc.uint8Array({ maxLength: 200 }),
  indexed: fc
    .uniqueArray(fc.record({ path: pathArb, mode: fc.constantFrom(0o100644, 0o100755, 0o120000), oid: fc.stringMatching(/^[0-9a-f]{40}$/) }), { selector: (x) => x.path, maxLength: 10 })
    .map(byPath),
  missing: fc.uniqueArray(pathArb, { maxLength: 10 }).map((xs) => [...xs].sort()),
});

const snapshotArb: fc.Arbitrary<Snapshot> = fc.tuple(fc.uniqueArray(entryArb, { selector: (e) => e.path, maxLength: 40 }), fc.option(baseArb, { nil: undefined })).map(([entries, base]) => ({
  version: 1 as const,
  root: "/work/repo",
  startedMs: 1_796_000_000_000.5,
  entries: byPath(entries),
  ...(base === undefined ? {} : { base }),
}));

describe("snapshot codec", () => {
  it("decodes exactly what it encodes, for any paths (property)", () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        // NaN-free doubles, any unicode path: exact round trip.
        expect(decodeSnapshot(encodeSnapshot(s))).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  it("shares path prefixes, so a large snapshot stays compact", () => {
    const entries: SnapshotEntry[] = Array.from({ length: 1000 }, (_, i) => ({
      path: `packages/app/src/components/widget-${String(i).padStart(4, "0")}.tsx`,
      type: "file",
      executable: false,
      size: 1234,
      mtimeMs: 1_796_000_000_000.123,
      ctimeMs: 1_796_000_000_000.123,
      ino: 123456 + i,
      hash: "0123456789abcdef",
      racy: false,
    }));
    const data = encodeSnapshot({ version: 1, root: "/r", startedMs: 0, entries });
    expect(data.length / entries.length).toBeLessThan(60);
  });

  it("rejects truncated or foreign text", () => {
    const s: Snapshot = {
      version: 1,
      root: "/r",
      startedMs: 1,
      entries: [{ path: "a", type: "file", executable: false, size: 1, mtimeMs: 1, ctimeMs: 1, ino: 1, hash: "0123456789abcdef", racy: false }],
    };
    const data = encodeSnapshot(s);
    expect(decodeSnapshot(data)).toEqual(s);
    for (let cut = 0; cut < data.length; cut += 3) expect(decodeSnapshot(data.subarray(0, cut))).toBeNull();
    expect(decodeSnapshot(Buffer.from("hello"))).toBeNull();
    expect(decodeSnapshot(Buffer.alloc(0))).toBeNull();
  });
});

describe("snapshot store", () => {
  let dir: string;
  let now: number;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-store-"));
    now = Date.now();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const snapshot = (root: string, n = 1): Snapshot => ({
    version: 1,
    root,
    startedMs: now,
    entries: Array.from({ length: n }, (_, i) => ({ path: `f${i}`, type: "file" as const, executable: false, size: i, mtimeMs: 1, ctimeMs: 1, ino: i, hash: "0123456789abcdef", racy: false })),
  });

  it("keys snapshots by session, tool use and repo, and removes them when taken", () => {
    const store = createSnapshotStore({ dir, clock: () => now });
    const k1 = { sessionId: "s1", toolUseId: "t1", repoRoot: "/a" };
    const k2 = { sessionId: "s1", toolUseId: "t2", repoRoot: "/a" };
    const k3 = { sessionId: "s2", toolUseId: "t1", repoRoot: "/a" };
    store.save(k1, snapshot("/a", 1));
    store.save(k2, snapshot("/a", 2));
    store.save(k3, snapshot("/a", 3));
    expect(store.take(k2)?.entries).toHaveLength(2);
    expect(store.take(k2)).toBeNull();
    expect(store.take(k1)?.entries).toHaveLength(1);
    expect(store.take(k3)?.entries).toHaveLength(3);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("expires stale snapshots and leftover temp files", () => {
    const store = createSnapshotStore({ dir, clock: () => now, maxAgeMs: 60_000 });
    const key = { sessionId: "s", toolUseId: "t", repoRoot: "/a" };
    store.save(key, snapshot("/a"));
    fs.writeFileSync(path.join(dir, "x.snap.123.abcd.tmp"), "partial");
    const later = createSnapshotStore({ dir, clock: () => now + 2 * 60 * 60_000, maxAgeMs: 60_000 });
    expect(later.take(key)).toBeNull();
    expect(later.prune()).toBe(1);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("caps its size, oldest first", () => {
    const store = createSnapshotStore({ dir, clock: () => now, maxBytes: 30_000 });
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      store.save({ sessionId: "s", toolUseId: `t${i}`, repoRoot: "/a" }, snapshot("/a", 200));
      // Give each new file its own age, older for earlier saves.
      for (const f of fs.readdirSync(dir)) {
        if (seen.has(f)) continue;
        seen.add(f);
        const t = new Date(now - (10 - i) * 1000);
        fs.utimesSync(path.join(dir, f), t, t);
      }
    }
    store.prune();
    const total = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    expect(total).toBeLessThanOrEqual(30_000);
    expect(store.take({ sessionId: "s", toolUseId: "t9", repoRoot: "/a" })).not.toBeNull();
    expect(store.take({ sessionId: "s", toolUseId: "t0", repoRoot: "/a" })).toBeNull();
  });

  it("keeps the latest snapshot per repo as a stat cache", () => {
    const store = createSnapshotStore({ dir, clock: () => now });
    store.saveLatest(snapshot("/a", 2));
    store.saveLatest(snapshot("/b", 3));
    expect(store.latest("/a")?.entries).toHaveLength(2);
    expect(store.latest("/a")?.entries).toHaveLength(2);
    expect(store.latest("/c")).toBeNull();
  });

  it("keeps the index a snapshot is relative to beside it: linked while git's file stays, so later rewrites do not touch it", () => {
    const store = createSnapshotStore({ dir, clock: () => now });
    const gitDir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-store-git-"));
    try {
      const indexFile = path.join(gitDir, "index");
      const bytes = Buffer.concat([Buffer.from("DIRC-any-bytes"), Buffer.alloc(20, 7)]);
      fs.writeFileSync(indexFile, bytes);
      const base: IndexBase = { checksum: "07".repeat(20), index: new Uint8Array(bytes), file: indexFile, indexed: [{ path: "a", mode: 0o100644, oid: "ab".repeat(20) }], missing: ["gone"] };
      const key = { sessionId: "s", toolUseId: "t", repoRoot: "/a" };
      store.save(key, { ...snapshot("/a", 2), base });
      const side = fs.readdirSync(dir).find((f) => f.endsWith(".idx"));
      expect(side).toBeDefined();
      expect(fs.statSync(path.join(dir, side as string)).ino).toBe(fs.statSync(indexFile).ino);
      // git writes a new index and renames it over the old one.
      fs.writeFileSync(`${indexFile}.lock`, "new index");
      fs.renameSync(`${indexFile}.lock`, indexFile);
      const back = store.take(key);
      expect(back?.base).toEqual({ checksum: base.checksum, index: bytes, indexed: base.indexed, missing: base.missing });
      expect(fs.readdirSync(dir)).toEqual([]);
      // Without its index (a crash, a cleanup) the snapshot is lost, not half-read.
      store.save(key, { ...snapshot("/a"), base: { ...base, file: path.join(gitDir, "no-such-index") } });
      for (const f of fs.readdirSync(dir)) if (f.endsWith(".idx")) fs.rmSync(path.join(dir, f));
      expect(store.take(key)).toBeNull();
    } finally {
      fs.rmSync(gitDir, { recursive: true, force: true });
    }
  });

  it("treats a corrupt file as missing", () => {
    const store = createSnapshotStore({ dir, clock: () => now });
    const key = { sessionId: "s", toolUseId: "t", repoRoot: "/a" };
    store.save(key, snapshot("/a"));
    for (const f of fs.readdirSync(dir)) fs.writeFileSync(path.join(dir, f), "garbage");
    expect(store.take(key)).toBeNull();
  });
});
