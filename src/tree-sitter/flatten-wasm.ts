import { cursorSteps, flattenCursor, type CursorLike, type CursorSteps, type FlatTreeData } from "../symbols/flat-tree.js";
import { webTreeSitterModule } from "./init-web-tree-sitter.js";

/** What a web-tree-sitter tree offers a flattener: its cursor, and its address in the module's memory (`tree[0]`). */
export interface WasmTree {
  readonly 0: number;
  walk(): CursorLike & { delete(): void };
}

type Call = (tree: number) => number;

/**
 * A flattener for web-tree-sitter trees.
 *
 * The public cursor copies its four words into the module's transfer
 * buffer and back around every call, through `setValue`/`getValue`; the C
 * entry points it wraps (`_ts_tree_cursor_*_wasm`) read the cursor from that
 * buffer and write it back there themselves. So once `tree.walk()` has put a
 * cursor there, calling those entry points directly walks the same cursor
 * with nothing copied, and `_ts_tree_cursor_delete_wasm` frees it where it
 * ends (the public cursor's own copy is stale by then: its stack may have
 * moved). That makes the walk about twice as fast. It is used only when the
 * module exposes those entry points and, on a sample tree, it copies exactly
 * what the public cursor copies; otherwise the public cursor walks.
 */
export function wasmFlattener(sample: WasmTree | null): (tree: WasmTree) => FlatTreeData {
  const viaCursor = (tree: WasmTree): FlatTreeData => {
    const cursor = tree.walk();
    try {
      return flattenCursor(cursorSteps(cursor));
    } finally {
      cursor.delete();
    }
  };
  const m = webTreeSitterModule();
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
  if (typeId === null || fieldId === null || start === null || end === null || missing === null || first === null || next === null || parent === null || free === null) return viaCursor;
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
  if (sample === null || !sameData(direct(sample), viaCursor(sample))) return viaCursor;
  return direct;
}

function sameData(a: FlatTreeData, b: FlatTreeData): boolean {
  if (a.count !== b.count || a.count < 2) return false;
  const same = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
    for (let i = 0; i < a.count; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  return same(a.types, b.types) && same(a.fields, b.fields) && same(a.starts, b.starts) && same(a.ends, b.ends) && same(a.parents, b.parents) && same(a.flags, b.flags);
}
