import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { statMany } from "../../src/fs/stat-many.js";
import { loadFlatParser } from "../../src/parse/native-parser.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-stat-many-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("statMany", () => {
  it("gives fs.statSync's numbers, through the native addon and without it, for files, folders, links and nothing", () => {
    const paths: string[] = [];
    for (let i = 0; i < 70; i++) {
      const f = path.join(dir, `f${i}.ts`);
      fs.writeFileSync(f, "x".repeat(i));
      paths.push(f);
    }
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "sub", "é ü.py"), "print(1)\n");
    fs.symlinkSync(path.join(dir, "f1.ts"), path.join(dir, "link"));
    fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "dangling"));
    paths.push(path.join(dir, "sub"), path.join(dir, "sub", "é ü.py"), path.join(dir, "link"), path.join(dir, "dangling"), path.join(dir, "missing"), path.join(dir, "f1.ts", "under-a-file"), "a\0b");
    const expected = paths.map((p) => {
      if (p.includes("\0") || !fs.existsSync(p)) return undefined;
      const s = fs.statSync(p);
      return { isFile: s.isFile(), size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, dev: s.dev };
    });
    expect(statMany(paths, { native: false })).toEqual(expected);
    // The addon is built wherever this project's tests run (npm ci builds it), but not on Windows.
    if (process.platform !== "win32") expect(typeof loadFlatParser()?.statMany).toBe("function");
    expect(statMany(paths, { native: true })).toEqual(expected);
    expect(statMany(paths)).toEqual(expected);
    expect(statMany([])).toEqual([]);
  });
});
