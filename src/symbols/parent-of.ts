import type { SyntaxNode, Tree } from "./syntax.js";

/** Each tree's parents found so far, by node id (a node's id is unique within its tree while the tree lives). */
const parents = new WeakMap<Tree, Map<number, SyntaxNode | null>>();

/**
 * A node's parent, looked up once per node. In tree-sitter 0.25 `node.parent`
 * walks down from the root to the node and builds a new node object each time
 * (through WASM, a tenth of the symbol pool's time went there before this
 * memo; benchmarks/README.md), and the extractors ask for the same parents
 * again and again.
 */
export function parentOf(node: SyntaxNode): SyntaxNode | null {
  let memo = parents.get(node.tree);
  if (memo === undefined) {
    memo = new Map();
    parents.set(node.tree, memo);
  }
  const known = memo.get(node.id);
  if (known !== undefined) return known;
  const parent = node.parent;
  memo.set(node.id, parent);
  return parent;
}
