; Definitions in Python.
;
; Each pattern captures the definition as @definition.<kind> and its name as
; @name. The engine (src/symbols/python/) qualifies names (`Class.method`,
; `outer.inner`), tells methods from functions by their enclosing class, reads
; decorators, parameters and annotations, and decides what is public
; (`__all__`, else no leading underscore). The shipped tags.scm has no
; methods, class attributes, `self.x`, `type X = ...` or `__all__` handling.

; `def f():` and `async def f():` anywhere (module, class, nested in a
; function, under `if`/`try`), decorated or not (the decorated_definition is
; the function's parent; the engine reads the decorators from it).
(function_definition name: (identifier) @name) @definition.function

(class_definition name: (identifier) @name) @definition.class

; Module-level assignments: `X = 1`, `X: int = 1`, and each name of
; `a, b = 1, 2` (also under a module-level `if`/`try`, which the engine keeps).
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(module
  (expression_statement
    (assignment left: [(pattern_list (identifier) @name) (tuple_pattern (identifier) @name)]) @definition.variable))

; Class attributes: `x = 1`, `y: str` and each name of `a, b = 1, 2`
; directly in a class body.
(class_definition
  body: (block
    (expression_statement
      (assignment left: [
        (identifier) @name
        (pattern_list (identifier) @name)
        (tuple_pattern (identifier) @name)]) @definition.property)))

; `self.x = ...` (with or without an annotation) and each attribute of
; `self.a, self.b = a, b` in `__init__`.
(function_definition
  name: (identifier) @_init
  parameters: (parameters . (identifier) @_self)
  body: (block
    (expression_statement
      (assignment
        left: [
          (attribute object: (identifier) @_obj attribute: (identifier) @name)
          (pattern_list (attribute object: (identifier) @_obj attribute: (identifier) @name))
          (tuple_pattern (attribute object: (identifier) @_obj attribute: (identifier) @name))]) @definition.property))
  (#eq? @_init "__init__")
  (#eq? @_obj @_self))

; PEP 695 `type X = ...`.
(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type
