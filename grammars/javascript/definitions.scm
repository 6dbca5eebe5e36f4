; Definitions in JavaScript (with JSX), for tree-sitter-javascript: the
; TypeScript patterns (../typescript/definitions.scm) whose nodes exist in
; JavaScript. The engine (src/symbols/typescript/, shared by both) works out
; qualified names, exports, signatures and bodies, and drops locals.

; `function f() {}`
(function_declaration name: (identifier) @name) @definition.function

; `function* g() {}`
(generator_function_declaration name: (identifier) @name) @definition.function

; Arrow functions, function expressions and generators bound to a name.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Every other binding with a plain name (module level only, in the engine).
(variable_declarator name: (identifier) @name) @definition.variable

; Destructured bindings: `const { a, b: c, ...rest } = o`, `let [x, [y]] = t`.
; The engine makes a variable of each name the pattern binds.
(variable_declarator name: [(object_pattern) (array_pattern)] @name) @definition.variable

; Classes: JavaScript names them with a plain identifier.
(class_declaration name: (identifier) @name) @definition.class

; Methods, getters/setters, static, `#private`, computed names; and the
; functions of an object literal bound to a module-level name,
; `const api = { get(id) {}, post: (b) => {} }` (`api.get`, `api.post`).
[
  (method_definition
    name: [(property_identifier) (private_property_identifier) (string) (number) (computed_property_name)] @name)
  (pair
    key: [(property_identifier) (string) (number) (computed_property_name)] @name
    value: [(arrow_function) (function_expression) (generator_function)])
] @definition.method

; Class fields: `x = 1`, `#y`, `handler = () => {}`.
(field_definition
  property: [(property_identifier) (private_property_identifier) (string) (number) (computed_property_name)] @name) @definition.property

; Function-like nodes: whatever is declared inside one is local and dropped.
[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
  (class_static_block)
] @scope.function
