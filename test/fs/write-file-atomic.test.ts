import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/fs/write-file-atomic.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-write-atomic-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("writeFileAtomic", () => {
  it("writes a string, bytes, or pieces (more than one writev takes, empty ones among them), leaving no temp file", () => {
    const file = path.join(dir, "deep", "f");
    writeFileAtomic(file, "text");
    expect(fs.readFileSync(file, "utf8")).toBe("text");
    writeFileAtomic(file, Buffer.from("bytes"));
    expect(fs.readFileSync(file, "utf8")).toBe("bytes");
    const pieces = Array.from({ length: 2500 }, (_, i) => Buffer.from(i % 7 === 0 ? "" : `${i},`.repeat(1 + (i % 5))));
    writeFileAtomic(file, pieces);
    expect(fs.readFileSync(file)).toEqual(Buffer.concat(pieces));
    writeFileAtomic(file, []);
    expect(fs.readFileSync(file)).toHaveLength(0);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["f"]);
  });
});
