; Comments and string literals of Python, for normalising text without walking
; the tree: comments are dropped, strings (f-strings, bytes, docstrings) kept as written.
(comment) @comment
(string) @string
