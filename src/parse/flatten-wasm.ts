import { cursorSteps, flatScratch, flatScratchData, flattenCursor, FLAG_MISSING, growFlatScratch, keepFlatTreeData, type CursorLike, type CursorSteps, type FlatTreeData } from "./flat-tree.js";
import { webTreeSitterModule } from "./init-web-tree-sitter.js";

/** What a web-tree-sitter tree offers a flattener: its cursor, and its address in the module's memory (`tree[0]`). */
export interface WasmTree {
  readonly 0: number;
  walk(): CursorLike & { delete(): void };
}

type Call = (tree: number) => number;

type Flattener = (tree: WasmTree) => FlatTreeData;

/**
 * The ways to copy a web-tree-sitter tree, slowest first: its public cursor;
 * the C entry points that cursor wraps, called directly; and tree-sitter's own
 * structures read from the module's memory, with no call at all (null where
 * the module does not expose what they need).
 *
 * The public cursor copies its four words into the module's transfer
 * buffer and back around every call, through `setValue`/`getValue`; the C
 * entry points it wraps (`_ts_tree_cursor_*_wasm`) read the cursor from that
 * buffer and write it back there themselves. So once `tree.walk()` has put a
 * cursor there, calling those entry points directly walks the same cursor
 * with nothing copied, and `_ts_tree_cursor_delete_wasm` frees it where it
 * ends (the public cursor's own copy is stale by then: its stack may have
 * moved).
 */
export function wasmFlatteners(): { cursor: Flattener; direct: Flattener | null; memory: Flattener | null } {
  const cursor = (tree: WasmTree): FlatTreeData => {
    const c = tree.walk();
    try {
      return flattenCursor(cursorSteps(c));
    } finally {
      c.delete();
    }
  };
  const m = webTreeSitterModule();
  const heaps = m as unknown as Partial<Heaps> | null;
  const memory =
    heaps?.HEAPU8 instanceof Uint8Array && heaps.HEAPU16 instanceof Uint16Array && heaps.HEAPU32 instanceof Uint32Array
      ? (tree: WasmTree): FlatTreeData => flattenFromMemory(heaps as Heaps, tree[0])
      : null;
  const call = (name: string): Call | null => (typeof m?.[name] === "function" ? (m[name] as Call) : null);
  const typeId = call("_ts_tree_cursor_current_node_type_id_wasm");
  const fieldId = call("_ts_tree_cursor_current_field_id_wasm");
  const start = call("_ts_tree_cursor_start_index_wasm");
  const end = call("_ts_tree_cursor_end_index_wasm");
  const missing = call("_ts_tree_cursor_current_node_is_missing_wasm");
  const first = call("_ts_tree_cursor_goto_first_child_wasm");
  const next = call("_ts_tree_cursor_goto_next_sibling_wasm");
  const parent = call("_ts_tree_cursor_goto_parent_wasm");
  const free = call("_ts_tree_cursor_delete_wasm");
  if (typeId === null || fieldId === null || start === null || end === null || missing === null || first === null || next === null || parent === null || free === null)
    return { cursor, direct: null, memory };
  const direct = (tree: WasmTree): FlatTreeData => {
    tree.walk();
    const t = tree[0];
    const steps: CursorSteps = {
      typeId: () => typeId(t),
      fieldId: () => fieldId(t),
      start: () => start(t),
      end: () => end(t),
      isMissing: () => missing(t) !== 0,
      firstChild: () => first(t) !== 0,
      nextSibling: () => next(t) !== 0,
      parent: () => parent(t) !== 0,
    };
    try {
      return flattenCursor(steps);
    } finally {
      free(t);
    }
  };
  return { cursor, direct, memory };
}

/**
 * The fastest flattener ({@link wasmFlatteners}) that copies `sample` exactly
 * as the public cursor does: reading memory depends on tree-sitter's layouts,
 * and the direct calls on its binding, so a version that changed either falls
 * back to the next one. (On real code reading memory is 3 times as fast as the
 * public cursor.)
 */
export function wasmFlattener(sample: WasmTree): { readonly kind: "memory" | "direct" | "cursor"; readonly flatten: Flattener } {
  const { cursor, direct, memory } = wasmFlatteners();
  // Kept: each flattening reuses the same arrays.
  const expected = keepFlatTreeData(cursor(sample));
  if (memory !== null && sameData(memory(sample), expected)) return { kind: "memory", flatten: memory };
  if (direct !== null && sameData(direct(sample), expected)) return { kind: "direct", flatten: direct };
  return { kind: "cursor", flatten: cursor };
}

