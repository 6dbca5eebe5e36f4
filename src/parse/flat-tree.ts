import type { TreeAccess } from "./query/match-query.js";
import { internalized } from "./query/parse-query.js";
import type { Point, SyntaxNode, Tree } from "./syntax.js";

/**
 * A whole syntax tree copied out of tree-sitter into typed arrays, in
 * pre-order, so that the extractors and the query matcher read it without
 * crossing into the parser again: on real code most of the symbol pass went
 * to asking tree-sitter's nodes one property at a time (`--cpu-prof` on the
 * real corpora); one walk that copies every node
 * costs a fraction of that.
 */
export interface FlatTreeData {
  /** Visible nodes, in pre-order (the root is 0). */
  readonly count: number;
  /** Node type ids (tree-sitter's public symbol, aliases applied; 65535 is ERROR). */
  readonly types: Uint16Array;
  /** Field id of each node in its parent (0: none). */
  readonly fields: Uint16Array;
  /** [start, end) in UTF-16 code units. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Parent index; -1 for the root. */
  readonly parents: Int32Array;
  /** Bit 1: missing (inserted by error recovery). */
  readonly flags: Uint8Array;
}

/** What a flat tree knows of its language: type names, which types are named, field ids. */
export interface FlatLanguage {
  readonly typeNames: readonly (string | undefined)[];
  isNamed(typeId: number): boolean;
  fieldId(name: string): number;
  /** A type id's membership in a list of type names (1 for a member), worked out once per list. */
  typeSet(types: readonly string[]): Uint8Array;
}

/** A node's flags: this bit, set for a missing node, is the only one (`FlatTree.hasError` looks for its value). */
export const FLAG_MISSING = 1;
const ERROR_TYPE = 0xffff;
/**
 * No children: an array of the same kind as those {@link FlatTree.childIndices} makes (holey, small integers), never
 * written (readonly). A frozen one has a map of its own, and the matcher's optimised code, having seen one kind,
 * was thrown away when it met the other.
 */
const NO_CHILDREN: readonly number[] = new Array<number>(0);
/** {@link FlatTree}'s per-node tables, reused from one tree to the next (grown as needed). */
let afterScratch = new Int32Array(1 << 15);
let nodeScratch: Array<FlatNode | undefined> = Array.from({ length: 1 << 15 });

/** Which of a language's type ids are named (1), ERROR among them: the table flat trees and the native extraction read. */
export function namedTypes(count: number, isNamed: (typeId: number) => boolean): Uint8Array {
  const named = new Uint8Array(0x10000);
  for (let id = 0; id < count; id++) named[id] = isNamed(id) ? 1 : 0;
  named[ERROR_TYPE] = 1;
  return named;
}

/** Reads a language's per-type answers once: type names and which types are named, by type id. */
export function flatLanguage(typeNames: readonly (string | undefined)[], isNamed: (typeId: number) => boolean, fieldNames: readonly (string | null | undefined)[]): FlatLanguage {
  const named = namedTypes(typeNames.length, isNamed);
  const fields = new Map<string, number>();
  fieldNames.forEach((name, id) => {
    if (typeof name === "string" && id > 0 && !fields.has(name)) fields.set(name, id);
  });
  const sets = new Map<string, Uint8Array>();
  const typeSet = (types: readonly string[]): Uint8Array => {
    const key = types.join("\0");
    let ids = sets.get(key);
    if (ids === undefined) {
      const wanted = new Set(types);
      ids = new Uint8Array(0x10000);
      for (let t = 0; t < typeNames.length; t++) if (wanted.has(typeNames[t] as string)) ids[t] = 1;
      if (wanted.has("ERROR")) ids[ERROR_TYPE] = 1;
      sets.set(key, ids);
    }
    return ids;
  };
  // Type names as the query's and the extractors' literals are, compared by address (see internalized).
  const names = typeNames.map((t) => (t === undefined ? t : internalized(t)));
  return { typeNames: names, isNamed: (typeId) => named[typeId] === 1, fieldId: (name) => fields.get(name) ?? -1, typeSet };
}

/**
 * A tree read from {@link FlatTreeData}: the `Tree` the extractors take, its nodes made on demand (one object per
 * node). Like its data, it is valid until the next flat tree is built in this thread.
 */
export class FlatTree implements Tree {
  readonly source: string;
  readonly language: FlatLanguage;
  readonly data: FlatTreeData;
  /** Index just past each node's subtree (its next sibling, when it has one). */
  readonly #after: Int32Array;
  /** Whether each subtree holds an ERROR or a missing node; computed once, when first asked. */
  #errors: Uint8Array | null = null;
  /** Whether no node is an ERROR or missing (null: not yet asked). */
  #clean: boolean | null = null;
  #lineStarts: number[] | null = null;
  readonly #nodes: Array<FlatNode | undefined>;

