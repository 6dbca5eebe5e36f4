; JSX references in TSX (added to ../typescript/references.scm for .tsx files):
; a capitalised tag is a component, called like a function. Lowercase tags
; are HTML elements, not references.
(jsx_opening_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_opening_element name: (member_expression) @reference.call)
(jsx_self_closing_element name: (member_expression) @reference.call)
