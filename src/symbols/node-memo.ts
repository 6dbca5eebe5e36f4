import type { SyntaxNode, Tree } from "../parse/syntax.js";

/**
 * A memo of something derived from a node, kept per tree by node id (a
 * node's id is unique within its tree while the tree lives; the entries go
 * with the tree). Asking a node anything through tree-sitter builds node
 * objects and crosses into the parser (C++ or WebAssembly), and the
 * extractors ask the same things of the same nodes again and again.
 */
export function nodeMemo<T>(derive: (node: SyntaxNode) => T): (node: SyntaxNode) => T {
  const byTree = new WeakMap<Tree, Map<number, T>>();
  return (node) => {
    let memo = byTree.get(node.tree);
    if (memo === undefined) {
      memo = new Map();
      byTree.set(node.tree, memo);
    }
    if (memo.has(node.id)) return memo.get(node.id) as T;
    const value = derive(node);
    memo.set(node.id, value);
    return value;
  };
}

/**
 * A node's parent, looked up once per node: in tree-sitter 0.25
 * `node.parent` walks down from the root to the node and builds a new node
 * object each time (through WASM, a tenth of the symbol pool's time went
 * there before this memo).
 */
export const parentOf: (node: SyntaxNode) => SyntaxNode | null = nodeMemo((node) => node.parent);