  constructor(source: string, language: FlatLanguage, data: FlatTreeData) {
    this.source = source;
    this.language = language;
    this.data = data;
    // Both per-node tables are scratch arrays reused from tree to tree, as the data's own arrays are (see
    // flatTreeBuilder): allocating them for every file was half of this constructor's time on real code.
    if (afterScratch.length < data.count) afterScratch = new Int32Array(Math.max(data.count, afterScratch.length * 2));
    if (nodeScratch.length < data.count) nodeScratch = Array.from({ length: Math.max(data.count, nodeScratch.length * 2) });
    else nodeScratch.fill(undefined, 0, data.count);
    const after = afterScratch;
    for (let i = 0; i < data.count; i++) after[i] = i + 1;
    // Pre-order: a node's subtree ends where its last descendant's does, and descendants come after it.
    for (let i = data.count - 1; i > 0; i--) {
      const p = data.parents[i] as number;
      if ((after[i] as number) > (after[p] as number)) after[p] = after[i] as number;
    }
    this.#after = after;
    this.#nodes = nodeScratch;
  }

  get rootNode(): FlatNode {
    return this.node(0);
  }

  /** The node at a pre-order index (the same object each time). */
  node(index: number): FlatNode {
    let n = this.#nodes[index];
    if (n === undefined) this.#nodes[index] = n = new FlatNode(this, index);
    return n;
  }

  nodeOrNull(index: number): FlatNode | null {
    return index < 0 || index >= this.data.count ? null : this.node(index);
  }

  typeName(index: number): string {
    const id = this.data.types[index] as number;
    return id === ERROR_TYPE ? "ERROR" : (this.language.typeNames[id] ?? "ERROR");
  }

  /** Indices of the nodes of these types in `index`'s subtree (itself included), in document order. */
  ofTypes(index: number, types: readonly string[]): number[] {
    const ids = this.language.typeSet(types);
    const out: number[] = [];
    const typeArray = this.data.types;
    const end = this.after(index);
    for (let i = index; i < end; i++) if (ids[typeArray[i] as number] === 1) out.push(i);
    return out;
  }

