import type { QueryMatch, SyntaxNode, Tree } from "../../parse/syntax.js";
import { definitionCaptures } from "../definition-captures.js";
import { nodeMemo, parentOf } from "../node-memo.js";
import { normalizedText } from "../normalize.js";
import type { RawSymbol } from "../raw-symbol.js";
import { emptySignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

const TYPE_DECLARATIONS = new Set(["class_declaration", "record_declaration", "interface_declaration", "annotation_type_declaration", "enum_declaration"]);

/** The modifiers that are part of a declaration's API (visibility, and what changes how it is called or extended). */
const API_MODIFIERS = new Set(["public", "protected", "private", "static", "abstract", "final", "default", "sealed", "non-sealed"]);

/**
 * Symbols of a Java file from its definitions query: classes and records (`class`), interfaces and annotation types
 * (`interface`), enums and their constants, methods (a method's overloads are one symbol, each overload a variant of
 * its signature), constructors (`Type.<init>`), fields and interface constants, qualified by the types around them.
 * Local and anonymous classes are not the package's API.
 *
 * Exported follows Java's visibility from another package: `public` or `protected` (a subclass elsewhere sees it),
 * an interface's members unless `private`, an enum's constants; a member only where every type around it is.
 */
export function extractJava(tree: Tree, matches: readonly QueryMatch[]): RawSymbol[] {
  void tree;
  const out: RawSymbol[] = [];
  for (const d of definitionCaptures(matches)) {
    const { node, nameNode } = d;
    const scope = scopeOf(node);
    if (scope === null) continue;
    const isConstructor = node.type === "constructor_declaration" || node.type === "compact_constructor_declaration";
    const symbolName = isConstructor ? "<init>" : nameNode.text;
    const kind = d.kind;
    const mods = modifiersOf(node);
    const visible = mods.includes("public") || mods.includes("protected") || (scope.inInterface && !mods.includes("private")) || node.type === "enum_constant";
    out.push({
      name: symbolName,
      qualifiedName: [...scope.names, symbolName].join("."),
      kind,
      exported: scope.exported && visible,
      node,
      signature: signatureOf(node, symbolName, kind, mods, scope),
      // (a method's body without its name: a method renamed and nothing else is a rename; a type's members are symbols
      // of their own, so its body is not read again whole, which also made every file's text be normalised twice)
      body: TYPE_DECLARATIONS.has(node.type) ? "" : normalizedText(node.childForFieldName("body") ?? node),
      overloadSignature: false,
    });
  }
  return out;
}

interface Scope {
  readonly names: string[];
  /** Whether every type around it is visible from another package. */
  readonly exported: boolean;
  /** Directly in an interface or an annotation type: its members are public unless private. */
  readonly inInterface: boolean;
}

/**
 * The scope of what is declared directly in a type declaration, by the declaration: a file's members share a few
 * enclosing types, each read once instead of once a member (their names and modifiers, up to the file's root).
 */
const scopeInside = nodeMemo((type: SyntaxNode): Scope | null => walkScope(type, type));

function scopeOf(node: SyntaxNode): Scope | null {
  // The nearest type around it, where what lies between is only a type's body: its scope is the type's.
  for (let p = parentOf(node); p !== null; p = parentOf(p)) {
    if (TYPE_DECLARATIONS.has(p.type)) return scopeInside(p);
    if (p.type === "block" || p.type === "constructor_body" || p.type === "object_creation_expression" || p.type === "lambda_expression") return null;
  }
  return walkScope(node, null);
}

function walkScope(node: SyntaxNode, from: SyntaxNode | null): Scope | null {
  const names: string[] = [];
  let exported = true;
  let inInterface: boolean | null = null;
  for (let p = from ?? parentOf(node); p !== null; p = parentOf(p)) {
    switch (p.type) {
      case "block":
      case "constructor_body":
      case "object_creation_expression":
      case "lambda_expression":
        return null;
      case "class_declaration":
      case "record_declaration":
      case "interface_declaration":
      case "annotation_type_declaration":
      case "enum_declaration": {
        names.unshift(p.childForFieldName("name")?.text ?? "");
        const interfaceLike = p.type === "interface_declaration" || p.type === "annotation_type_declaration";
        inInterface ??= interfaceLike;
        const mods = modifiersOf(p);
        // (a type nested in an interface is public unless private)
        const parentScope = parentOf(parentOf(p) ?? p);
        const inIface = parentScope?.type === "interface_declaration" || parentScope?.type === "annotation_type_declaration";
        if (!(mods.includes("public") || mods.includes("protected") || (inIface && !mods.includes("private")))) exported = false;
        break;
      }
      case "program":
        return { names, exported, inInterface: inInterface ?? false };
      default:
        break;
    }
  }
  return { names, exported, inInterface: inInterface ?? false };
}

/** A declaration's modifier keywords (annotations left out), in source order. */
function modifiersOf(node: SyntaxNode): string[] {
  // (a declaration's modifiers come first where it has them: the first named child is read before every one is)
  const first = node.firstNamedChild;
  const mods = first?.type === "modifiers" ? first : node.namedChildren.find((c) => c.type === "modifiers");
  if (mods === undefined) return [];
  const text = mods.text;
  return (text.includes("@") ? text.replace(/@\w+(\.\w+)*(\s*\((?:[^()]|\([^()]*\))*\))?/g, " ") : text).split(/\s+/).filter((w) => w !== "");
}

function signatureOf(node: SyntaxNode, name: string, kind: SymbolKind, mods: readonly string[], scope: Scope): SignatureInfo {
  const base = emptySignature(name, kind);
  const modifiers = mods.filter((m) => API_MODIFIERS.has(m));
  // (an interface's members are public unless private, said or not)
  if (scope.inInterface && !modifiers.includes("private") && !modifiers.includes("public")) modifiers.push("public");
  // An interface's method without a body is abstract; one with a body is `default` or `static`.
  if (scope.inInterface && node.type === "method_declaration" && node.childForFieldName("body") === null && !modifiers.includes("static")) modifiers.push("abstract");
  const throws = node.namedChildren.find((c) => c.type === "throws");
  if (throws !== undefined) for (const t of throws.namedChildren) modifiers.push(`throws:${normalizedText(t)}`);
  switch (node.type) {
    case "method_declaration":
    case "constructor_declaration":
    case "compact_constructor_declaration":
    case "annotation_type_element_declaration":
      return {
        ...base,
        modifiers: [...new Set(modifiers)].sort(),
        type_params: typeParamsOf(node.childForFieldName("type_parameters")),
        params: paramsOf(node.childForFieldName("parameters")),
        returns: node.childForFieldName("type") === null ? null : normalizedText(node.childForFieldName("type")),
        value: node.type === "annotation_type_element_declaration" && node.childForFieldName("value") !== null ? normalizedText(node.childForFieldName("value")) : null,
      };
    case "class_declaration":
    case "record_declaration":
    case "interface_declaration":
    case "annotation_type_declaration":
    case "enum_declaration": {
      const heritage: string[] = [];
      for (const field of ["superclass", "interfaces"]) {
        const h = node.childForFieldName(field);
        if (h !== null) heritage.push(normalizedText(h));
      }
      const ext = node.namedChildren.find((c) => c.type === "extends_interfaces");
      if (ext !== undefined) heritage.push(normalizedText(ext));
      return {
        ...base,
        modifiers: [...new Set(modifiers)].sort(),
        type_params: typeParamsOf(node.childForFieldName("type_parameters")),
        heritage,
        // A record's components are its shape.
        params: node.type === "record_declaration" ? paramsOf(node.childForFieldName("parameters")) : null,
      };
    }
    case "field_declaration":
    case "constant_declaration": {
      // An interface's fields are constants: public static final.
      const all = scope.inInterface ? [...new Set([...modifiers, "static", "final"])] : modifiers;
      const declarator = node.namedChildren.find((c) => c.type === "variable_declarator" && c.childForFieldName("name")?.text === name);
      const value = all.includes("static") && all.includes("final") && declarator?.childForFieldName("value") != null ? normalizedText(declarator.childForFieldName("value")) : null;
      return { ...base, modifiers: all.sort(), type: normalizedText(node.childForFieldName("type")), value };
    }
    default:
      return base;
  }
}

function paramsOf(list: SyntaxNode | null): ParamInfo[] {
  const out: ParamInfo[] = [];
  if (list === null) return out;
  for (const p of list.namedChildren) {
    if (p.type === "formal_parameter") {
      const dims = p.childForFieldName("dimensions");
      out.push({
        name: p.childForFieldName("name")?.text ?? "",
        kind: "positional",
        optional: false,
        default: null,
        type: `${normalizedText(p.childForFieldName("type"))}${dims === null ? "" : normalizedText(dims)}`,
      });
    } else if (p.type === "spread_parameter") {
      const type = p.namedChildren.find((c) => c.type !== "modifiers" && c.type !== "variable_declarator" && c.type !== "annotation" && c.type !== "marker_annotation");
      const name = p.namedChildren.find((c) => c.type === "variable_declarator")?.childForFieldName("name")?.text ?? "";
      out.push({ name, kind: "rest", optional: false, default: null, type: type === undefined ? null : normalizedText(type) });
    }
  }
  return out;
}

function typeParamsOf(list: SyntaxNode | null): TypeParamInfo[] {
  const out: TypeParamInfo[] = [];
  if (list === null) return out;
  for (const t of list.namedChildren) {
    if (t.type !== "type_parameter") continue;
    const name = t.namedChildren.find((c) => c.type === "type_identifier")?.text ?? "";
    const bound = t.namedChildren.find((c) => c.type === "type_bound");
    out.push({ name, constraint: bound === undefined ? null : normalizedText(bound), default: null });
  }
  return out;
}
