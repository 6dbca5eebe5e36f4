// The snapshot oracles (snapshot-oracle-suite.ts) on the auto engine, with git started as the daemon starts it: by
// the native addon's posix_spawn (`native/spawn_capture.c`) instead of Node's fork.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFlatParser } from "../../src/parse/native-parser.js";
import { useNativeSpawn } from "../../src/snapshot/git-status.js";
import { snapshotOracleSuite } from "./snapshot-oracle-suite.js";

const spawnCapture = openFlatParser().addon?.spawnCapture;

describe.skipIf(spawnCapture === undefined)("the native addon's spawnCapture", () => {
  it("gives a program's stdout whole (past a pipe's buffer), null where it fails or is not found on the PATH it is given", () => {
    if (spawnCapture === undefined) return;
    const env = Object.entries(process.env).map(([k, v]) => `${k}=${v}`);
    expect(spawnCapture(process.execPath, ["-e", "process.stdout.write('ab'.repeat(1_500_000))"], env)?.length).toBe(3_000_000);
    expect(spawnCapture(process.execPath, ["-e", "process.stdout.write(process.env.X + process.cwd())"], ["X=é"])?.toString("utf8")).toBe(`é${process.cwd()}`);
    expect(spawnCapture(process.execPath, ["-e", "process.stdout.write('partial'); process.exit(3)"], env)).toBeNull();
    expect(spawnCapture("git", ["--version"], ["PATH=/nonexistent"])).toBeNull();
    expect(spawnCapture("no-such-program-comity", [], env)).toBeNull();
  });
});

describe.skipIf(spawnCapture === undefined)("snapshots with git started by posix_spawn", () => {
  beforeAll(() => useNativeSpawn(spawnCapture ?? null));
  afterAll(() => useNativeSpawn(null));
  snapshotOracleSuite("auto");
});
