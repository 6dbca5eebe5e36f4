import type { SyntaxNode, Tree } from "../parse/syntax.js";

/**
 * Where a file's comments and string literals are: enough to normalise any
 * range of its text with string operations alone. Walking the tree node by
 * node through the native binding costs far more (each property access
 * crosses into C++); one query per file finds these ranges.
 */
export interface LexicalIndex {
  readonly source: string;
  /** Flat, sorted [start, end) pairs in UTF-16 units. */
  readonly comments: readonly number[];
  readonly strings: readonly number[];
}

/** The index of a parsed tree, kept with the tree (a derived value, like a memo) so nodes can find it. */
const indexes = new WeakMap<Tree, LexicalIndex>();

/** Builds the lexical index of a tree from the captures of its language's `lexical.scm` patterns (in document order). */
export function indexLexical(tree: Tree, source: string, captures: ReadonlyArray<{ name: string; node: SyntaxNode }>): LexicalIndex {
  const comments: number[] = [];
  const literals: number[] = [];
  for (const c of captures) (c.name === "comment" ? comments : literals).push(c.node.startIndex, c.node.endIndex);
  return indexLexicalRanges(tree, source, comments, literals);
}

/**
 * Builds the lexical index of a tree from the [start, end) ranges of its comments and of its string literals (flat
 * lists, each in document order): what {@link indexLexical} builds from the same nodes' captures.
 */
export function indexLexicalRanges(tree: Tree, source: string, comments: number[], literals: number[]): LexicalIndex {
  const sortedComments = byStart(comments);
  const sortedLiterals = byStart(literals);
  // Outermost literals only (a template string holds strings of its own).
  const strings: number[] = [];
  for (let k = 0; k < sortedLiterals.length; k += 2) {
    const s = sortedLiterals[k] as number;
    if (strings.length > 0 && s < (strings[strings.length - 1] as number)) continue;
    strings.push(s, sortedLiterals[k + 1] as number);
  }
  const index = { source, comments: sortedComments, strings };
  indexes.set(tree, index);
  return index;
}

/**
 * Flat [start, end) pairs sorted by start, then the longer first (a stable sort): as they are when already in that
 * order, which document order nearly always is (a node comes before the nodes inside it).
 */
