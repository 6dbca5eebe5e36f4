// The snapshot oracles (snapshot-oracle-suite.ts) on the auto engine, with git started as the daemon starts it: by
// the native addon's posix_spawn (`native/spawn_capture.c`) instead of Node's fork.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { openFlatParser } from "../../src/parse/native-parser.js";
import { runGitStatus, runGitStatusAsync } from "../../src/snapshot/git-status.js";
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

/** Whether a process lives (a zombie does not count: it has ended). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** A folder whose `git` prints nothing, exits 0, and first sleeps, with a child that sleeps too (its pid in `pids`). */
function hangingGit(): { bin: string; pids: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-hung-git-"));
  const pids = path.join(dir, "pids");
  fs.writeFileSync(path.join(dir, "git"), `#!/bin/sh\nsleep 30 >/dev/null 2>&1 &\necho $! >> "${pids}"\nsleep 5\nexit 0\n`, { mode: 0o755 });
  return { bin: dir, pids };
}

describe.skipIf(spawnCapture === undefined || process.platform !== "linux")("a git that hangs", () => {
  it("is killed past the timeout, with what it started, by spawnCapture (null) and by runGitStatus on either spawn", async () => {
    if (spawnCapture === undefined) return;
    const { bin, pids } = hangingGit();
    const env = [`PATH=${bin}:/usr/bin:/bin`];
    expect(spawnCapture("git", ["status"], env)?.length).toBe(0); // left alone, it ends well (after 5 s)
    const before = fs.readFileSync(pids, "utf8");
    expect(spawnCapture("git", ["status"], env, 1500)).toBeNull();
    const child = Number.parseInt(fs.readFileSync(pids, "utf8").slice(before.length), 10);
    expect(child).toBeGreaterThan(1); // it did start
    // SIGKILL is delivered, not awaited: the state polled until it shows (bounded).
    const gone = (): boolean => {
      for (let i = 0; i < 500 && alive(child); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      return !alive(child);
    };
    expect(gone()).toBe(true);
    const where = { env: { PATH: `${bin}:/usr/bin:/bin` }, homeDir: os.homedir(), deadlineAt: Date.now() + 1500 };
    expect(runGitStatus(os.tmpdir(), where)).toBeNull();
    expect(runGitStatus(os.tmpdir(), { ...where, deadlineAt: Date.now() + 1500, spawn: spawnCapture })).toBeNull();
    // In the background too (a session start's status, the daemon's analyze): null past the deadline, not never.
    expect(await runGitStatusAsync(os.tmpdir(), { ...where, deadlineAt: Date.now() + 1500 })).toBeNull();
    // What the Node path left (spawnSync kills git, not what git started): ended here.
    for (const pid of fs
      .readFileSync(pids, "utf8")
      .split("\n")
      .filter((l) => l !== "")) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone
      }
    }
    fs.rmSync(bin, { recursive: true, force: true });
  }, 30_000);
});

describe.skipIf(spawnCapture === undefined)("snapshots with git started by posix_spawn", () => {
  snapshotOracleSuite("auto", spawnCapture);
});
