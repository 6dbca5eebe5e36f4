; References in Python: calls, decorators, base classes, annotations and
; imports. The engine names member calls `obj.method`.

; `f()`, `obj.method()`, `a.b.c()`.
(call function: (identifier) @reference.call)
(call function: (attribute) @reference.call)

; `@d`, `@d(...)`, `@a.b`.
(decorator (identifier) @reference.decorator)
(decorator (attribute) @reference.decorator)
(decorator (call function: (_) @reference.decorator))

; Base classes: `class A(B, mod.C)`.
(class_definition superclasses: (argument_list (identifier) @reference.base))
(class_definition superclasses: (argument_list (attribute) @reference.base))

; Names in annotations: `x: Foo`, `-> list[Bar]`.
(type (identifier) @reference.type)
(type (attribute) @reference.type)
(type (generic_type (identifier) @reference.type))
(type (_ (type (identifier) @reference.type)))

; PEP 695 type parameters (`T` of `def f[T: Bound]`, `class C[T]`, `type A[T] = ...`; `*Ts`, `**P`): not
; references to anything outside; the engine drops type references that name one. (The grammar also calls
; a subscript in an annotation, `list[int]`, a type_parameter: only these three places declare.)
[
  (function_definition type_parameters: (type_parameter (type [
    (identifier) @local.type_parameter
    (constrained_type . (type (identifier) @local.type_parameter))
    (splat_type (identifier) @local.type_parameter)])))
  (class_definition type_parameters: (type_parameter (type [
    (identifier) @local.type_parameter
    (constrained_type . (type (identifier) @local.type_parameter))
    (splat_type (identifier) @local.type_parameter)])))
  (type_alias_statement left: (type (generic_type (type_parameter (type [
    (identifier) @local.type_parameter
    (constrained_type . (type (identifier) @local.type_parameter))
    (splat_type (identifier) @local.type_parameter)])))))
]

; A type alias's own name (`type Pair[K] = ...`) is a declaration, not a reference.
(type_alias_statement left: (type [(identifier) @local.declaration (generic_type (identifier) @local.declaration)]))

; `import a.b`, `import a.b as c`.
(import_statement name: (dotted_name) @reference.import.module)
(import_statement name: (aliased_import name: (dotted_name) @reference.import.module))

; `from m import a, b as c` (and relative `from . import x`).
(import_from_statement
  module_name: (_) @reference.import.source
  name: (dotted_name) @reference.import.name)
(import_from_statement
  module_name: (_) @reference.import.source
  name: (aliased_import name: (dotted_name) @reference.import.name))
(import_from_statement
  module_name: (_) @reference.import.source
  (wildcard_import) @reference.import.name)