function byStart(flat: number[]): number[] {
  let sorted = true;
  for (let k = 2; k < flat.length && sorted; k += 2) {
    const d = (flat[k] as number) - (flat[k - 2] as number);
    sorted = d > 0 || (d === 0 && (flat[k + 1] as number) <= (flat[k - 1] as number));
  }
  if (sorted) return flat;
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k < flat.length; k += 2) pairs.push([flat[k] as number, flat[k + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  return pairs.flat();
}

/** The text of a parsed file, as its lexical index holds it; null for a tree without one. */
export function sourceOf(tree: Tree): string | null {
  return indexes.get(tree)?.source ?? null;
}

/**
 * Whether the source of `node`'s file in [start, end) matches `pattern`:
 * the cheap check before asking the tree what only it can say exactly (true
 * when the text is not at hand, so the tree is asked).
 */
export function textMayMatch(node: SyntaxNode, start: number, end: number, pattern: RegExp): boolean {
  const source = sourceOf(node.tree);
  return source === null || pattern.test(source.slice(start, end));
}

export interface NormalizeOptions {
  /** [start, end) ranges left out, like comments (a container's member symbols, hashed on their own). */
  readonly skip?: ReadonlyArray<readonly [number, number]>;
  /** Also drop `,` and `;` (between a container's members). */
  readonly dropSeparators?: boolean;
}

/**
 * A node's text with formatting removed, so that whitespace, comments and a
 * trailing comma change nothing: comments dropped; whitespace removed, but
 * for one space where two word characters (or two operator characters) would
 * otherwise touch, after a comma and around `=>`; string literals kept as
 * written. Deterministic for a given text.
 */
export function normalizedText(node: SyntaxNode | null, options: NormalizeOptions = {}): string {
  if (node === null) return "";
  const index = indexes.get(node.tree);
  if (index === undefined) return node.text.replace(/\s+/g, " ").trim();
  return normalizeRange(index, node.startIndex, node.endIndex, options);
}

/** A type annotation's text without its leading `:` (or `->`), normalised. */
export function typeText(node: SyntaxNode | null): string | null {
  if (node === null) return null;
  return normalizedText(node).replace(/^(:|->)\s*/, "");
}

/** Character classes of the ASCII range, as bits (other characters: see {@link classOf}). */
const WORD = 1;
const OPERATOR = 2;
const SPACE = 4;
/** Ends a run of plain characters in `normalizeRange`: a space, `,`, `;` or `=`. */
const RUN_END = 8;
const CLOSER = 16;
const ASCII = new Uint8Array(128).map((_, code) => {
  const c = String.fromCharCode(code);
  return (
    (/[A-Za-z0-9_$"'`]/.test(c) ? WORD : 0) |
    ("+-*/%<>=!&|^~?:.".includes(c) ? OPERATOR : 0) |
    (code === 32 || (code >= 9 && code <= 13) ? SPACE | RUN_END : 0) |
    (c === "," || c === ";" || c === "=" ? RUN_END : 0) |
    (")]}>".includes(c) ? CLOSER : 0)
  );
});
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;

/** {@link ASCII}'s bits of any UTF-16 unit: beyond ASCII, letters and digits are words, and two spaces are spaces. */
function classOf(code: number): number {
  if (code < 128) return ASCII[code] as number;
  if (code === 0xa0 || code === 0xfeff) return SPACE | RUN_END;
  return NON_ASCII_WORD.test(String.fromCharCode(code)) ? WORD : 0;
}

/** Whether a space goes between two characters that would otherwise touch (after whitespace or a comment). */
function spaced(last: number, first: number): boolean {
  const a = classOf(last);
  const b = classOf(first);
  return (a & b & (WORD | OPERATOR)) !== 0;
}

/**
 * Normalises `source[start, end)`.
 *
 * What is emitted is always a piece of the source (a run of plain characters, a string literal, `,` or `=>`), with
 * one space before it or none. Pieces are gathered as spans of the source: a piece that starts where the last one
 * ended, or one space after it when a space goes between them and the source has that space, only extends the span,
 * so well-formatted code is copied in a few slices rather than built token by token.
 */
export function normalizeRange(index: LexicalIndex, start: number, end: number, options: NormalizeOptions = {}): string {
  const src = index.source;
  const holes = holesIn(index.comments, options.skip ?? NO_RANGES, start, end);
  const strings = index.strings;
  const drop = options.dropSeparators === true;
  let si = lowerBound(strings, start);
  let hi = 0;
  let out = "";
  // The emitted text not yet in `out`: src[spanStart, spanEnd), none while spanEnd < 0.
  let spanStart = 0;
  let spanEnd = -1;
  let empty = true;
  let last = 0;
  let pending = false;
  let force = false;
  const put = (a: number, b: number): void => {
    const space = !empty && (force || (pending && spaced(last, src.charCodeAt(a))));
    if (spanEnd >= 0 && (space ? a === spanEnd + 1 && src.charCodeAt(spanEnd) === 32 : a === spanEnd)) {
      spanEnd = b;
    } else {
      if (spanEnd >= 0) out += src.slice(spanStart, spanEnd);
      if (space) out += " ";
      spanStart = a;
      spanEnd = b;
    }
    empty = false;
    last = src.charCodeAt(b - 1);
    pending = false;
    force = false;
  };
  const nextCode = (from: number): number => {
    // The next character that is neither whitespace nor inside a hole.
    let j = from;
    let h = hi;
    while (j < end) {
      while (h < holes.length && (holes[h + 1] as number) <= j) h += 2;
      if (h < holes.length && (holes[h] as number) <= j) {
        j = holes[h + 1] as number;
        continue;
      }
      if ((classOf(src.charCodeAt(j)) & SPACE) === 0) return j;
      j++;
    }
    return -1;
  };
  let i = start;
  while (i < end) {
    while (hi < holes.length && (holes[hi + 1] as number) <= i) hi += 2;
    if (hi < holes.length && (holes[hi] as number) <= i) {
      i = holes[hi + 1] as number;
      pending = true;
      continue;
    }
    while (si < strings.length && (strings[si + 1] as number) <= i) si += 2;
    if (si < strings.length && (strings[si] as number) <= i) {
      const e = Math.min(strings[si + 1] as number, end);
      put(i, e);
      i = e;
      continue;
    }
    // Nothing below reaches past the next hole or string.
    let limit = end;
    if (hi < holes.length && (holes[hi] as number) < limit) limit = holes[hi] as number;
    if (si < strings.length && (strings[si] as number) < limit) limit = strings[si] as number;
    const code = src.charCodeAt(i);
    const cls = classOf(code);
    if ((cls & SPACE) !== 0) {
      pending = true;
      i++;
      while (i < limit && (classOf(src.charCodeAt(i)) & SPACE) !== 0) i++;
      continue;
    }
    if (code === 44 || (code === 59 && drop)) {
      const j = nextCode(i + 1);
      if (drop || (code === 44 && (j < 0 || (classOf(src.charCodeAt(j)) & CLOSER) !== 0))) {
        // A trailing comma, or a separator between members: gone.
        pending = true;
        i++;
        continue;
      }
      put(i, i + 1);
      force = true;
      i++;
      continue;
    }
    if (code === 61 && src.charCodeAt(i + 1) === 62) {
      // `=>`, spaced on both sides (read past the range's end as the source has it).
      force = !empty;
      put(i, i + 2);
      force = true;
      i += 2;
      continue;
    }
    // A run of plain characters up to the next space, separator or `=`: inside it nothing is inserted.
    let j = i + 1;
    while (j < limit && (classOf(src.charCodeAt(j)) & RUN_END) === 0) j++;
    put(i, j);
    i = j;
  }
  if (spanEnd >= 0) out += src.slice(spanStart, spanEnd);
  return out;
}

/** No ranges to skip: an array of the kind the extractors' lists of ranges are (arrays of pairs), never written. */
const NO_RANGES: ReadonlyArray<readonly [number, number]> = [[0, 0]].slice(1) as Array<[number, number]>;

/** Comments and skipped ranges inside [start, end), merged into one sorted flat list. */
function holesIn(comments: readonly number[], skip: ReadonlyArray<readonly [number, number]>, start: number, end: number): number[] {
  const pairs: Array<[number, number]> = [];
  for (let k = lowerBound(comments, start); k < comments.length && (comments[k] as number) < end; k += 2) pairs.push([comments[k] as number, comments[k + 1] as number]);
  // Only ranges inside the normalised one: a container's own range encloses its body.
  // (an index loop, and one empty list: iterating lists of several kinds threw this function's optimised code away)
  for (let k = 0; k < skip.length; k++) {
    const [s, e] = skip[k] as readonly [number, number];
    if (s >= start && e <= end && e > s) pairs.push([s, e]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const flat: number[] = [];
  for (const [s, e] of pairs) {
    const lastEnd = flat[flat.length - 1];
    if (lastEnd !== undefined && s <= lastEnd) flat[flat.length - 1] = Math.max(lastEnd, e);
    else flat.push(s, e);
  }
  return flat;
}

/** Index (even) of the first pair whose end is after `pos`. */
function lowerBound(pairs: readonly number[], pos: number): number {
  let lo = 0;
  let hi = pairs.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pairs[mid * 2 + 1] as number) <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo * 2;
}
