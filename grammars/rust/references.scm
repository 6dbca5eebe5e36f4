; References in Rust: calls, struct literals, types and `use` declarations.

; `f()`, `a::b::f()`, `x.m()`.
(call_expression function: (identifier) @reference.call)
(call_expression function: (scoped_identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))

; `T { .. }`, `a::T { .. }`.
(struct_expression name: (type_identifier) @reference.new)
(struct_expression name: (scoped_type_identifier) @reference.new)

; Type names: `T`, `a::T`.
(type_identifier) @reference.type
(scoped_type_identifier) @reference.type

; A type parameter names nothing outside; a declaration's own name is no reference to it.
(type_parameters (type_parameter name: (type_identifier) @local.type_parameter))
(type_parameters (type_identifier) @local.type_parameter)
(struct_item name: (type_identifier) @local.declaration)
(enum_item name: (type_identifier) @local.declaration)
(trait_item name: (type_identifier) @local.declaration)
(type_item name: (type_identifier) @local.declaration)
(union_item name: (type_identifier) @local.declaration)
(associated_type name: (type_identifier) @local.declaration)
