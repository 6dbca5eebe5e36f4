import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeRange, type LexicalIndex } from "../../src/symbols/normalize.js";

// The normaliser emits runs of plain characters at once; this is the rule it implements, one character at a time
// (the implementation before that change), as the oracle.
const OPERATORS = new Set(["+", "-", "*", "/", "%", "<", ">", "=", "!", "&", "|", "^", "~", "?", ":", "."]);
const CLOSERS = new Set([")", "]", "}", ">"]);
const isWord = (c: string): boolean => /[A-Za-z0-9_$"'`]/.test(c) || (c.charCodeAt(0) >= 128 && /[\p{L}\p{N}]/u.test(c));
const isSpace = (code: number): boolean => [32, 9, 10, 13, 12, 11, 0xa0, 0xfeff].includes(code);

function reference(index: LexicalIndex, start: number, end: number, dropSeparators: boolean): string {
  const src = index.source;
  const inPair = (pairs: readonly number[], i: number): number => {
    for (let k = 0; k < pairs.length; k += 2) if ((pairs[k] as number) <= i && i < (pairs[k + 1] as number)) return pairs[k + 1] as number;
    return -1;
  };
  let out = "";
  let last = "";
  let pending = false;
  let force = false;
  const emit = (text: string): void => {
    const first = text[0] ?? "";
    if (out !== "" && (force || (pending && ((isWord(last) && isWord(first)) || (OPERATORS.has(last) && OPERATORS.has(first)))))) out += " ";
    out += text;
    last = text[text.length - 1] ?? "";
    pending = false;
    force = false;
  };
  const nextCode = (from: number): number => {
    for (let j = from; j < end; ) {
      const hole = inPair(index.comments, j);
      if (hole >= 0) j = hole;
      else if (!isSpace(src.charCodeAt(j))) return j;
      else j++;
    }
    return -1;
  };
  let i = start;
  while (i < end) {
    const hole = inPair(index.comments, i);
    if (hole >= 0) {
      i = hole;
      pending = true;
      continue;
    }
    const string = inPair(index.strings, i);
    if (string >= 0) {
      const e = Math.min(string, end);
      emit(src.slice(i, e));
      i = e;
      continue;
    }
    const c = src[i] as string;
    if (isSpace(src.charCodeAt(i))) {
      pending = true;
      i++;
      continue;
    }
    if (c === "," || (c === ";" && dropSeparators)) {
      const j = nextCode(i + 1);
      if (dropSeparators || (c === "," && (j < 0 || CLOSERS.has(src[j] as string)))) {
        pending = true;
        i++;
        continue;
      }
      emit(",");
      force = true;
      i++;
      continue;
    }
    if (c === "=" && src[i + 1] === ">") {
      force = out !== "";
      emit("=>");
      force = true;
      i += 2;
      continue;
    }
    emit(c);
    i++;
  }
  return out;
}

type Piece = { kind: "code" | "comment" | "string" | "member"; text: string };

const CODE = ["a", "b1", "$x", "=", "=>", ">", "<", ",", ";", " ", "  ", "\n", "\t", "\r\n", "\v", "(", ")", "{", "}", "[", "]", ".", "?", ":", "!", "é", "ü1", "😀", "\u00a0", "\ufeff", "+", "-"];

const piece: fc.Arbitrary<Piece> = fc.oneof(
  {
    arbitrary: fc.array(fc.constantFrom(...CODE), { maxLength: 8 }).map((parts) => ({ kind: "code" as const, text: parts.join("") })),
    weight: 6,
  },
  // A container's member, left out of its body's text (the `skip` option).
  { arbitrary: fc.array(fc.constantFrom(...CODE), { minLength: 1, maxLength: 4 }).map((parts) => ({ kind: "member" as const, text: parts.join("") })), weight: 1 },
  { arbitrary: fc.constantFrom("/* c */", "// line\n", "/** doc, = => */").map((text) => ({ kind: "comment" as const, text })), weight: 1 },
  { arbitrary: fc.constantFrom('"a  b"', "'x,y'", "`t ${a} =>`").map((text) => ({ kind: "string" as const, text })), weight: 1 },
);

describe("normalizeRange", () => {
  it("gives what emitting one character at a time gives, for any range, skipped members and separators setting", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.nat(), fc.nat(), fc.boolean(), (pieces, a, b, dropSeparators) => {
        let source = "";
        const comments: number[] = [];
        const strings: number[] = [];
        const skip: Array<[number, number]> = [];
        for (const p of pieces) {
          if (p.kind === "comment") comments.push(source.length, source.length + p.text.length);
          if (p.kind === "string") strings.push(source.length, source.length + p.text.length);
          if (p.kind === "member") skip.push([source.length, source.length + p.text.length]);
          source += p.text;
        }
        const index: LexicalIndex = { source, comments, strings };
        const start = source.length === 0 ? 0 : a % source.length;
        const end = start + (source.length === 0 ? 0 : b % (source.length - start + 1));
        // A skipped member inside the range is left out as a comment is; one that crosses its edge is not.
        const inside = skip.filter(([s, e]) => s >= start && e <= end).flat();
        expect(normalizeRange(index, start, end, { dropSeparators, skip })).toBe(reference({ ...index, comments: [...comments, ...inside] }, start, end, dropSeparators));
      }),
      { numRuns: 2000 },
    );
  });
});
