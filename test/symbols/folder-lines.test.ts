import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SETTLED_MS, type FileStamp } from "../../src/symbols/file-index.js";
import { createFolderLines, type FolderLines } from "../../src/symbols/folder-lines.js";

let dir: string;
let src: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-folder-lines-"));
  src = path.join(dir, "src");
  fs.mkdirSync(src);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const linesDir = (): string => path.join(dir, "lines");
/** A clock far enough after every file written here: they have all settled. */
const later = (): number => Date.now() + SETTLED_MS + 1000;
const write = (name: string, text = `${name}\n`, folder = src): { abs: string; stamp: FileStamp } => {
  const abs = path.join(folder, name);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  return { abs, stamp: fs.statSync(abs) };
};
/** A line's text: its printed form and diagnostics, as read back (copied: the bytes are borrowed). */
const text = (line: { printed: Buffer; diagnostics: Buffer } | null): string | null => (line === null ? null : `${line.printed.toString()}|${line.diagnostics.toString()}`);
const put = (lines: FolderLines, f: { abs: string; stamp: FileStamp }, hash: string, printed: string, diagnostics = "[]"): void =>
  lines.put(f.abs, f.stamp, hash, "typescript", Buffer.from(printed), diagnostics);

describe("createFolderLines", () => {
  it("answers by stat and by content hash, across processes, and by nothing else", () => {
    const a = write("a.ts");
    const b = write("b.ts");
    const first = createFolderLines(linesDir(), { now: later });
    expect(first.byStamp(a.abs, a.stamp, "typescript")).toBeNull();
    put(first, a, "aaaa", '"language":"typescript","symbols":[1]');
    put(first, b, "bbbb", '"language":"typescript","symbols":[2]', '[{"code":"x"}]');
    first.save();
    expect(fs.readdirSync(linesDir())).toHaveLength(1);

    const second = createFolderLines(linesDir(), { now: later });
    expect(second.byStamp(a.abs, a.stamp, "typescript")?.hash).toBe("aaaa");
    expect(text(second.byStamp(a.abs, a.stamp, "typescript"))).toBe('"language":"typescript","symbols":[1]|[]');
    expect(text(second.byStamp(b.abs, b.stamp, "typescript"))).toBe('"language":"typescript","symbols":[2]|[{"code":"x"}]');
    expect(text(second.byHash(b.abs, "bbbb", "typescript"))).toBe('"language":"typescript","symbols":[2]|[{"code":"x"}]');
    // Any field of the stat that differs, another hash, another language: no answer.
    for (const changed of [{ size: a.stamp.size + 1 }, { mtimeMs: a.stamp.mtimeMs + 1 }, { ctimeMs: a.stamp.ctimeMs + 1 }, { ino: a.stamp.ino + 1 }, { dev: a.stamp.dev + 1 }]) {
      expect(second.byStamp(a.abs, { ...a.stamp, ...changed }, "typescript")).toBeNull();
    }
    expect(second.byHash(a.abs, "bbbb", "typescript")).toBeNull();
    expect(second.byStamp(a.abs, a.stamp, "python")).toBeNull();
    expect(second.byHash(path.join(src, "c.ts"), "aaaa", "typescript")).toBeNull();
    // A real change: its stat is not the kept one (the content hash still answers for the old bytes).
    fs.writeFileSync(a.abs, "changed\n");
    expect(second.byStamp(a.abs, fs.statSync(a.abs), "typescript")).toBeNull();
    expect(second.byHash(a.abs, "aaaa", "typescript")?.hash).toBe("aaaa");
  });

  it("keeps no stat for a file changed less than SETTLED_MS before it, and still answers by its hash", () => {
    const a = write("a.ts");
    const lines = createFolderLines(linesDir(), { now: Date.now });
    put(lines, a, "aaaa", "one");
    lines.save();
    // Found by its hash again while still too recent: nothing new to keep, so the folder's file is not rewritten
    // (a save replaces it with a new inode).
    const inode = (): number => fs.statSync(path.join(linesDir(), fs.readdirSync(linesDir())[0] ?? "")).ino;
    const was = inode();
    const recent = createFolderLines(linesDir(), { now: Date.now });
    expect(text(recent.byHash(a.abs, "aaaa", "typescript"))).toBe("one|[]");
    put(recent, a, "aaaa", "one");
    recent.save();
    expect(inode()).toBe(was);
    const again = createFolderLines(linesDir(), { now: later });
    expect(again.byStamp(a.abs, a.stamp, "typescript")).toBeNull();
    expect(text(again.byHash(a.abs, "aaaa", "typescript"))).toBe("one|[]");
    // Put again once settled (the same bytes under a newer clock): now the stat answers.
    put(again, a, "aaaa", "one");
    again.save();
    expect(text(createFolderLines(linesDir(), { now: later }).byStamp(a.abs, a.stamp, "typescript"))).toBe("one|[]");
  });

  it("keeps the lines a save did not put while their files exist", () => {
    const [a, b, c] = ["a.ts", "b.ts", "c.ts"].map((n) => write(n)) as [ReturnType<typeof write>, ReturnType<typeof write>, ReturnType<typeof write>];
    const first = createFolderLines(linesDir(), { now: later });
    put(first, a, "aaaa", "A");
    put(first, b, "bbbb", "B");
    put(first, c, "cccc", "C");
    first.save();
    fs.rmSync(c.abs);
    const second = createFolderLines(linesDir(), { now: later });
    // b is asked for (and answered: not put); a is put anew; c is gone.
    expect(text(second.byStamp(b.abs, b.stamp, "typescript"))).toBe("B|[]");
    put(second, a, "aaa2", "A2");
    second.save();
    const third = createFolderLines(linesDir(), { now: later });
    expect(text(third.byStamp(a.abs, a.stamp, "typescript"))).toBe("A2|[]");
    expect(text(third.byStamp(b.abs, b.stamp, "typescript"))).toBe("B|[]");
    expect(third.byHash(c.abs, "cccc", "typescript")).toBeNull();
    const [file] = fs.readdirSync(linesDir());
    const head = JSON.parse(
      fs
        .readFileSync(path.join(linesDir(), file ?? ""))
        .toString("utf8")
        .split("\n")[0] ?? "",
    ) as { files: Array<[string]> };
    expect(head.files.map((f) => f[0])).toEqual(["a.ts", "b.ts"]);
  });

  it("answers nothing from a file cut short, grown, corrupt, of another version or of another folder", () => {
    const a = write("a.ts");
    const lines = createFolderLines(linesDir(), { now: later });
    put(lines, a, "aaaa", "A".repeat(100));
    lines.save();
    const [file] = fs.readdirSync(linesDir());
    const at = path.join(linesDir(), file ?? "");
    const good = fs.readFileSync(at);
    expect(text(createFolderLines(linesDir(), { now: later }).byStamp(a.abs, a.stamp, "typescript"))).toBe(`${"A".repeat(100)}|[]`);
    const headOf = (b: Buffer): string => b.toString("utf8", 0, b.indexOf(10));
    const bodyOf = (b: Buffer): Buffer => b.subarray(b.indexOf(10));
    for (const bad of [
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.from("x")]),
      Buffer.from("not json\n"),
      Buffer.concat([Buffer.from(headOf(good).replace('"x":', '"x":-1,"was":')), bodyOf(good)]),
      Buffer.concat([Buffer.from(headOf(good).replace(JSON.stringify(src), JSON.stringify(path.join(dir, "other")))), bodyOf(good)]),
    ]) {
      fs.writeFileSync(at, bad);
      const reader = createFolderLines(linesDir(), { now: later });
      expect(reader.byStamp(a.abs, a.stamp, "typescript")).toBeNull();
      expect(reader.byHash(a.abs, "aaaa", "typescript")).toBeNull();
    }
  });

  it("reads lines in any order, across folders visited again, and beyond a window", () => {
    const other = path.join(dir, "other");
    const files = Array.from({ length: 40 }, (_, i) => write(`f${String(i).padStart(2, "0")}.ts`, `${i}\n`, i % 2 === 0 ? src : other));
    // Lines of 50 KB (two megabytes in all: several windows), one of them larger than a window.
    const body = (i: number): string => `${i}:`.padEnd(i === 7 ? 700 * 1024 : 50 * 1024, String.fromCharCode(97 + (i % 26)));
    const writer = createFolderLines(linesDir(), { now: later });
    files.forEach((f, i) => {
      put(writer, f, `h${i}`, body(i));
    });
    writer.save();
    const reader = createFolderLines(linesDir(), { now: later });
    // Backwards, alternating between the two folders at each file, then forwards.
    for (const order of [[...files.keys()].reverse(), [...files.keys()]]) {
      for (const i of order) {
        const f = files[i] as (typeof files)[number];
        expect(reader.byStamp(f.abs, f.stamp, "typescript")?.printed.toString()).toBe(body(i));
      }
    }
  });

  it("reads a folder's file again when another process replaced it while it was closed", () => {
    // Twenty folders: more than stay open at once, so the first one's file is closed by the time it is asked again.
    const files = Array.from({ length: 20 }, (_, i) => write("a.ts", `${i}\n`, path.join(dir, `folder${String(i).padStart(2, "0")}`)));
    const writer = createFolderLines(linesDir(), { now: later });
    files.forEach((f, i) => {
      put(writer, f, `h${i}`, `line ${i}`);
    });
    writer.save();
    const reader = createFolderLines(linesDir(), { now: later });
    files.forEach((f, i) => {
      expect(text(reader.byStamp(f.abs, f.stamp, "typescript"))).toBe(`line ${i}|[]`);
    });
    const first = files[0] as (typeof files)[number];
    const replacer = createFolderLines(linesDir(), { now: later });
    // (a longer line: the old table's offsets would read the wrong bytes)
    put(replacer, first, "new", "replaced, and longer than it was");
    replacer.save();
    expect(text(reader.byStamp(first.abs, first.stamp, "typescript"))).toBe("replaced, and longer than it was|[]");
    expect(reader.byHash(first.abs, "h0", "typescript")).toBeNull();
    // Again, with the bytes last read still the first folder's: the others are opened (asked for a hash none has),
    // which closes its file, and read nothing. What was read of the old file answers nothing of the new one.
    const again = createFolderLines(linesDir(), { now: later });
    expect(text(again.byStamp(first.abs, first.stamp, "typescript"))).toBe("replaced, and longer than it was|[]");
    for (const f of files.slice(1)) expect(again.byHash(f.abs, "none", "typescript")).toBeNull();
    const shorter = createFolderLines(linesDir(), { now: later });
    // (a longer hash: its line starts inside what was read of the old file)
    put(shorter, first, "a-longer-hash", "R");
    shorter.save();
    expect(text(again.byStamp(first.abs, first.stamp, "typescript"))).toBe("R|[]");
  });

  it("keeps at most maxFolders folder files, dropping the least recently written", () => {
    for (let i = 0; i < 5; i++) {
      const f = write("a.ts", "a\n", path.join(dir, `folder${i}`));
      const lines = createFolderLines(linesDir(), { now: later, maxFolders: 3 });
      put(lines, f, `h${i}`, "A");
      lines.save();
    }
    expect(fs.readdirSync(linesDir())).toHaveLength(3);
  });
});
