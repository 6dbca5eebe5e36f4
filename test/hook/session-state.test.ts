import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSessionState, updateSessionState } from "../../src/hook/session-state.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-state-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lockOf = (): string => {
  updateSessionState(dir, "s", (c) => ({ ...c, queued: ["x"] }));
  const file = fs.readdirSync(path.join(dir, "sessions")).find((f) => f.endsWith(".json")) as string;
  return path.join(dir, "sessions", `${file}.lock`);
};

describe("session state under a lock", () => {
  it("takes over a lock left by a process that died", () => {
    const lock = lockOf();
    fs.writeFileSync(lock, "");
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    updateSessionState(dir, "s", (c) => ({ ...c, queued: [...c.queued, "y"] }));
    expect(readSessionState(dir, "s").queued).toEqual(["x", "y"]);
    // Taken over, then released: a lock that was only waited out and ignored would still be there.
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("goes on without the lock rather than keep an agent waiting when another process holds it", () => {
    const lock = lockOf();
    fs.writeFileSync(lock, "");
    updateSessionState(dir, "s", (c) => ({ ...c, queued: [...c.queued, "z"] }));
    expect(readSessionState(dir, "s").queued).toEqual(["x", "z"]);
    expect(fs.existsSync(lock)).toBe(true); // not its lock to remove
  });

  it("writes nothing when an update leaves the state as it was", () => {
    lockOf();
    const file = path.join(dir, "sessions", fs.readdirSync(path.join(dir, "sessions")).find((f) => f.endsWith(".json")) as string);
    const before = fs.statSync(file).ino;
    updateSessionState(dir, "s", (c) => ({ ...c, queued: [...c.queued] }));
    // A write is a temp file renamed over this one: a new inode.
    expect(fs.statSync(file).ino).toBe(before);
    updateSessionState(dir, "s", (c) => ({ ...c, queued: [...c.queued, "y"] }));
    expect(fs.statSync(file).ino).not.toBe(before);
    expect(readSessionState(dir, "s").queued).toEqual(["x", "y"]);
  });

  it("removes the file once nothing is left", () => {
    lockOf();
    updateSessionState(dir, "s", () => ({ queued: [], touched: {} }));
    expect(fs.readdirSync(path.join(dir, "sessions"))).toEqual([]);
  });
});
