; Comments and string literals of Java, for normalising text without walking
; the tree: comments are dropped, strings kept as written.
[(line_comment) (block_comment)] @comment
[(string_literal) (character_literal)] @string
