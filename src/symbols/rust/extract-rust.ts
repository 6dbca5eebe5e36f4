import type { QueryMatch, SyntaxNode, Tree } from "../../parse/syntax.js";
import { definitionCaptures } from "../definition-captures.js";
import { parentOf } from "../node-memo.js";
import { normalizedText } from "../normalize.js";
import type { RawSymbol } from "../raw-symbol.js";
import { emptySignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

/**
 * Symbols of a Rust file from its definitions query: functions, structs and unions (`class`), enums and their
 * variants, traits (`interface`) with their methods and associated types, type aliases, constants and statics,
 * inline modules, and fields. Names are qualified by the inline modules, types and traits around them: an inherent
 * method is `Client.connect`, a trait's method `Store.get`, a trait impl's `Memory.Store.get` (one per trait, so two
 * traits' methods of one name are two symbols, not an overload or a rename); a variant's field `Event.Key.code`.
 * What is declared inside a function body is not the crate's API.
 *
 * Public follows Rust: `pub` (not `pub(crate)`, `pub(super)` or `pub(in ..)`, which stay in the crate), every item
 * of a public trait, a trait impl's methods where the type is public, an enum's variants and their fields where the
 * enum is; a member is public only where everything around it is.
 */
export function extractRust(tree: Tree, matches: readonly QueryMatch[]): RawSymbol[] {
  void tree;
  const out: RawSymbol[] = [];
  for (const d of definitionCaptures(matches)) {
    const { node, nameNode } = d;
    const scope = scopeOf(node);
    if (scope === null) continue;
    const symbolName = nameNode.text;
    const queryKind = d.kind;
    // A function in an impl or a trait is a method.
    const kind: SymbolKind = queryKind === "function" && scope.inType ? "method" : queryKind;
    out.push({
      name: symbolName,
      qualifiedName: [...scope.names, symbolName].join("."),
      kind,
      exported: scope.public && isPublic(node, scope),
      node,
      signature: signatureOf(node, symbolName, kind, scope),
      // (a function's body without its name: a function renamed and nothing else is a rename)
      body: normalizedText(node.childForFieldName("body") ?? node),
      overloadSignature: false,
    });
  }
  return out;
}

interface Scope {
  /** The inline modules, types, traits and variants around it, outermost first. */
  readonly names: string[];
  /** Whether everything around it is public. */
  readonly public: boolean;
  /** In an `impl` or a `trait`: a function there is a method. */
  readonly inType: boolean;
  /** Directly in a trait (its items need no `pub`), or in a trait's impl (`impl Trait for T`: the trait's name). */
  readonly trait: "declaration" | string | null;
}

/** What encloses a definition, or null for one inside a function body (not the crate's API). */
function scopeOf(node: SyntaxNode): Scope | null {
  const names: string[] = [];
  let isPublicAround = true;
  let inType = false;
  let trait: Scope["trait"] = null;
  let first = true;
  for (let p = parentOf(node); p !== null; p = parentOf(p)) {
    switch (p.type) {
      case "block":
      case "closure_expression":
        return null;
      case "mod_item":
      case "struct_item":
      case "union_item":
      case "enum_item":
      case "enum_variant":
        names.unshift(p.childForFieldName("name")?.text ?? "");
        if (p.type !== "enum_variant" && !hasPub(p)) isPublicAround = false;
        break;
      case "trait_item":
        names.unshift(p.childForFieldName("name")?.text ?? "");
        if (!hasPub(p)) isPublicAround = false;
        inType = true;
        if (first) trait = "declaration";
        break;
      case "impl_item": {
        const type = typeName(p.childForFieldName("type"));
        const implemented = p.childForFieldName("trait");
        inType = true;
        if (implemented !== null) {
          // (`impl From<bool> for V` and `impl From<u8> for V` are two impls: the trait is named with its arguments)
          const t = traitName(implemented);
          names.unshift(type, t);
          if (first) trait = t;
        } else names.unshift(type);
        break;
      }
      case "declaration_list":
      case "field_declaration_list":
      case "enum_variant_list":
      case "ordered_field_declaration_list":
        continue;
      case "source_file":
        return { names, public: isPublicAround, inType, trait };
      default:
        break;
    }
    first = false;
  }
  return { names, public: isPublicAround, inType, trait };
}

/** `pub` alone: `pub(crate)`, `pub(super)`, `pub(self)` and `pub(in path)` keep an item in its crate. */
function hasPub(node: SyntaxNode): boolean {
  const v = node.namedChildren.find((c) => c.type === "visibility_modifier");
  return v !== undefined && v.text.replace(/\s+/g, "") === "pub";
}

function isPublic(node: SyntaxNode, scope: Scope): boolean {
  // A trait's items, an enum's variants and their fields are as public as the trait or enum; a trait impl's methods
  // as its type and trait.
  if (scope.trait !== null) return true;
  if (node.type === "enum_variant") return true;
  if (node.type === "field_declaration" && parentOf(parentOf(node) ?? node)?.type === "enum_variant") return true;
  return hasPub(node);
}

/** A trait as an impl names it, with its type arguments (`From<bool>`), without its path (`fmt::Display`: `Display`). */
function traitName(node: SyntaxNode): string {
  if (node.type === "generic_type") {
    const args = node.childForFieldName("type_arguments");
    return `${typeName(node)}${args === null ? "" : normalizedText(args)}`;
  }
  return typeName(node);
}

/** A type's name as an impl names it: `Client<T>`, `&'a mut Client` and `crate::net::Client` are `Client`. */
function typeName(node: SyntaxNode | null): string {
  let t = node;
  for (let i = 0; t !== null && i < 8; i++) {
    if (t.type === "generic_type") t = t.childForFieldName("type");
    else if (t.type === "reference_type" || t.type === "pointer_type") t = t.childForFieldName("type");
    else if (t.type === "scoped_type_identifier" || t.type === "scoped_identifier") t = t.childForFieldName("name");
    else break;
  }
  return t?.text ?? "";
}

function signatureOf(node: SyntaxNode, name: string, kind: SymbolKind, scope: Scope): SignatureInfo {
  const base = emptySignature(name, kind);
  switch (node.type) {
    case "function_item":
    case "function_signature_item": {
      const modifiers: string[] = [];
      const mods = node.namedChildren.find((c) => c.type === "function_modifiers");
      if (mods !== undefined) for (const w of mods.text.split(/\s+/)) if (w !== "") modifiers.push(w);
      const params = node.childForFieldName("parameters");
      const self = params?.namedChildren.find((c) => c.type === "self_parameter");
      if (self !== undefined) modifiers.push(`self:${self.text.replace(/\s+/g, "")}`);
      // A trait's method with a body has a default: implementers need not write it.
      if (scope.trait === "declaration" && node.type === "function_item") modifiers.push("default");
      if (typeof scope.trait === "string" && scope.trait !== "declaration") modifiers.push(`impl:${scope.trait}`);
      return {
        ...base,
        modifiers: modifiers.sort(),
        type_params: typeParamsOf(node.childForFieldName("type_parameters"), node),
        params: paramsOf(params),
        returns: node.childForFieldName("return_type") === null ? null : normalizedText(node.childForFieldName("return_type")),
      };
    }
    case "struct_item":
    case "union_item":
    case "enum_item":
    case "trait_item": {
      const bounds = node.childForFieldName("bounds");
      return {
        ...base,
        // (read for these only: a module of a thousand items does not look at its siblings a thousand times)
        modifiers: attributesOf(node).filter((a) => a === "non_exhaustive"),
        type_params: typeParamsOf(node.childForFieldName("type_parameters"), node),
        heritage: bounds === null ? [] : [normalizedText(bounds)],
        // A tuple struct's fields are its shape (`struct Id(u64)`).
        type: node.childForFieldName("body")?.type === "ordered_field_declaration_list" ? normalizedText(node.childForFieldName("body")) : null,
      };
    }
    case "enum_variant": {
      const body = node.childForFieldName("body");
      return {
        ...base,
        type: body?.type === "ordered_field_declaration_list" ? normalizedText(body) : null,
        value: node.childForFieldName("value") === null ? null : normalizedText(node.childForFieldName("value")),
      };
    }
    case "type_item":
    case "associated_type":
      return {
        ...base,
        type_params: typeParamsOf(node.childForFieldName("type_parameters"), node),
        type: node.childForFieldName("type") === null ? null : normalizedText(node.childForFieldName("type")),
        heritage: node.childForFieldName("bounds") === null ? [] : [normalizedText(node.childForFieldName("bounds"))],
        modifiers: node.type === "associated_type" && node.childForFieldName("type") !== null ? ["default"] : [],
      };
    case "const_item":
    case "static_item": {
      const modifiers = [node.type === "const_item" ? "const" : "static"];
      if (node.namedChildren.some((c) => c.type === "mutable_specifier")) modifiers.push("mut");
      return { ...base, modifiers, type: normalizedText(node.childForFieldName("type")), value: node.type === "const_item" ? normalizedText(node.childForFieldName("value")) : null };
    }
    case "field_declaration":
      return { ...base, type: normalizedText(node.childForFieldName("type")) };
    default:
      return base;
  }
}

/** The names of the attributes just before an item (`#[non_exhaustive]`, `#[derive(..)]` as `derive`). */
function attributesOf(node: SyntaxNode): string[] {
  const out: string[] = [];
  const parent = parentOf(node);
  if (parent === null) return out;
  const siblings = parent.namedChildren;
  const at = siblings.findIndex((c) => c.id === node.id);
  for (let i = at - 1; i >= 0; i--) {
    const s = siblings[i] as SyntaxNode;
    if (s.type === "line_comment" || s.type === "block_comment") continue;
    if (s.type !== "attribute_item") break;
    const m = /^#\[\s*([\w:]+)/.exec(s.text);
    if (m?.[1] !== undefined) out.push(m[1]);
  }
  return out;
}

function paramsOf(list: SyntaxNode | null): ParamInfo[] {
  const out: ParamInfo[] = [];
  if (list === null) return out;
  for (const p of list.namedChildren) {
    if (p.type !== "parameter" && p.type !== "variadic_parameter") continue;
    const pattern = p.childForFieldName("pattern");
    const type = p.childForFieldName("type");
    out.push({
      name: pattern === null ? "" : pattern.text,
      kind: p.type === "variadic_parameter" ? "rest" : "positional",
      optional: false,
      default: null,
      type: type === null ? null : normalizedText(type),
    });
  }
  return out;
}

/** Type and const parameters with their bounds, the `where` clause's bounds added to theirs; lifetimes too. */
function typeParamsOf(list: SyntaxNode | null, item: SyntaxNode): TypeParamInfo[] {
  const out: TypeParamInfo[] = [];
  if (list !== null) {
    for (const d of list.namedChildren) {
      if (d.type === "type_parameter") {
        const bounds = d.childForFieldName("bounds");
        const def = d.childForFieldName("default_type");
        out.push({ name: d.childForFieldName("name")?.text ?? "", constraint: bounds === null ? null : normalizedText(bounds), default: def === null ? null : normalizedText(def) });
      } else if (d.type === "lifetime_parameter" || d.type === "const_parameter" || d.type === "type_identifier") out.push({ name: normalizedText(d), constraint: null, default: null });
    }
  }
  const where = item.namedChildren.find((c) => c.type === "where_clause");
  if (where !== undefined) out.push({ name: "where", constraint: normalizedText(where), default: null });
  return out;
}
