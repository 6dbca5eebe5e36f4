import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStatusV2 } from "../../src/snapshot/git-status.js";

const OID = "a".repeat(40);
const Z = "0".repeat(40);

describe("parseStatusV2", () => {
  it("reads ordinary, renamed, unmerged and untracked records, and skips headers and ignored ones", () => {
    const out = Buffer.from(
      [
        "# branch.oid abc",
        `1 .M N... 100644 100644 100644 ${OID} ${OID} src/a file.ts`,
        `1 D. N... 100644 000000 000000 ${OID} ${Z} gone.ts`,
        `1 .T N... 100644 100644 120000 ${OID} ${OID} link`,
        `2 R. N... 100644 100644 100644 ${OID} ${OID} R100 new name.ts\0old name.ts`,
        `u UU N... 100644 100644 100644 100644 ${Z} ${OID} ${Z} both.ts`,
        "? untracked dir/x.txt",
        "? nested/",
        "! ignored.log",
        "",
      ].join("\0"),
    );
    const r = parseStatusV2(out);
    expect(r.complete).toBe(true);
    expect(r.records).toEqual([
      { kind: "changed", path: "src/a file.ts", worktree: "M", indexMode: 0o100644, indexOid: OID, headMode: 0o100644, headOid: OID },
      { kind: "changed", path: "gone.ts", worktree: ".", indexMode: 0, indexOid: Z, headMode: 0o100644, headOid: OID },
      { kind: "changed", path: "link", worktree: "T", indexMode: 0o100644, indexOid: OID, headMode: 0o100644, headOid: OID },
      { kind: "changed", path: "new name.ts", worktree: ".", indexMode: 0o100644, indexOid: OID, headMode: 0o100644, headOid: OID },
      { kind: "unmerged", path: "both.ts", headMode: 0o100644, headOid: OID },
      { kind: "untracked", path: "untracked dir/x.txt" },
      { kind: "untracked", path: "nested/" },
    ]);
  });

  it("reports names that are not UTF-8, and stops at what it does not understand instead of misreading it", () => {
    const bad = Buffer.concat([Buffer.from("? caf"), Buffer.from([0xe9]), Buffer.from(".txt\0")]);
    expect(parseStatusV2(bad).nonUtf8).toHaveLength(1);
    expect(parseStatusV2(Buffer.from("? a\0X what\0? b\0")).complete).toBe(false);
    expect(parseStatusV2(Buffer.from("1 .M N... 100644\0")).complete).toBe(false);
    expect(parseStatusV2(Buffer.from("? no end")).complete).toBe(false);
  });

  it("never throws, and every path it returns came from the input (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const r = parseStatusV2(Buffer.from(bytes));
        for (const rec of r.records) expect(Buffer.from(bytes).includes(Buffer.from(rec.path, "utf8")) || r.nonUtf8.includes(rec.path)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
