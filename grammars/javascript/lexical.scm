; Comments and literals of TypeScript, TSX and JavaScript, for normalising text
; without walking the tree: comments are dropped, and whitespace inside strings,
; template strings and regular expressions is kept as written.
(comment) @comment
[(string) (template_string) (regex)] @string
