; Definitions in Java.
;
; Each pattern captures the definition as @definition.<kind> and its name as
; @name. The engine (src/symbols/java/) qualifies members by the types around
; them (`Outer.Inner.method`; a constructor is `Type.<init>`), groups a
; method's overloads under one name, and decides what is exported (`public` or
; `protected`, an interface's members unless `private`, an enum's constants; a
; member only where every type around it is).

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum_member
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.property
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.property
