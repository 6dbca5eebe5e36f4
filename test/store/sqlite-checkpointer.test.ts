import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/store/sqlite-checkpointer.js";

// The WAL index (`-shm`) of SQLite's WAL format: mxFrame (frames in the WAL) at byte 16 of the header, and
// nBackfill (frames already copied into the database file) at byte 96, both in the machine's byte order.
function walProgress(file: string): { frames: number; backfilled: number } {
  const shm = fs.readFileSync(`${file}-shm`);
  return os.endianness() === "LE" ? { frames: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) } : { frames: shm.readUInt32BE(16), backfilled: shm.readUInt32BE(96) };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

describe("startCheckpointer", () => {
  let dir: string;
  let file: string;
  let db: Database.Database;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-checkpointer-"));
    file = path.join(dir, "db.sqlite");
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0"); // only the worker checkpoints
    db.exec("CREATE TABLE t (x TEXT)");
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (n: number) => {
    const insert = db.prepare("INSERT INTO t (x) VALUES (?)");
    for (let i = 0; i < n; i++) insert.run("x".repeat(500));
  };

  it("checkpoints after the writer reports commits, and again after the next ones", async () => {
    const checkpointer = startCheckpointer(
      file,
      (e) => {
        throw e;
      },
      20,
    );
    try {
      write(50);
      checkpointer.committed();
      expect(await until(() => walProgress(file).backfilled === walProgress(file).frames, 3000)).toBe(true);
      expect(walProgress(file).frames).toBeGreaterThan(0);
      write(50); // the WAL starts over (it was all copied), so these are frames 1..n again
      const pending = walProgress(file);
      expect(pending.backfilled).toBeLessThan(pending.frames);
      checkpointer.committed();
      expect(await until(() => walProgress(file).backfilled === walProgress(file).frames, 3000)).toBe(true);
    } finally {
      await checkpointer.stop();
    }
  });

  it("does nothing while no commit is reported (an idle server is not woken), and checkpoints once more at stop", async () => {
    const checkpointer = startCheckpointer(
      file,
      (e) => {
        throw e;
      },
      20,
    );
    write(50);
    expect(walProgress(file).backfilled).toBe(0);
    await checkpointer.stop();
    // The one checkpoint it made is stop's: no commit reported, no wake-up.
    expect(checkpointer.checkpoints()).toBe(1);
    const after = walProgress(file);
    expect(after.frames).toBeGreaterThan(0);
    expect(after.backfilled).toBe(after.frames);
  });
});
