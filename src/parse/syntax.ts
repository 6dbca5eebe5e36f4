/**
 * The parts of a tree-sitter syntax tree that the extractors and the shell
 * reader use, as a flat copy of a tree answers them (`FlatNode`), whichever
 * parser made the copy. Indices and columns are in UTF-16 code units.
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
  childrenForFieldName(field: string): readonly SyntaxNode[];
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
