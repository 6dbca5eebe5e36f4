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

  it("removes the file once nothing is left", () => {
    lockOf();
    updateSessionState(dir, "s", () => ({ queued: [], touched: {} }));
    expect(fs.readdirSync(path.join(dir, "sessions"))).toEqual([]);
  });
});
