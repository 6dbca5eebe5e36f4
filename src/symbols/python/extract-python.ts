import { nodeMemo, parentOf } from "../node-memo.js";
import { definitionCaptures } from "../definition-captures.js";
import type { QueryMatch, SyntaxNode, Tree } from "../../parse/syntax.js";
import { normalizedText, sourceOf, typeText } from "../normalize.js";
import type { RawSymbol } from "../raw-symbol.js";
import { emptySignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

/**
 * Symbols of a Python file from its definitions query: functions and
 * classes anywhere (qualified by their enclosing classes and functions),
 * methods as methods, module variables, class attributes and `self.x` in
 * `__init__` as properties, `type X = ...`, and names listed in `__all__`
 * that the module does not define itself as `reexport` symbols.
 *
 * Public follows griffe: when the module defines `__all__`, exactly the
 * names listed; otherwise no leading underscore (dunders are public);
 * members of a private class or anything inside a function are private.
 */
export function extractPython(tree: Tree, matches: readonly QueryMatch[]): RawSymbol[] {
  const root = tree.rootNode;
  const all = dunderAll(root);
  const memberRanges: Array<[number, number]> = [];
  const found: Found[] = [];
  // (index loops, not `find` with a closure, here and below: the arrays this function iterates come in several
  // kinds, and each new one threw its optimised code away)
  for (const { node, nameNode, kind } of definitionCaptures(matches)) {
    // Every `def` and `class` is a definition (function_definition, class_definition): the scopes.
    const scope = kind === "class" || kind === "function" ? { kind, node, nameNode, end: node.endIndex } : null;
    found.push({ node, nameNode, kind, start: node.startIndex, scope, enclosing: [] });
    const statement = node.type === "assignment" ? parentOf(node) : null;
    const outer = statement?.type === "expression_statement" ? statement : outerNode(node);
    memberRanges.push([outer.startIndex, outer.endIndex]);
  }
  openScopes(found);
  const out: RawSymbol[] = [];
  const defined = new Set<string>();
  for (const f of found) {
    const { node, nameNode } = f;
    // A `def` directly in a class body (through decorators, not through a function) is a method.
    const kind = f.kind === "function" && f.enclosing.at(-1)?.kind === "class" ? "method" : f.kind;
    const scopes = scopesOf(f);
    const name = nameNode.text;
    const topLevel = scopes.length === 0;
    if (topLevel) defined.add(name);
    let qualifiedName = "";
    for (let k = 0; k < scopes.length; k++) qualifiedName += `${(scopes[k] as Scope).name}.`;
    out.push({
      name,
      qualifiedName: qualifiedName + name,
      kind,
      exported: isPublic(name, scopes, all),
      node: outerNode(node),
      signature: signatureOf(node, nameNode, name, kind),
      body: bodyOf(node, nameNode, kind, memberRanges),
      overloadSignature: false,
    });
  }
  // `__all__` may list names imported from elsewhere: removing one breaks callers too.
  for (const name of all?.names ?? []) {
    if (defined.has(name)) continue;
    out.push({
      name,
      qualifiedName: name,
      kind: "reexport",
      exported: true,
      node: all?.node ?? root,
      signature: { ...emptySignature(name, "reexport"), type: "__all__" },
      body: "",
      overloadSignature: false,
    });
  }
  return out;
}

interface Scope {
  readonly name: string;
  readonly node: SyntaxNode;
  readonly kind: "class" | "function";
}

/** A `def` or `class` as a scope of what it encloses. */
interface OpenScope {
  readonly kind: "class" | "function";
  readonly node: SyntaxNode;
  readonly nameNode: SyntaxNode;
  readonly end: number;
}

interface Found {
  readonly node: SyntaxNode;
  readonly nameNode: SyntaxNode;
  /** As the query says: `function` for every `def`. */
  readonly kind: SymbolKind;
  readonly start: number;
  readonly scope: OpenScope | null;
  /** The `def`s and `class`es around it, outermost first. */
  enclosing: readonly OpenScope[];
}

/**
 * Fills each definition's enclosing `def`s and `class`es: syntax ranges nest, so one sweep in document order
 * with a stack of the scopes open at each definition's start finds them, instead of walking every
 * definition's parents (each a node and a type read through the parser).
 */
function openScopes(found: readonly Found[]): void {
  const open: OpenScope[] = [];
  for (const f of [...found].sort((a, b) => a.start - b.start)) {
    while (open.length > 0 && (open.at(-1) as OpenScope).end <= f.start) open.pop();
    f.enclosing = [...open];
    if (f.scope !== null) open.push(f.scope);
  }
}

/** Enclosing classes and functions, outermost first. `self.x` belongs to the class of its `__init__`. */
function scopesOf(f: Found): readonly Scope[] {
  let chain = f.enclosing;
  if (f.kind === "property" && f.node.type === "assignment") {
    // `__init__` is the innermost `def` around it; its class, the scope right outside that `def`.
    const init = chain.findLastIndex((s) => s.kind === "function");
    const cls = init > 0 && chain[init - 1]?.kind === "class" ? init - 1 : -1;
    if (cls >= 0 && isSelfAttribute(f.nameNode)) chain = chain.slice(0, cls + 1);
  }
  if (chain.length === 0) return NO_SCOPES;
  const out: Scope[] = [];
  for (const s of chain) out.push({ name: scopeName(s.nameNode), node: s.node, kind: s.kind });
  return out;
}

/** No scopes: an empty list of the kind {@link scopesOf} returns otherwise (of objects), never written. */
const NO_SCOPES: readonly Scope[] = [{ name: "", node: null as unknown as SyntaxNode, kind: "class" as const }].slice(1);

/** A scope's name, read once per scope. */
const scopeName: (nameNode: SyntaxNode) => string = nodeMemo((n) => n.text);

/** A decorated definition's range and identity include its decorators. */
function outerNode(node: SyntaxNode): SyntaxNode {
  const parent = parentOf(node);
  return parent?.type === "decorated_definition" ? parent : node;
}

function isPublic(name: string, scopes: readonly Scope[], all: { names: ReadonlySet<string> } | null): boolean {
  const isPrivateName = (n: string): boolean => n.startsWith("_") && !(n.startsWith("__") && n.endsWith("__"));
  if (scopes.some((s) => s.kind === "function")) return false;
  const top = scopes[0]?.name ?? name;
  if (all !== null) {
    if (!all.names.has(top)) return false;
  } else if (isPrivateName(top)) {
    return false;
  }
  return [...scopes.slice(1).map((s) => s.name), ...(scopes.length > 0 ? [name] : [])].every((n) => !isPrivateName(n));
}

/**
 * `__all__ = [...]` / `(...)`, `__all__ += [...]`, `__all__.extend([...])` and
 * `__all__.append("x")` at module level (griffe's forms), reading the string
 * literals among the items.
 */
function dunderAll(root: SyntaxNode): { names: Set<string>; node: SyntaxNode } | null {
  let result: { names: Set<string>; node: SyntaxNode } | null = null;
  const stringsOf = (items: SyntaxNode): string[] =>
    (items.type === "string" ? [items] : items.namedChildren.filter((c) => c.type === "string")).map((c) =>
      c.namedChildren
        .filter((x) => x.type === "string_content")
        .map((x) => x.text)
        .join(""),
    );
  for (const stmt of root.namedChildren) {
    const a = stmt.type === "expression_statement" ? stmt.namedChildren[0] : undefined;
    if (a === undefined) continue;
    let items: SyntaxNode | null = null;
    let replaces = false;
    if (a.type === "assignment" || a.type === "augmented_assignment") {
      if (a.childForFieldName("left")?.text !== "__all__") continue;
      items = a.childForFieldName("right");
      if (items === null || (items.type !== "list" && items.type !== "tuple")) continue;
      replaces = a.type === "assignment";
    } else if (a.type === "call") {
      const callee = a.childForFieldName("function");
      const method = callee?.type === "attribute" && callee.childForFieldName("object")?.text === "__all__" ? callee.childForFieldName("attribute")?.text : undefined;
      const arg = a.childForFieldName("arguments")?.namedChildren[0];
      if (arg === undefined || !((method === "extend" && (arg.type === "list" || arg.type === "tuple")) || (method === "append" && arg.type === "string"))) continue;
      items = arg;
    } else {
      continue;
    }
    if (result === null || replaces) result = { names: new Set(), node: stmt };
    for (const n of stringsOf(items)) result.names.add(n);
  }
  return result;
}

/** A `def`'s or `class`'s PEP 695 type parameters, asked of the tree only when a `[` follows the name in the text. */
function typeParamsAfter(node: SyntaxNode, nameNode: SyntaxNode): TypeParamInfo[] {
  const source = sourceOf(node.tree);
  if (source !== null && !/^\s*\[/.test(source.slice(nameNode.endIndex, nameNode.endIndex + 64))) return [];
  return typeParamsOf(node.childForFieldName("type_parameters"));
}

/** PEP 695 type parameters, `[T: Bound, *Ts, **P]`: each name with its bound or constraints. */
function typeParamsOf(list: SyntaxNode | null): TypeParamInfo[] {
  if (list === null) return [];
  return list.namedChildren.flatMap((t): TypeParamInfo[] => {
    if (t.type !== "type") return [];
    const inner = t.namedChildren[0] ?? t;
    if (inner.type === "constrained_type") {
      const [param, bound] = inner.namedChildren;
      return [{ name: normalizedText(param ?? null), constraint: bound === undefined ? null : normalizedText(bound), default: null }];
    }
    return [{ name: normalizedText(inner), constraint: null, default: null }];
  });
}

function basesOf(bases: SyntaxNode): string[] {
  const out: string[] = [];
  for (const b of bases.namedChildren) out.push(normalizedText(b));
  return out;
}

function signatureOf(node: SyntaxNode, nameNode: SyntaxNode, name: string, kind: SymbolKind): SignatureInfo {
  const wrapper = parentOf(node);
  // (modifiers and bases built by pushes: spreads, map and filter over lists of several kinds threw this function's
  // optimised code away, six times over the standard library)
  const decorators: string[] = [];
  if (wrapper?.type === "decorated_definition") for (const c of wrapper.namedChildren) if (c.type === "decorator") decorators.push(`decorator:${normalizedText(c)}`);
  if (node.type === "function_definition") {
    // `async def` or `def`: the keyword is the node's first token, so its text says it (the children need a node each).
    const source = sourceOf(node.tree);
    const isAsync = source === null ? node.children.some((c) => c.type === "async") : /^async\b/.test(source.slice(node.startIndex, node.startIndex + 6));
    if (isAsync) decorators.push("async");
    return {
      ...emptySignature(name, kind),
      modifiers: decorators.sort(),
      type_params: typeParamsAfter(node, nameNode),
      params: paramsOf(node.childForFieldName("parameters")),
      returns: typeText(node.childForFieldName("return_type")),
    };
  }
  if (node.type === "class_definition") {
    const bases = node.childForFieldName("superclasses");
    return {
      ...emptySignature(name, kind),
      modifiers: decorators.sort(),
      type_params: typeParamsAfter(node, nameNode),
      heritage: bases === null ? [] : basesOf(bases),
    };
  }
  if (node.type === "type_alias_statement") {
    // `type Pair[K] = ...`: the parameters are in the left side's subscript.
    const generic = node.childForFieldName("left")?.namedChildren.find((c) => c.type === "generic_type");
    const params = generic?.namedChildren.find((c) => c.type === "type_parameter") ?? null;
    return { ...emptySignature(name, kind), type_params: typeParamsOf(params), type: normalizedText(node.childForFieldName("right")) };
  }
  // Assignments: module variables, class attributes, `self.x`.
  const type = typeText(node.childForFieldName("type"));
  const left = node.childForFieldName("left");
  const selfAttribute = isSelfAttribute(nameNode);
  const right = node.childForFieldName("right");
  // For `a, b = 1, 2` each name takes its own value when the sides line up.
  let value: string | null = right === null ? null : normalizedText(right);
  if (left !== null && (left.type === "pattern_list" || left.type === "tuple_pattern") && right !== null && (right.type === "expression_list" || right.type === "tuple")) {
    // The item holding the name: the name itself, or `self.x` around it.
    const i = left.namedChildren.findIndex((c) => c.startIndex <= nameNode.startIndex && nameNode.endIndex <= c.endIndex);
    const item = right.namedChildren[i];
    value = item === undefined ? value : normalizedText(item);
  }
  // A module or class attribute's value is API (griffe's ATTRIBUTE_CHANGED_VALUE); `self.x`'s is code.
  return { ...emptySignature(name, kind), type, value: selfAttribute ? null : value };
}

/** Parameters with Python's kinds: positional-only before `/`, keyword-only after `*` or `*args`. */
function paramsOf(list: SyntaxNode | null): ParamInfo[] {
  if (list === null) return [];
  const out: ParamInfo[] = [];
  let keywordOnly = false;
  for (const p of list.namedChildren) {
    // Each `type` read crosses into the parser: once a node.
    const type = p.type;
    if (type === "comment") continue;
    if (type === "positional_separator") {
      for (let i = 0; i < out.length; i++) {
        const q = out[i] as ParamInfo;
        if (q.kind === "positional_or_keyword") out[i] = { ...q, kind: "positional_only" };
      }
      continue;
    }
    if (type === "keyword_separator") {
      keywordOnly = true;
      continue;
    }
    const inner = type === "typed_parameter" ? (p.namedChildren.find((c) => c.type !== "type") ?? p) : p;
    const innerType = inner === p ? type : inner.type;
    if (innerType === "list_splat_pattern") {
      out.push({ name: normalizedText(inner.namedChildren[0] ?? null), kind: "rest", optional: true, default: null, type: typeText(p.childForFieldName("type")) });
      keywordOnly = true;
      continue;
    }
    if (innerType === "dictionary_splat_pattern") {
      out.push({ name: normalizedText(inner.namedChildren[0] ?? null), kind: "var_keyword", optional: true, default: null, type: typeText(p.childForFieldName("type")) });
      continue;
    }
    if (type === "identifier") {
      // A bare name: no fields to ask for.
      out.push({ name: p.text, kind: keywordOnly ? "keyword_only" : "positional_or_keyword", optional: false, default: null, type: null });
      continue;
    }
    const value = p.childForFieldName("value");
    out.push({
      name: p.childForFieldName("name")?.text ?? inner.text,
      kind: keywordOnly ? "keyword_only" : "positional_or_keyword",
      optional: value !== null,
      default: value === null ? null : normalizedText(value),
      type: typeText(p.childForFieldName("type")),
    });
  }
  return out;
}

function bodyOf(node: SyntaxNode, nameNode: SyntaxNode, kind: SymbolKind, memberRanges: ReadonlyArray<readonly [number, number]>): string {
  if (kind === "class") return normalizedText(node.childForFieldName("body"), { skip: memberRanges });
  if (node.type === "function_definition") return normalizedText(node.childForFieldName("body"));
  if (node.type === "assignment" && isSelfAttribute(nameNode)) return normalizedText(node.childForFieldName("right"));
  return "";
}

/** `self.x = ...` or `self.a, self.b = ...`: the name is an attribute's (of `__init__`'s first parameter, per the query). */
function isSelfAttribute(nameNode: SyntaxNode): boolean {
  return parentOf(nameNode)?.type === "attribute";
}
