; References in Go: calls, composite literals, types and imports. A call
; through a package or a value is named `pkg.F` / `v.M` (the engine's
; member name of a selector).

; `f()`, `pkg.F()`, `v.M()`.
(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression) @reference.call)

; `T{...}`, `pkg.T{...}`.
(composite_literal type: (type_identifier) @reference.new)
(composite_literal type: (qualified_type) @reference.new)

; Type names: `T`, `pkg.T`.
(type_identifier) @reference.type
(qualified_type) @reference.type

; A type parameter (`T` of `func F[T any]`) names nothing outside.
(type_parameter_declaration name: (identifier) @local.type_parameter)

; A declaration's own name is not a reference to it.
(type_spec name: (type_identifier) @local.declaration)
(type_alias name: (type_identifier) @local.declaration)
(qualified_type name: (type_identifier) @local.declaration)

; `import "net/http"`, `import h "net/http"`.
(import_spec path: (_) @reference.import.path)
