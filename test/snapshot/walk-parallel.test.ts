import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { takeSnapshot } from "../../src/snapshot/take-snapshot.js";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { repoAt, writeAged } from "../helpers/snapshot-helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = createSandbox();
});
afterEach(() => sb.cleanup());

describe("parallel walk", () => {
  it("gives the same snapshot as the walk in one thread", async () => {
    const root = initRepo(sb, "repo");
    writeAged(root, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    for (let p = 0; p < 12; p++) {
      for (let f = 0; f < 15; f++) writeAged(root, `packages/p${p}/src/m${f % 3}/f${f}.ts`, `${p}-${f}`);
      writeAged(root, `packages/p${p}/debug.log`, "ignored");
      writeAged(root, `packages/p${p}/build/out.js`, "ignored");
    }
    writeAged(root, "packages/p3/.gitignore", "*.ts\n!f1.ts\n");
    writeAged(root, "packages/p4/keep.log", "kept");
    writeAged(root, "packages/p5/tracked.log", "tracked though ignored");
    sb.git(root, "add", "-A");
    sb.git(root, "add", "-f", "packages/p5/tracked.log");
    sb.git(root, "commit", "-q", "-m", "tree");
    initRepo(sb, "repo/packages/p6/nested");
    fs.symlinkSync("../p1", path.join(root, "packages/p2/link"));
    writeAged(root, "packages/p7/untracked.txt", "u");

    // One clock for all three: which files are racy depends on it, and the walks must be compared alone.
    const now = Date.now();
    const clock = (): number => now;
    const serial = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv, engine: "walk", workers: 0, clock });
    for (const workers of [1, 3]) {
      const parallel = await takeSnapshot(repoAt(root), { configEnv: sb.configEnv, engine: "walk", workers, clock });
      expect(parallel.snapshot.entries).toEqual(serial.snapshot.entries);
      expect(parallel.diagnostics).toEqual(serial.diagnostics);
    }
    const paths = serial.snapshot.entries.map((e) => e.path);
    expect(paths).toContain("packages/p5/tracked.log");
    expect(paths).toContain("packages/p4/keep.log");
    expect(paths).toContain("packages/p3/src/m1/f1.ts");
    expect(paths).not.toContain("packages/p3/src/m0/f0.ts");
    expect(paths.some((p) => p.includes("nested/") || (p.endsWith(".log") && !p.endsWith("keep.log") && !p.endsWith("tracked.log")))).toBe(false);
  });
});
