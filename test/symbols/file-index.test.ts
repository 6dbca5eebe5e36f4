import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileIndex, folderFileName, SETTLED_MS, type FileStamp } from "../../src/symbols/file-index.js";

let dir: string;
let src: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-file-index-"));
  src = path.join(dir, "src");
  fs.mkdirSync(src);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const indexDir = (): string => path.join(dir, "index");
const nameOf = (folder: string): string => Buffer.from(folder).toString("hex").slice(-32);
const write = (name: string, text: string): { abs: string; stamp: FileStamp } => {
  const abs = path.join(src, name);
  fs.writeFileSync(abs, text);
  return { abs, stamp: fs.statSync(abs) };
};
/** A clock far enough after every file written here: they have all settled. */
const later = (): number => Date.now() + SETTLED_MS + 1000;

describe("createFileIndex", () => {
  it("gives back a recorded hash for the same stat only, across processes (a saved file)", () => {
    const a = write("a.ts", "export const a = 1;\n");
    const b = write("b.ts", "export const b = 2;\n");
    const first = createFileIndex(indexDir(), { nameOf, now: later });
    expect(first.lookup(a.abs, a.stamp)).toBeNull();
    first.record(a.abs, a.stamp, "aaaa");
    first.record(b.abs, b.stamp, "bbbb");
    expect(first.lookup(a.abs, a.stamp)).toBe("aaaa");
    first.save();
    expect(fs.readdirSync(indexDir())).toHaveLength(1);

    const second = createFileIndex(indexDir(), { nameOf, now: later });
    expect(second.lookup(a.abs, a.stamp)).toBe("aaaa");
    expect(second.lookup(b.abs, b.stamp)).toBe("bbbb");
    // Any field of the stat that differs: no answer (the file is read and hashed again).
    for (const changed of [{ size: a.stamp.size + 1 }, { mtimeMs: a.stamp.mtimeMs + 1 }, { ctimeMs: a.stamp.ctimeMs + 1 }, { ino: a.stamp.ino + 1 }, { dev: a.stamp.dev + 1 }]) {
      expect(second.lookup(a.abs, { ...a.stamp, ...changed })).toBeNull();
    }
    // A real change: its stat is not the recorded one.
    fs.writeFileSync(a.abs, "export const a = 3;\n");
    expect(second.lookup(a.abs, fs.statSync(a.abs))).toBeNull();
  });

  it("does not record a file changed less than SETTLED_MS before its stat, and forgets what it had for it", () => {
    const a = write("a.ts", "one\n");
    const settledClock = createFileIndex(indexDir(), { nameOf, now: later });
    settledClock.record(a.abs, a.stamp, "one");
    settledClock.save();
    // The file changes; its new stat is taken at once: too recent to trust (another change within the file system's
    // timestamp granularity could leave the same stat).
    fs.writeFileSync(a.abs, "two\n");
    const fresh = fs.statSync(a.abs);
    const now = createFileIndex(indexDir(), { nameOf, now: Date.now });
    expect(now.lookup(a.abs, fresh)).toBeNull();
    now.record(a.abs, fresh, "two");
    expect(now.lookup(a.abs, fresh)).toBeNull();
    now.save();
    const again = createFileIndex(indexDir(), { nameOf, now: later });
    expect(again.lookup(a.abs, a.stamp)).toBeNull();
    expect(again.lookup(a.abs, fresh)).toBeNull();
  });

  it("keeps only the names that still exist when it saves, and ignores a file that is not one of its own", () => {
    const a = write("a.ts", "a\n");
    const b = write("b.ts", "b\n");
    const first = createFileIndex(indexDir(), { nameOf, now: later });
    first.record(a.abs, a.stamp, "aaaa");
    first.record(b.abs, b.stamp, "bbbb");
    first.save();
    fs.rmSync(b.abs);
    const c = write("c.ts", "c\n");
    const second = createFileIndex(indexDir(), { nameOf, now: later });
    second.record(c.abs, c.stamp, "cccc");
    second.save();
    const [file] = fs.readdirSync(indexDir());
    const doc = JSON.parse(fs.readFileSync(path.join(indexDir(), file ?? ""), "utf8")) as { dir: string; files: Record<string, unknown> };
    expect(doc.dir).toBe(src);
    expect(Object.keys(doc.files)).toEqual(["a.ts", "c.ts"]);

    // Another folder's index under this folder's name (a hash collision), a corrupt one, another version: empty.
    const at = path.join(indexDir(), file ?? "");
    for (const text of [JSON.stringify({ ...doc, dir: "/elsewhere" }), "{not json", JSON.stringify({ ...doc, v: 2 }), "null"]) {
      fs.writeFileSync(at, text);
      expect(createFileIndex(indexDir(), { nameOf, now: later }).lookup(a.abs, a.stamp)).toBeNull();
    }
  });

  it("keeps at most maxFolders folder files, dropping the least recently written", () => {
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const folder = path.join(src, `d${i}`);
      fs.mkdirSync(folder);
      const abs = path.join(folder, "x.ts");
      fs.writeFileSync(abs, `${i}\n`);
      const index = createFileIndex(indexDir(), { nameOf, now: later, maxFolders: 3 });
      index.record(abs, fs.statSync(abs), `h${i}`);
      index.save();
      names.push(nameOf(folder));
      // (distinct mtimes: the order of writing decides)
      fs.utimesSync(path.join(indexDir(), `${nameOf(folder)}.json`), new Date(1_000_000 * (i + 1)), new Date(1_000_000 * (i + 1)));
    }
    // (each process prunes once, after its first write: the fourth and the fifth each removed the oldest)
    expect(fs.readdirSync(indexDir()).sort()).toEqual(
      names
        .slice(2)
        .map((n) => `${n}.json`)
        .sort(),
    );
  });
});

describe("folderFileName", () => {
  it("names each folder by 16 hex digits, the same each time, different for nearby paths", () => {
    const folders = ["/a", "/b", "/a/b", "/a/c", "/tmp/x/src", "/tmp/x/src2", "/tmp/y/src", "C:\\src", ""];
    const names = folders.map((f) => folderFileName(f));
    for (const n of names) expect(n).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(names).size).toBe(folders.length);
    expect(folders.map((f) => folderFileName(f))).toEqual(names);
  });
});
