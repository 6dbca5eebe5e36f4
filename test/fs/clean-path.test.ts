import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parentAndName, resolvePath } from "../../src/fs/clean-path.js";

// Paths of `a`, `b`, `.` and `/`: every kind of segment (empty, `.`, `..`, names with dots), leading and trailing `/`.
const paths = fc.array(fc.constantFrom("a", "b", ".", "/", ".a", "a."), { maxLength: 12 }).map((parts) => parts.join(""));

describe("resolvePath and parentAndName", () => {
  it("answer as path.resolve, path.dirname and path.basename do, for any path", () => {
    fc.assert(
      fc.property(paths, paths, (cwdTail, p) => {
        const cwd = path.resolve("/", cwdTail);
        expect(resolvePath(cwd, p)).toBe(path.resolve(cwd, p));
        expect(parentAndName(p)).toEqual([path.dirname(p), path.basename(p)]);
        expect(parentAndName(cwd)).toEqual([path.dirname(cwd), path.basename(cwd)]);
      }),
      { numRuns: 5000 },
    );
    expect(resolvePath("/work", "src/a.ts")).toBe("/work/src/a.ts");
    expect(resolvePath("/", "a")).toBe("/a");
    expect(resolvePath("/work", "/abs/b.py")).toBe("/abs/b.py");
    expect(parentAndName("/a")).toEqual(["/", "a"]);
  });
});