function sameData(a: FlatTreeData, b: FlatTreeData): boolean {
  if (a.count !== b.count || a.count < 2) return false;
  const same = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
    for (let i = 0; i < a.count; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  return same(a.types, b.types) && same(a.fields, b.fields) && same(a.starts, b.starts) && same(a.ends, b.ends) && same(a.parents, b.parents) && same(a.flags, b.flags);
}

/** The module's views of its memory (replaced when the memory grows: read them for each tree). */
interface Heaps {
  readonly HEAPU8: Uint8Array;
  readonly HEAPU16: Uint16Array;
  readonly HEAPU32: Uint32Array;
}

/**
 * Copies a tree by reading tree-sitter's own structures in the module's
 * memory, with no call into WebAssembly: the walk `ts_tree_cursor_*` does
 * (tree-sitter 0.25's `tree_cursor.c`: hidden nodes skipped for their
 * visible children, aliases from the parent's production, fields from the
 * parent's field map or a hidden ancestor's, positions from paddings and
 * sizes), over its layouts for 32-bit WebAssembly (`subtree.h`, `tree.h`,
 * `parser.h`).
 */
function flattenFromMemory(heaps: Heaps, treeAddress: number): FlatTreeData {
  const u8 = heaps.HEAPU8;
  const u16 = heaps.HEAPU16;
  const u32 = heaps.HEAPU32;
  // TSTree: { Subtree root (8 bytes); const TSLanguage *language; ... }
  const language = u32[(treeAddress + 8) >> 2] as number;
  // TSLanguage: max_alias_sequence_length @36, public_symbol_map @76, alias_sequences @84 (and what fieldTable reads).
  const maxAlias = u16[(language + 36) >> 1] as number;
  const { fields: fieldsBy, width } = fieldTable(heaps, language);
  const publicMap = (u32[(language + 76) >> 2] as number) >> 1;
  const aliases = (u32[(language + 84) >> 2] as number) >> 1;

  // The copy is written straight into the builder's scratch arrays (locals, refreshed when they grow): through a
  // builder's method, each node was a call the compiler would not inline (a new closure for every tree).
  let out = flatScratch();
  let types = out.types;
  let fields = out.fields;
  let starts = out.starts;
  let ends = out.ends;
  let parents = out.parents;
  let flags = out.flags;
  let n = 0;

  // A Subtree is 8 bytes: inline data (bit 0 of its first byte set: a leaf whose bits, symbol, padding and size
  // fit there) or a pointer to its heap data.
  if (((u8[treeAddress] as number) & 1) === 1) {
    const start = u8[treeAddress + 6] as number;
    const sym = u8[treeAddress + 1] as number;
    types[0] = sym === 0xffff ? sym : (u16[publicMap + sym] as number);
    fields[0] = 0;
    starts[0] = start >> 1;
    ends[0] = (start + (u8[treeAddress + 7] as number)) >> 1;
    parents[0] = -1;
    flags[0] = ((u8[treeAddress] as number) & 32) !== 0 ? FLAG_MISSING : 0;
    return flatScratchData(1);
  }
  const rootPtr = u32[treeAddress >> 2] as number;
  const rootStart = u32[(rootPtr + 4) >> 2] as number;
  const rootSym = u16[(rootPtr + 40) >> 1] as number;
  types[0] = rootSym === 0xffff ? rootSym : (u16[publicMap + rootSym] as number);
  fields[0] = 0;
  starts[0] = rootStart >> 1;
  ends[0] = (rootStart + (u32[(rootPtr + 16) >> 2] as number)) >> 1;
  parents[0] = -1;
  flags[0] = ((u8[rootPtr + 45] as number) & 2) !== 0 ? FLAG_MISSING : 0;
  n = 1;
  // One frame per subtree whose children are walked, in parallel typed arrays: its heap data, the next child, the
  // child count, its production, the next structural index, the running position (bytes), the visible node its
  // visible children belong to, and the field a hidden subtree passes down to them.
  let frames = frameScratch;
  let top = -1;
  if ((u32[(rootPtr + 36) >> 2] as number) > 0) {
    top = 0;
    frames[F_PTR] = rootPtr;
    frames[F_CHILD] = 0;
    frames[F_COUNT] = u32[(rootPtr + 36) >> 2] as number;
    frames[F_PRODUCTION] = u16[(rootPtr + 66) >> 1] as number;
    frames[F_STRUCTURAL] = 0;
    frames[F_POS] = rootStart;
    frames[F_PARENT] = 0;
    frames[F_INHERITED] = 0;
  }
  while (top >= 0) {
    const f = top * FRAME;
    const count = frames[f + F_COUNT] as number;
    const k = frames[f + F_CHILD] as number;
    if (k === count) {
      top--;
      continue;
    }
    frames[f + F_CHILD] = k + 1;
    // Children sit just before their parent's heap data.
    const at = (frames[f + F_PTR] as number) - (count - k) * 8;
    const b0 = u8[at] as number;
    const inline = (b0 & 1) === 1;
    const ptr = inline ? 0 : (u32[at >> 2] as number);
    // Heap flags: visible bit 0, extra bit 2 of byte 44; missing bit 1 of byte 45. Inline: visible bit 1, extra
    // bit 3, missing bit 5 of the first byte.
    const hb = inline ? 0 : (u8[ptr + 44] as number);
    const isExtra = inline ? (b0 & 8) !== 0 : (hb & 4) !== 0;
    const isVisible = inline ? (b0 & 2) !== 0 : (hb & 1) !== 0;
    // The first child starts where its parent does (the parent's padding is its first child's).
    const pos = frames[f + F_POS] as number;
    const start = k === 0 ? pos : pos + (inline ? (u8[at + 6] as number) : (u32[(ptr + 4) >> 2] as number));
    const end = start + (inline ? (u8[at + 7] as number) : (u32[(ptr + 16) >> 2] as number));
    frames[f + F_POS] = end;
    let alias = 0;
    let own = 0;
    if (!isExtra) {
      const production = frames[f + F_PRODUCTION] as number;
      const structural = frames[f + F_STRUCTURAL] as number;
      if (production !== 0) alias = u16[aliases + production * maxAlias + structural] as number;
      // The field the production gives this structural child (its field map's entries without inherited ones).
      if (structural < width) own = fieldsBy[production * width + structural] as number;
      frames[f + F_STRUCTURAL] = structural + 1;
    }
    const children = inline ? 0 : (u32[(ptr + 36) >> 2] as number);
    const field = isExtra ? 0 : own || (frames[f + F_INHERITED] as number);
    let parent = frames[f + F_PARENT] as number;
    if (isVisible || alias !== 0) {
      const sym = alias !== 0 ? alias : inline ? (u8[at + 1] as number) : (u16[(ptr + 40) >> 1] as number);
      if (n === types.length) {
        out = growFlatScratch();
        types = out.types;
        fields = out.fields;
        starts = out.starts;
        ends = out.ends;
        parents = out.parents;
        flags = out.flags;
      }
      types[n] = sym === 0xffff ? sym : (u16[publicMap + sym] as number);
      fields[n] = field;
      starts[n] = start >> 1;
      ends[n] = end >> 1;
      parents[n] = parent;
      flags[n] = (inline ? (b0 & 32) !== 0 : ((u8[ptr + 45] as number) & 2) !== 0) ? FLAG_MISSING : 0;
      parent = n++;
      if (children === 0) continue;
    } else if (children === 0 || (u32[(ptr + 48) >> 2] as number) === 0) {
      continue;
    }
    // A subtree whose children are walked next: a visible node's, or a hidden one's, whose visible children belong
    // to the visible node above and take its field when they have none.
    top++;
    if ((top + 1) * FRAME > frames.length) {
      const bigger = new Int32Array(frames.length * 2);
      bigger.set(frames);
      frameScratch = frames = bigger;
    }
    const g = top * FRAME;
    frames[g + F_PTR] = ptr;
    frames[g + F_CHILD] = 0;
    frames[g + F_COUNT] = children;
    frames[g + F_PRODUCTION] = u16[(ptr + 66) >> 1] as number;
    frames[g + F_STRUCTURAL] = 0;
    frames[g + F_POS] = start;
    frames[g + F_PARENT] = parent;
    frames[g + F_INHERITED] = isVisible || alias !== 0 ? 0 : field;
  }
  return flatScratchData(n);
}

/**
 * A language's field maps as one table, by production and structural child
 * index: the field of the first entry of the production's field map for that
 * child that is not inherited (what the walk of `tree_cursor.c` finds by
 * searching the map at each child), 0 for none. Worked out once per language
 * (its address in the module's memory: languages are never freed here).
 */
function fieldTable(heaps: Heaps, language: number): { readonly fields: Uint16Array; readonly width: number } {
  let table = fieldTables.get(language);
  if (table === undefined) {
    const u8 = heaps.HEAPU8;
    const u16 = heaps.HEAPU16;
    const u32 = heaps.HEAPU32;
    // TSLanguage: production_id_count @28, field_count @32, field_map_slices @64 ({index, length} u16 pairs by
    // production), field_map_entries @68 ({field_id u16, child_index u8, inherited u8}).
    const productions = u32[(language + 28) >> 2] as number;
    const fieldCount = u32[(language + 32) >> 2] as number;
    const slices = u32[(language + 64) >> 2] as number;
    const entries = u32[(language + 68) >> 2] as number;
    let width = 0;
    const each = (visit: (production: number, child: number, field: number) => void): void => {
      if (fieldCount === 0) return;
      for (let p = 0; p < productions; p++) {
        const slice = slices + p * 4;
        const from = u16[slice >> 1] as number;
        const length = u16[(slice + 2) >> 1] as number;
        for (let e = entries + from * 4, stop = e + length * 4; e < stop; e += 4) if (u8[e + 3] === 0) visit(p, u8[e + 2] as number, u16[e >> 1] as number);
      }
    };
    each((_, child) => (width = Math.max(width, child + 1)));
    const fields = new Uint16Array(Math.max(1, productions * width));
    each((p, child, field) => {
      if (fields[p * width + child] === 0) fields[p * width + child] = field;
    });
    table = { fields, width };
    fieldTables.set(language, table);
  }
  return table;
}

const fieldTables = new Map<number, { readonly fields: Uint16Array; readonly width: number }>();

/** A frame of {@link flattenFromMemory}'s walk: its slots, in one typed array reused from tree to tree. */
const F_PTR = 0;
const F_CHILD = 1;
const F_COUNT = 2;
const F_PRODUCTION = 3;
const F_STRUCTURAL = 4;
const F_POS = 5;
const F_PARENT = 6;
const F_INHERITED = 7;
const FRAME = 8;
let frameScratch = new Int32Array(FRAME * 256);
