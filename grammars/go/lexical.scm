; Comments and string literals of Go, for normalising text without walking the
; tree: comments are dropped, strings kept as written.
(comment) @comment
(interpreted_string_literal) @string
(raw_string_literal) @string
