; References in JavaScript (with JSX); see ../typescript/references.scm.

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression) @reference.call)

(new_expression constructor: (identifier) @reference.new)
(new_expression constructor: (member_expression) @reference.new)

; `class A extends B`
(class_heritage (_) @reference.type)

; JSX components: `<Button />` (lowercase tags are HTML elements).
(jsx_opening_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))

(decorator (identifier) @reference.decorator)
(decorator (call_expression function: (_) @reference.decorator))

(import_statement source: (string) @reference.import.source) @reference.import
(export_statement source: (string) @reference.export.source) @reference.export

(call_expression function: (import) arguments: (arguments (string) @reference.import.dynamic))
(call_expression
  function: (identifier) @_require
  arguments: (arguments (string) @reference.import.dynamic)
  (#eq? @_require "require"))