  /** [start, end) of every named node of these types, in document order, as one flat list. */
  rangesOfTypes(types: readonly string[]): number[] {
    const ids = this.language.typeSet(types);
    const { count, types: typeArray, starts, ends } = this.data;
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = typeArray[i] as number;
      if (ids[t] === 1 && this.language.isNamed(t)) out.push(starts[i] as number, ends[i] as number);
    }
    return out;
  }

  /**
   * Indices of `index`'s children; only the named ones, or only those in one field (a field id), when asked. Counted
   * first, then put in an array of that size: the matcher asks this of most nodes it visits (a million times a pass
   * over Python's stdlib), and an array grown by pushes holds room for 16 or more.
   */
  childIndices(index: number, namedOnly = false, field = 0): readonly number[] {
    const { types, fields } = this.data;
    const after = this.#after;
    const end = after[index] as number;
    let n = 0;
    for (let c = index + 1; c < end; c = after[c] as number) {
      if ((!namedOnly || this.language.isNamed(types[c] as number)) && (field === 0 || fields[c] === field)) n++;
    }
    if (n === 0) return NO_CHILDREN;
    const out = new Array<number>(n);
    let k = 0;
    for (let c = index + 1; c < end; c = after[c] as number) {
      if ((!namedOnly || this.language.isNamed(types[c] as number)) && (field === 0 || fields[c] === field)) out[k++] = c;
    }
    return out;
  }

  /** Index just past `index`'s subtree. */
  after(index: number): number {
    return this.#after[index] as number;
  }

  /** The next sibling's index, or -1. */
  nextSiblingIndex(index: number): number {
    const p = this.data.parents[index] as number;
    const next = this.#after[index] as number;
    return p >= 0 && next < (this.#after[p] as number) ? next : -1;
  }

  hasError(index: number): boolean {
    if (this.#errors === null) {
      const { count, types, flags, parents } = this.data;
      // Most trees have no error: one look at every node says so, and no table is made for them.
      // (by the arrays' own search, several times faster than a loop here over every node of every file; a node's
      // flags are FLAG_MISSING or nothing)
      this.#clean ??= types.subarray(0, count).indexOf(ERROR_TYPE) < 0 && flags.subarray(0, count).indexOf(FLAG_MISSING) < 0;
      if (this.#clean) return false;
      const errors = new Uint8Array(count);
      for (let i = count - 1; i >= 0; i--) {
        if (types[i] === ERROR_TYPE || ((flags[i] as number) & FLAG_MISSING) !== 0) errors[i] = 1;
        if (errors[i] === 1 && i > 0) errors[parents[i] as number] = 1;
      }
      this.#errors = errors;
    }
    return this.#errors[index] === 1;
  }

  /** Row and column (UTF-16 code units) of a text index; rows end at `\n`, as tree-sitter counts them. */
  point(index: number): Point {
    if (this.#lineStarts === null) {
      const starts = [0];
      const src = this.source;
      for (let i = src.indexOf("\n"); i >= 0; i = src.indexOf("\n", i + 1)) starts.push(i + 1);
      this.#lineStarts = starts;
    }
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return { row: lo, column: index - (starts[lo] as number) };
  }
}

/** One node of a {@link FlatTree}: every property is read from the tree's arrays. */
export class FlatNode implements SyntaxNode {
  readonly tree: FlatTree;
  /** The node's pre-order index: unique in its tree, as tree-sitter's ids are. */
  readonly id: number;

  constructor(tree: FlatTree, index: number) {
    this.tree = tree;
    this.id = index;
  }

  get typeId(): number {
    return this.tree.data.types[this.id] as number;
  }

  get type(): string {
    return this.tree.typeName(this.id);
  }

  get isNamed(): boolean {
    return this.tree.language.isNamed(this.typeId);
  }

  get isMissing(): boolean {
    return ((this.tree.data.flags[this.id] as number) & FLAG_MISSING) !== 0;
  }

  get hasError(): boolean {
    return this.tree.hasError(this.id);
  }

  get startIndex(): number {
    return this.tree.data.starts[this.id] as number;
  }

  get endIndex(): number {
    return this.tree.data.ends[this.id] as number;
  }

  get text(): string {
    return this.tree.source.slice(this.startIndex, this.endIndex);
  }

  get startPosition(): Point {
    return this.tree.point(this.startIndex);
  }

  get endPosition(): Point {
    return this.tree.point(this.endIndex);
  }

  get parent(): FlatNode | null {
    return this.tree.nodeOrNull(this.tree.data.parents[this.id] as number);
  }

  get children(): FlatNode[] {
    return this.tree.childIndices(this.id).map((c) => this.tree.node(c));
  }

  get namedChildren(): FlatNode[] {
    return this.tree.childIndices(this.id, true).map((c) => this.tree.node(c));
  }

  get childCount(): number {
    let n = 0;
    const end = this.tree.after(this.id);
    for (let c = this.id + 1; c < end; c = this.tree.after(c)) n++;
    return n;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  get firstNamedChild(): FlatNode | null {
    const { types } = this.tree.data;
    const end = this.tree.after(this.id);
    for (let c = this.id + 1; c < end; c = this.tree.after(c)) if (this.tree.language.isNamed(types[c] as number)) return this.tree.node(c);
    return null;
  }

  get previousSibling(): FlatNode | null {
    const p = this.tree.data.parents[this.id] as number;
    if (p < 0) return null;
    let prev = -1;
    for (let c = p + 1; c < this.id; c = this.tree.after(c)) prev = c;
    return prev < 0 ? null : this.tree.node(prev);
  }

  child(index: number): FlatNode | null {
    let k = 0;
    const end = this.tree.after(this.id);
    for (let c = this.id + 1; c < end; c = this.tree.after(c), k++) if (k === index) return this.tree.node(c);
    return null;
  }

  childForFieldName(field: string): FlatNode | null {
    const id = this.tree.language.fieldId(field);
    // tree-sitter finds a field child through the node's own production, and an ERROR node has none, though its
    // children may sit in fields of the productions they came from (which the cursor, and childrenForFieldName, see).
    if (id < 0 || this.typeId === ERROR_TYPE) return null;
    const { fields } = this.tree.data;
    const end = this.tree.after(this.id);
    for (let c = this.id + 1; c < end; c = this.tree.after(c)) if (fields[c] === id) return this.tree.node(c);
    return null;
  }

  childrenForFieldName(field: string): FlatNode[] {
    const id = this.tree.language.fieldId(field);
    return id < 0 ? [] : this.tree.childIndices(this.id, false, id).map((c) => this.tree.node(c));
  }

  /** The node and its descendants of the given types, in document order (as tree-sitter's `descendantsOfType`). */
  descendantsOfType(types: string | string[]): FlatNode[] {
    return this.tree.ofTypes(this.id, typeof types === "string" ? [types] : types).map((i) => this.tree.node(i));
  }
}

/** The query matcher's view of a flat tree: nodes are indices, and a node object is made only for a capture. */
export class FlatAccess implements TreeAccess<number> {
  constructor(private readonly tree: FlatTree) {}

  candidates(root: number, types: readonly string[]): number[] {
    return this.tree.ofTypes(root, types);
  }

  type(node: number): string {
    return this.tree.typeName(node);
  }

  named(node: number): boolean {
    return this.tree.language.isNamed(this.tree.data.types[node] as number);
  }

  children(node: number): readonly number[] {
    return this.tree.childIndices(node);
  }

  namedChildren(node: number): readonly number[] {
    return this.tree.childIndices(node, true);
  }

  inField(node: number, field: string): readonly number[] {
    const id = this.tree.language.fieldId(field);
    return id < 0 ? NO_CHILDREN : this.tree.childIndices(node, false, id);
  }

  isInField(_node: number, field: string, child: number): boolean {
    return this.tree.data.fields[child] === this.tree.language.fieldId(field);
  }

  syntaxNode(node: number): FlatNode {
    return this.tree.node(node);
  }
}

/** The parts of a tree-sitter cursor a flat copy needs (both backends' public `TreeCursor`s have them). */
export interface CursorLike {
  readonly nodeTypeId: number;
  readonly currentFieldId: number;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly nodeIsMissing: boolean;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
}

/** Step functions over one cursor: the public cursor's methods, or faster calls straight into the parser. */
export interface CursorSteps {
  typeId(): number;
  fieldId(): number;
  start(): number;
  end(): number;
  isMissing(): boolean;
  firstChild(): boolean;
  nextSibling(): boolean;
  parent(): boolean;
}

export function cursorSteps(c: CursorLike): CursorSteps {
  return {
    typeId: () => c.nodeTypeId,
    fieldId: () => c.currentFieldId,
    start: () => c.startIndex,
    end: () => c.endIndex,
    isMissing: () => c.nodeIsMissing,
    firstChild: () => c.gotoFirstChild(),
    nextSibling: () => c.gotoNextSibling(),
    parent: () => c.gotoParent(),
  };
}

/** Scratch arrays reused from one file to the next (a thread flattens one tree at a time); grown as needed. */
let scratch = allocate(1 << 15);

function allocate(size: number): { types: Uint16Array; fields: Uint16Array; starts: Int32Array; ends: Int32Array; parents: Int32Array; flags: Uint8Array } {
  return { types: new Uint16Array(size), fields: new Uint16Array(size), starts: new Int32Array(size), ends: new Int32Array(size), parents: new Int32Array(size), flags: new Uint8Array(size) };
}

/** The scratch arrays a tree is built in (see {@link flatTreeBuilder}), for a builder that writes them itself. */
export type FlatScratch = ReturnType<typeof allocate>;

/** The current scratch arrays; {@link growFlatScratch} when they are full. */
export function flatScratch(): FlatScratch {
  return scratch;
}

/** Doubles the scratch arrays, keeping what they hold, and returns the new ones. */
export function growFlatScratch(): FlatScratch {
  grow();
  return scratch;
}

/** The first `count` nodes of the scratch arrays as a tree (views: see {@link flatTreeBuilder}). */
export function flatScratchData(count: number): FlatTreeData {
  return copyOut(count);
}

function grow(): void {
  const bigger = allocate(scratch.types.length * 2);
  bigger.types.set(scratch.types);
  bigger.fields.set(scratch.fields);
  bigger.starts.set(scratch.starts);
  bigger.ends.set(scratch.ends);
  bigger.parents.set(scratch.parents);
  bigger.flags.set(scratch.flags);
  scratch = bigger;
}

/**
 * Copies the tree under a cursor standing on its root, visiting every
 * visible node once in pre-order. The cursor is left where the walk ends
 * (back on the root).
 */
export function flattenCursor(steps: CursorSteps): FlatTreeData {
  const out = flatTreeBuilder();
  let top = -1;
  for (;;) {
    const start = steps.start();
    const end = steps.end();
    const i = out.add(steps.typeId(), steps.fieldId(), start, end, top, start === end && steps.isMissing());
    if (steps.firstChild()) {
      top = i;
      continue;
    }
    while (!steps.nextSibling()) {
      if (top < 0 || !steps.parent()) return out.finish();
      top = scratch.parents[top] as number;
    }
  }
}

/**
 * Builds a {@link FlatTreeData} node by node, in pre-order, in arrays reused from one tree to the next: what
 * `finish` returns is valid until the next tree is built in this thread.
 */
export interface FlatTreeBuilder {
  /** Adds the next node in pre-order; returns its index. */
  add(type: number, field: number, start: number, end: number, parent: number, missing: boolean): number;
  finish(): FlatTreeData;
}

/**
 * A {@link FlatTreeBuilder}. (A closure, not a class: with a class field the
 * walk that inlines it was deoptimized for missing type feedback at each new
 * builder, 24 times over the TypeScript corpus, each time recompiled.)
 */
export function flatTreeBuilder(): FlatTreeBuilder {
  let n = 0;
  return {
    add(type, field, start, end, parent, missing) {
      if (n === scratch.types.length) grow();
      const i = n++;
      const s = scratch;
      s.types[i] = type;
      s.fields[i] = field;
      s.starts[i] = start;
      s.ends[i] = end;
      s.parents[i] = parent;
      s.flags[i] = missing ? FLAG_MISSING : 0;
      return i;
    },
    finish: () => copyOut(n),
  };
}

/**
 * The built tree as views of the scratch arrays, not copies: the extractor
 * reads one tree and is done with it before it flattens the next, and copying
 * 17 bytes a node into new memory for each file cost 0.1 s of a pass over
 * Python's standard library (`--cpu-prof`). The next tree built in this thread
 * overwrites them: {@link keepFlatTreeData} copies one that must outlive it.
 */
function copyOut(count: number): FlatTreeData {
  const s = scratch;
  return {
    count,
    types: s.types.subarray(0, count),
    fields: s.fields.subarray(0, count),
    starts: s.starts.subarray(0, count),
    ends: s.ends.subarray(0, count),
    parents: s.parents.subarray(0, count),
    flags: s.flags.subarray(0, count),
  };
}

/** A copy of a built tree's arrays that the next tree built in this thread leaves as it is (see {@link flatTreeBuilder}). */
export function keepFlatTreeData(d: FlatTreeData): FlatTreeData {
  return {
    count: d.count,
    types: d.types.slice(0, d.count),
    fields: d.fields.slice(0, d.count),
    starts: d.starts.slice(0, d.count),
    ends: d.ends.slice(0, d.count),
    parents: d.parents.slice(0, d.count),
    flags: d.flags.slice(0, d.count),
  };
}

/**
 * A flat tree's arrays in one buffer of 17 bytes a node (the three 32-bit arrays first, so that every view is
 * aligned), for handing a tree to another thread: one buffer transferred, not six. A tree already packed (the
 * native parser's copies are) is returned as its own buffer, not copied.
 */
export function packFlatTreeData(d: FlatTreeData): ArrayBuffer {
  const n = d.count;
  // Already packed (the native parser's copies are): its own buffer, as it is.
  const own = d.starts.buffer;
  if (
    own instanceof ArrayBuffer &&
    own.byteLength === 17 * n &&
    d.starts.byteOffset === 0 &&
    d.starts.length === n &&
    d.ends.buffer === own &&
    d.ends.byteOffset === 4 * n &&
    d.parents.buffer === own &&
    d.parents.byteOffset === 8 * n &&
    d.types.buffer === own &&
    d.types.byteOffset === 12 * n &&
    d.fields.buffer === own &&
    d.fields.byteOffset === 14 * n &&
    d.flags.buffer === own &&
    d.flags.byteOffset === 16 * n
  )
    return own;
  const buffer = new ArrayBuffer(17 * n);
  const v = unpackFlatTreeData(n, buffer);
  v.starts.set(d.starts.subarray(0, n));
  v.ends.set(d.ends.subarray(0, n));
  v.parents.set(d.parents.subarray(0, n));
  v.types.set(d.types.subarray(0, n));
  v.fields.set(d.fields.subarray(0, n));
  v.flags.set(d.flags.subarray(0, n));
  return buffer;
}

/** The arrays of a tree of `count` nodes packed by {@link packFlatTreeData}: views of `buffer`, not copies. */
export function unpackFlatTreeData(count: number, buffer: ArrayBuffer): FlatTreeData {
  const n = count;
  return {
    count: n,
    starts: new Int32Array(buffer, 0, n),
    ends: new Int32Array(buffer, 4 * n, n),
    parents: new Int32Array(buffer, 8 * n, n),
    types: new Uint16Array(buffer, 12 * n, n),
    fields: new Uint16Array(buffer, 14 * n, n),
    flags: new Uint8Array(buffer, 16 * n, n),
  };
}
