; Definitions in Go.
;
; Each pattern captures the definition as @definition.<kind> and its name as
; @name. The engine (src/symbols/go/) qualifies members by their type
; (`Server.Start`, `Config.Port`, `Store.Get` of an interface), reads
; parameters, results and type parameters, and decides what is exported
; (Go's rule: a name that starts with an upper-case letter; a method or field
; of an unexported type is not reachable by that name from another package).

; `func F(...)` at package level.
(function_declaration name: (identifier) @name) @definition.function

; `func (r *T) M(...)`: the receiver's type qualifies it.
(method_declaration name: (field_identifier) @name) @definition.method

; `type T struct {...}`, `type I interface {...}`, `type D int`, `type A = B`.
(type_declaration (type_spec name: (type_identifier) @name) @definition.type)
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)

; A struct's fields (each name of `A, B int`), an embedded type's as its type name.
(field_declaration name: (field_identifier) @name) @definition.property
(field_declaration . type: [(type_identifier) @name (pointer_type (type_identifier) @name) (qualified_type name: (type_identifier) @name) (generic_type type: (type_identifier) @name)]) @definition.property

; An interface's methods.
(method_elem name: (field_identifier) @name) @definition.method

; Package-level constants and variables (each name of `const A, B = 1, 2`).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
