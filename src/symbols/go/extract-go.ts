import type { QueryMatch, SyntaxNode, Tree } from "../../parse/syntax.js";
import { definitionCaptures } from "../definition-captures.js";
import { parentOf } from "../node-memo.js";
import { normalizedText } from "../normalize.js";
import type { RawSymbol } from "../raw-symbol.js";
import { emptySignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

/**
 * Symbols of a Go file from its definitions query: package-level functions, constants and variables; types (a struct
 * as a `class`, an interface as an `interface`, any other defined type or alias as a `type`); methods qualified by
 * their receiver's type (`Server.Start`), a struct's fields (`Config.Port`, an embedded type by its name) and an
 * interface's methods (`Store.Get`). What is declared inside a function is not part of the package's API.
 *
 * Exported follows Go: a name that starts with an upper-case letter; a member is reachable from another package only
 * when its type's name is exported too.
 */
export function extractGo(tree: Tree, matches: readonly QueryMatch[]): RawSymbol[] {
  void tree;
  const out: RawSymbol[] = [];
  // (each declaration's spec count once: a `const (...)` block of a thousand specs is not counted a thousand times)
  const specs = new Map<number, number>();
  for (const d of definitionCaptures(matches)) {
    const { node, nameNode } = d;
    if (insideFunction(node)) continue;
    const symbolName = nameNode.text;
    const queryKind = d.kind;
    const owner = queryKind === "property" || (queryKind === "method" && node.type === "method_elem") ? ownerOf(node) : node.type === "method_declaration" ? receiverType(node) : [];
    if (owner === null) continue;
    const kind = queryKind === "type" ? typeKind(node) : queryKind;
    const qualifiedName = [...owner, symbolName].join(".");
    out.push({
      name: symbolName,
      qualifiedName,
      kind,
      exported: isExported(symbolName) && owner.every(isExported),
      node: outerNode(node, specs),
      signature: signatureOf(node, symbolName, kind, nameNode),
      // (a function's body without its name: a function renamed and nothing else is a rename)
      body: normalizedText(node.childForFieldName("body") ?? node),
      overloadSignature: false,
    });
  }
  return out;
}

/** Go's rule: exported when the first letter is upper case (any script's). */
function isExported(name: string): boolean {
  return /^\p{Lu}/u.test(name);
}

/** Whether a definition is inside a function's body (a local type or variable). */
function insideFunction(node: SyntaxNode): boolean {
  for (let p = parentOf(node); p !== null; p = parentOf(p)) {
    const t = p.type;
    if (t === "block" || t === "func_literal") return true;
    if (t === "source_file") return false;
  }
  return false;
}

/** The node a symbol's lines are: a type's whole `type` declaration where it is its only spec, a spec otherwise. */
function outerNode(node: SyntaxNode, specs: Map<number, number>): SyntaxNode {
  const type = node.type;
  if (type !== "type_spec" && type !== "type_alias" && type !== "const_spec" && type !== "var_spec") return node;
  const parent = parentOf(node);
  if (parent === null || (parent.type !== "type_declaration" && parent.type !== "const_declaration" && parent.type !== "var_declaration")) return node;
  let n = specs.get(parent.id);
  if (n === undefined) {
    n = 0;
    for (const c of parent.namedChildren) if (c.type !== "comment") n++;
    specs.set(parent.id, n);
  }
  return n === 1 ? parent : node;
}

/** What a type declares: a struct, an interface, or another type. */
function typeKind(node: SyntaxNode): SymbolKind {
  const t = node.childForFieldName("type")?.type;
  if (node.type === "type_alias") return "type";
  return t === "struct_type" ? "class" : t === "interface_type" ? "interface" : "type";
}

/**
 * The names a struct field or an interface method is qualified by: its type's, and the fields of anonymous structs
 * it is nested in (`Config.TLS.Cert`). Null for one of a struct or interface that is no named type's (a parameter's,
 * a variable's): no name reaches it from another package.
 */
function ownerOf(node: SyntaxNode): string[] | null {
  const names: string[] = [];
  for (let p = parentOf(node); p !== null; p = parentOf(p)) {
    if (p.type === "type_spec" || p.type === "type_alias") {
      names.unshift(p.childForFieldName("name")?.text ?? "");
      return names;
    }
    if (p.type === "field_declaration") {
      const n = p.childForFieldName("name")?.text;
      if (n === undefined) return null;
      names.unshift(n);
    } else if (p.type !== "field_declaration_list" && p.type !== "struct_type" && p.type !== "interface_type" && p.type !== "pointer_type" && p.type !== "slice_type" && p.type !== "array_type")
      return null;
  }
  return null;
}

/** The type a method's receiver names (`*Server[T]` is `Server`). */
function receiverType(node: SyntaxNode): string[] {
  const receiver = node.childForFieldName("receiver");
  const param = receiver?.namedChildren.find((c) => c.type === "parameter_declaration");
  let t = param?.childForFieldName("type") ?? null;
  while (t !== null && (t.type === "pointer_type" || t.type === "generic_type" || t.type === "parenthesized_type")) {
    t = t.type === "generic_type" ? t.childForFieldName("type") : (t.namedChildren[0] ?? null);
  }
  return [t?.text ?? ""];
}

function signatureOf(node: SyntaxNode, name: string, kind: SymbolKind, nameNode: SyntaxNode): SignatureInfo {
  const base = emptySignature(name, kind);
  switch (node.type) {
    case "function_declaration":
    case "method_declaration":
    case "method_elem": {
      const modifiers: string[] = [];
      if (node.type === "method_declaration") {
        const param = node.childForFieldName("receiver")?.namedChildren.find((c) => c.type === "parameter_declaration");
        if (param?.childForFieldName("type")?.type === "pointer_type") modifiers.push("pointer_receiver");
      }
      return {
        ...base,
        modifiers,
        type_params: typeParamsOf(node.childForFieldName("type_parameters")),
        params: paramsOf(node.childForFieldName("parameters")),
        returns: resultsOf(node.childForFieldName("result")),
      };
    }
    case "type_spec":
    case "type_alias": {
      const type = node.childForFieldName("type");
      const shape = type?.type === "struct_type" || type?.type === "interface_type" ? null : normalizedText(type);
      // An interface's embedded interfaces and type sets are its heritage; a struct's are fields.
      const heritage = type?.type === "interface_type" ? type.namedChildren.filter((c) => c.type === "type_elem").map((c) => normalizedText(c)) : [];
      return { ...base, modifiers: node.type === "type_alias" ? ["alias"] : [], type_params: typeParamsOf(node.childForFieldName("type_parameters")), type: shape, heritage };
    }
    case "field_declaration": {
      const embedded = node.childForFieldName("name") === null;
      // (an embedded `*Base` is written with its star before the type field)
      const star = embedded && node.children.some((c) => c.type === "*") ? "*" : "";
      return { ...base, modifiers: embedded ? ["embedded"] : [], type: `${star}${normalizedText(node.childForFieldName("type"))}` };
    }
    case "const_spec":
    case "var_spec": {
      // Each name of `const A, B = 1, 2` takes its own value.
      const names = node.children.filter((c) => c.type === "identifier" && c.startIndex < (node.childForFieldName("value")?.startIndex ?? Number.POSITIVE_INFINITY));
      const values = node.childForFieldName("value")?.namedChildren.filter((c) => c.type !== "comment") ?? [];
      const at = names.findIndex((c) => c.id === nameNode.id);
      const value = node.type === "const_spec" && at >= 0 && values[at] !== undefined ? normalizedText(values[at] as SyntaxNode) : null;
      const declared = node.childForFieldName("type");
      return { ...base, modifiers: node.type === "const_spec" ? ["const"] : [], type: declared === null ? null : normalizedText(declared), value };
    }
    default:
      return base;
  }
}

/** A parameter list's parameters: each name of `a, b int` with its type; an unnamed one by its position. */
function paramsOf(list: SyntaxNode | null): ParamInfo[] {
  const out: ParamInfo[] = [];
  if (list === null) return out;
  for (const p of list.namedChildren) {
    if (p.type !== "parameter_declaration" && p.type !== "variadic_parameter_declaration") continue;
    const typeNode = p.childForFieldName("type");
    const type = typeNode === null ? null : normalizedText(typeNode);
    const rest = p.type === "variadic_parameter_declaration";
    const names = p.children.filter((c) => c.type === "identifier" || c.type === "blank_identifier").map((c) => c.text);
    if (names.length === 0) names.push("");
    for (const n of names) out.push({ name: n, kind: rest ? "rest" : "positional", optional: false, default: null, type });
  }
  return out;
}

/** A function's results as written, normalised (`(string, error)`, `error`); null for none. */
function resultsOf(result: SyntaxNode | null): string | null {
  if (result === null) return null;
  if (result.type !== "parameter_list") return normalizedText(result);
  // Names of named results are not part of what callers see: the types are.
  const types: string[] = [];
  for (const p of result.namedChildren) {
    if (p.type !== "parameter_declaration" && p.type !== "variadic_parameter_declaration") continue;
    const t = normalizedText(p.childForFieldName("type"));
    const n = Math.max(1, p.children.filter((c) => c.type === "identifier").length);
    for (let i = 0; i < n; i++) types.push(t);
  }
  return types.length === 1 ? (types[0] as string) : `(${types.join(", ")})`;
}

function typeParamsOf(list: SyntaxNode | null): TypeParamInfo[] {
  const out: TypeParamInfo[] = [];
  if (list === null) return out;
  for (const d of list.namedChildren) {
    if (d.type !== "type_parameter_declaration") continue;
    const constraint = normalizedText(d.childForFieldName("type"));
    for (const n of d.children.filter((c) => c.type === "identifier")) out.push({ name: n.text, constraint, default: null });
  }
  return out;
}
