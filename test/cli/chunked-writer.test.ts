import { describe, expect, it } from "vitest";
import { chunkedWriter } from "../../src/cli/chunked-writer.js";

describe("chunkedWriter", () => {
  it("writes what it is given, in order, in chunks of at most its size, copying each piece at once", () => {
    const written: Uint8Array[] = [];
    const out = chunkedWriter((chunk) => void written.push(chunk), 8);
    const borrowed = Buffer.from("abc");
    const expected: string[] = [];
    for (const text of ["abc", "defgh", "", "ij", "a piece over the size", "k", "lmnopqrs", "t"]) {
      // The same buffer each time, overwritten as soon as push returns (as a cache's borrowed bytes are).
      const piece = text.length <= borrowed.length ? borrowed.subarray(0, text.length) : Buffer.from(text);
      piece.write(text);
      out.push(piece);
      borrowed.fill("x");
      expected.push(text);
    }
    out.end();
    expect(Buffer.concat(written).toString()).toBe(expected.join(""));
    // Only a piece larger than a chunk goes out on its own, larger than the size.
    expect(written.map((c) => c.length)).toEqual([8, 2, 21, 1, 8, 1]);
    out.end();
    expect(written).toHaveLength(6);
  });
});
