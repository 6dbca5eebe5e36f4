/**
 * The parts of a tree-sitter syntax tree the extractors use. Both backends,
 * the native binding (`tree-sitter`) and WASM (`web-tree-sitter`), provide
 * them, so extraction code does not depend on which one parsed the file.
 * Indices and columns are in UTF-16 code units in both.
 */
export interface Point {
  readonly row: number;
  readonly column: number;
}

export interface SyntaxNode {
  readonly id: number;
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: Point;
  readonly endPosition: Point;
  readonly parent: SyntaxNode | null;
  readonly previousSibling: SyntaxNode | null;
  readonly children: readonly SyntaxNode[];
  readonly namedChildren: readonly SyntaxNode[];
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly firstNamedChild: SyntaxNode | null;
  readonly tree: Tree;
  child(index: number): SyntaxNode | null;
  childForFieldName(field: string): SyntaxNode | null;
}

export interface Tree {
  readonly rootNode: SyntaxNode;
}

export interface QueryCapture {
  readonly name: string;
  readonly node: SyntaxNode;
}

export interface QueryMatch {
  readonly captures: readonly QueryCapture[];
}
