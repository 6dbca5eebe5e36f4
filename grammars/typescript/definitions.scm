; Definitions in TypeScript and TSX.
;
; Each pattern captures the whole declaration as @definition.<kind> and its
; name as @name. The engine (src/symbols/typescript/) then works out what
; queries cannot: the qualified name (Class.method, Namespace.fn), whether it
; is exported, its signature and body, and it drops locals (anything declared
; inside a function body). The shipped tags.scm misses most of what is below
; (see docs/compatibility.md).

; --- Functions -------------------------------------------------------------

; (Patterns that share their captures are written as one with alternatives:
; the query compiles faster, which every process that compiles it pays for.)

; `function f() {}`, `function* g() {}`, overload signatures
; (`function f(a: string): void;`) and `declare function f(): void`
; (`declare` wraps them in an ambient_declaration, which the engine reads as
; a modifier).
[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
  (function_signature name: (identifier) @name)
] @definition.function

; Arrow functions, function expressions and generators bound to a name:
; `const f = () => {}`, `let g = function () {}`, `const h = function* () {}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; --- Variables ---------------------------------------------------------------

; Every `const` / `let` / `var` binding with a plain name. A binding also
; matched above as a function is a function (the engine keeps the more
; specific capture of a node); only module- and namespace-level ones are kept.
(variable_declarator name: (identifier) @name) @definition.variable

; Destructured bindings: `const { a, b: c, ...rest } = o`, `let [x, [y]] = t`.
; The engine makes a variable of each name the pattern binds.
(variable_declarator name: [(object_pattern) (array_pattern)] @name) @definition.variable

; --- Classes and their members ---------------------------------------------

[
  (class_declaration name: (type_identifier) @name)
  (abstract_class_declaration name: (type_identifier) @name)
] @definition.class

; Methods, including getters/setters, static, `#private` and computed names;
; `abstract run(): void;`; interface (and class overload) method signatures,
; `m(a: T): void;`; and the functions of an object literal bound to a
; module-level name, `const api = { get(id) {}, post: (b) => {} }` (the
; engine keeps only those: `api.get`, `api.post`).
[
  (method_definition
    name: [(property_identifier) (private_property_identifier) (string) (number) (computed_property_name)] @name)
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name)
  (method_signature
    name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name)
  (pair
    key: [(property_identifier) (string) (number) (computed_property_name)] @name
    value: [(arrow_function) (function_expression) (generator_function)])
] @definition.method

; Class fields, including arrow-function fields and `#private` ones, and
; interface properties: `p: string;`, `readonly q?: number;`.
[
  (public_field_definition
    name: [(property_identifier) (private_property_identifier) (string) (number) (computed_property_name)] @name)
  (property_signature
    name: [(property_identifier) (string) (number) (computed_property_name)] @name)
] @definition.property

; Call and construct signatures of interfaces, `(x: number): string;` and
; `new (y: string): T;`, and index signatures of interfaces and classes,
; `[key: string]: T;`: members without a name, named by the engine as the
; TypeScript compiler names them (`__call`, `__new`, `__index`); several of
; one kind are overloads of one member.
[(call_signature) (construct_signature)] @name @definition.method
(index_signature) @name @definition.property

; --- Interfaces, type aliases, enums -----------------------------------------

(interface_declaration name: (type_identifier) @name) @definition.interface

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

; Enum members, with a value (`A = 1`) or without (`B`).
(enum_assignment name: (_) @name) @definition.enum_member
(enum_body name: (_) @name @definition.enum_member)

; --- Namespaces and modules ------------------------------------------------

; `namespace N {}` (parsed as internal_module) and legacy `module N {}`.
(internal_module name: (_) @name) @definition.namespace

; `declare module "m" {}` and `declare global {}`.
(module name: (_) @name) @definition.module

; --- Scopes ----------------------------------------------------------------

; Function-like nodes: whatever is declared inside one is local and dropped.
; (The engine tells scopes by their ranges, which is cheaper than walking
; each definition's parents through the native binding.)
[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
  (class_static_block)
] @scope.function

; `declare global { ... }`: a container named `global`.
(ambient_declaration "global" (statement_block) @scope.global)
