; Definitions in Rust.
;
; Each pattern captures the definition as @definition.<kind> and its name as
; @name. The engine (src/symbols/rust/) qualifies names by the inline modules,
; types and traits around them (`client::Client.connect`, a trait's method
; `Store.get`, a trait impl's method `Memory.Store.get`), reads parameters,
; the receiver, generics and bounds, and decides what is public (`pub`, and
; every item of a public trait; `pub(crate)` and narrower are the crate's own).

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(struct_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum_member
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.variable
(static_item name: (identifier) @name) @definition.variable
(mod_item name: (identifier) @name) @definition.module
(field_declaration name: (field_identifier) @name) @definition.property
