; Comments and string literals of Rust, for normalising text without walking
; the tree: comments are dropped, strings kept as written.
[(line_comment) (block_comment)] @comment
[(string_literal) (raw_string_literal) (char_literal)] @string
