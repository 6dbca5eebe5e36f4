import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeRanges, rangesMeet } from "../../src/coordination/line-ranges.js";
import { changedRanges, targetRanges } from "../../src/hook/edit-ranges.js";

const lines = (n: number): string => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("edit ranges: where an edit is, in the base's lines", () => {
  it("gives each changed hunk, insertions as empty ranges", () => {
    expect(changedRanges("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual([
      [2, 2],
      [4, 3],
    ]);
    expect(changedRanges("a\nb\n", "x\na\nb\n")).toEqual([[1, 0]]);
    expect(changedRanges("a\nb\nc\n", "a\nc\n")).toEqual([[2, 2]]);
    expect(changedRanges("a\n", "a\n")).toEqual([]);
  });

  it("places an edit's old text in the base, through the session's own changes", () => {
    const base = lines(10);
    expect(targetRanges(base, base, [{ old: "line 4\nline 5" }])).toEqual([[4, 5]]);
    // The session inserted two lines at the top: line 6 of its text is line 4 of the base.
    const current = `new 1\nnew 2\n${base}`;
    expect(targetRanges(base, current, [{ old: "line 4\n" }])).toEqual([[4, 4]]);
    // An edit of a line the session itself added lands where that addition is.
    expect(targetRanges(base, current, [{ old: "new 2" }])).toEqual([[1, 0]]);
    // Several edits, every occurrence with replace_all; text not found or empty: not known.
    expect(targetRanges("x\ny\nx\n", "x\ny\nx\n", [{ old: "x", all: true }])).toEqual([
      [1, 1],
      [3, 3],
    ]);
    expect(targetRanges(base, base, [{ old: "line 2\n" }, { old: "line 9" }])).toEqual([
      [2, 2],
      [9, 9],
    ]);
    expect(targetRanges(base, base, [{ old: "missing" }])).toBeNull();
    expect(targetRanges(base, base, [{ old: "" }])).toBeNull();
  });

  it("says ranges meet when they overlap or touch, as a three-way merge conflicts", () => {
    expect(rangesMeet([[3, 3]], [[4, 4]])).toBe(true);
    expect(rangesMeet([[3, 3]], [[5, 5]])).toBe(false);
    expect(rangesMeet([[5, 4]], [[5, 4]])).toBe(true);
    expect(rangesMeet([[5, 4]], [[7, 8]])).toBe(false);
    expect(
      describeRanges([
        [2, 2],
        [4, 3],
        [10, 14],
      ]),
    ).toBe("2, after 3, 10-14");
  });

  it("never says two edits are apart when git's three-way merge of them conflicts (git merge-file is the oracle)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-ranges-"));
    try {
      const edit = fc.record({ at: fc.nat(30), drop: fc.nat(3), add: fc.array(fc.constantFrom("x", "y", "z"), { maxLength: 3 }) });
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 30 }), edit, edit, (n, a, b) => {
          const base = Array.from({ length: n }, (_, i) => `line ${i + 1}`);
          const apply = (e: typeof a, tag: string): string[] => {
            const at = Math.min(e.at, n);
            return [...base.slice(0, at), ...e.add.map((x) => `${tag} ${x}`), ...base.slice(at + e.drop)];
          };
          const [ours, theirs] = [apply(a, "ours"), apply(b, "theirs")];
          const text = (ls: string[]) => (ls.length === 0 ? "" : `${ls.join("\n")}\n`);
          const ra = changedRanges(text(base), text(ours));
          const rb = changedRanges(text(base), text(theirs));
          if (ra.length === 0 || rb.length === 0 || rangesMeet(ra, rb)) return;
          for (const [f, t] of [
            ["base", base],
            ["ours", ours],
            ["theirs", theirs],
          ] as const)
            fs.writeFileSync(path.join(dir, f), text([...t]));
          const merged = spawnSync("git", ["merge-file", "-p", path.join(dir, "ours"), path.join(dir, "base"), path.join(dir, "theirs")], { encoding: "utf8" });
          expect(merged.status, `${JSON.stringify({ n, a, b, ra, rb })}`).toBe(0);
        }),
        { numRuns: 300, seed: 7 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
