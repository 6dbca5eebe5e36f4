; References in TypeScript and TSX: what a file uses, so that the API can
; tell that a session now depends on a symbol another session changes.
; Captures are @reference.<kind>; the engine turns each into a name
; (`obj.method` for member calls) and drops declaration names.

; (Patterns that share a capture are written as one with alternatives: the
; query compiles faster, which every process that compiles it pays for.)

; Calls: `f()`, `obj.method()`, `a.b.c()`.
(call_expression function: [(identifier) (member_expression)] @reference.call)

; `new X()`, `new ns.X()`.
(new_expression constructor: [(identifier) (member_expression)] @reference.new)

; Types: every type name (annotations, generics, heritage, `satisfies`), and
; qualified ones (`ns.Type`). Declaration names are dropped by the engine.
[(type_identifier) (nested_type_identifier)] @reference.type

; `class A extends B` (a value, not a type, in TypeScript's grammar).
(extends_clause value: (_) @reference.type)

; Decorators: `@d` and `@d()`.
(decorator [(identifier) @reference.decorator (call_expression function: (_) @reference.decorator)])

; Imports, with their module specifier.
(import_statement source: (string) @reference.import.source) @reference.import

; Re-exports: `export { a as b } from "m"`, `export * from "m"`.
(export_statement source: (string) @reference.export.source) @reference.export

; Dynamic `import("m")` and `require("m")`.
(call_expression
  function: [(import) (identifier)] @_callee
  arguments: (arguments (string) @reference.import.dynamic)
  (#match? @_callee "^(import|require)$"))

; Type parameters (`T` of `f<T>`): not references to anything outside; the
; engine drops type references that name one.
(type_parameter name: (type_identifier) @local.type_parameter)

; Type names that are not references, for the engine to drop by node: a
; declaration's own name (`class A`, `interface I`, `type T`, the `T` of
; `<T>`), and the parts of a qualified type (`JSX.Element` is one reference,
; captured whole above, not also `Element`). Matching them here spares a
; parent lookup per type reference.
[
  (class_declaration name: (_) @local.declaration)
  (abstract_class_declaration name: (_) @local.declaration)
  (interface_declaration name: (_) @local.declaration)
  (type_alias_declaration name: (_) @local.declaration)
  (type_parameter name: (_) @local.declaration)
  (class name: (_) @local.declaration)
  (nested_type_identifier (_) @local.declaration)
]
