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
