; References in Java: calls, instantiations, types and imports.

; `f()`, `x.f()`.
(method_invocation name: (identifier) @reference.call)

; `new T(..)`.
(object_creation_expression type: (type_identifier) @reference.new)

; Type names.
(type_identifier) @reference.type

; A type parameter names nothing outside.
(type_parameter (type_identifier) @local.type_parameter)
