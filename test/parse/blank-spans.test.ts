import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blanking } from "../../src/parse/blank-spans.js";

describe("blanking: a copy of a text with spans put out as spaces", () => {
  it("keeps the text's length and every line break; inside a span, spaces; outside, the text itself", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "é", "\t") }), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        // ascending, non-overlapping spans, as a scan reading left to right hands them over
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const spans: Array<[number, number]> = [];
        for (let k = 0; k + 1 < at.length; k += 2) spans.push([at[k] as number, at[k + 1] as number]);
        const { blank, done } = blanking(text);
        for (const [from, to] of spans) blank(from, to);
        const copy = done();
        expect(copy.length).toBe(text.length);
        for (let i = 0; i < text.length; i++) {
          const inside = spans.some(([from, to]) => i >= from && i < to);
          expect(copy[i]).toBe(inside && text[i] !== "\n" ? " " : text[i]);
        }
      }),
    );
  });
});
