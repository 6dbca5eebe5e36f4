import { parentOf } from "../node-memo.js";
import type { QueryMatch, SyntaxNode, Tree } from "../../parse/syntax.js";
import { normalizedText, textMayMatch, typeText } from "../normalize.js";
import { emptySignature } from "../signature.js";
import type { RawSymbol } from "../raw-symbol.js";
import type { SignatureInfo, SymbolKind } from "../types.js";
import { commonJsExports } from "./common-js-exports.js";
import { docComment, FUNCTION_VALUES, functionSignature, heritageOf, modifiersOf, typeParamsOf } from "./ts-signature.js";

/** Specificity when two patterns capture one node (a function-valued `const` is a function, not a variable). */
const PRIORITY: Readonly<Partial<Record<SymbolKind, number>>> = { variable: 0 };

/**
 * Symbols of a TypeScript, TSX or JavaScript file from its definitions
 * query: locals dropped, names qualified by their containers, exports
 * resolved (`export`, `export default`, `export { a as b }`, `declare` in a
 * `.d.ts`, members of exported containers unless private; in JavaScript,
 * CommonJS's `module.exports` and `exports.x`), re-exports added as
 * `reexport` symbols.
 */
export function extractTypeScript(tree: Tree, matches: readonly QueryMatch[], options: { isDeclarationFile: boolean; commonJs?: boolean }): RawSymbol[] {
  const root = tree.rootNode;
  const chosen = new Map<number, Def>();
  const functionScopes: Array<[number, number]> = [];
  const globals: Array<[number, number]> = [];
  for (const m of matches) {
    const scope = m.captures[0];
    if (scope?.name === "scope.function") {
      functionScopes.push([scope.node.startIndex, scope.node.endIndex]);
      continue;
    }
    if (scope?.name === "scope.global") {
      globals.push([scope.node.startIndex, scope.node.endIndex]);
      continue;
    }
    const def = m.captures.find((c) => c.name.startsWith("definition."));
    const name = m.captures.find((c) => c.name === "name");
    if (def === undefined || name === undefined) continue;
    const kind = def.name.slice("definition.".length) as SymbolKind;
    const prev = chosen.get(def.node.id);
    if (prev === undefined || (PRIORITY[prev.kind] ?? 1) < (PRIORITY[kind] ?? 1)) {
      chosen.set(def.node.id, { node: def.node, nameNode: name.node, kind, start: def.node.startIndex, end: def.node.endIndex });
    }
  }
  const defs = [...chosen.values()].sort((a, b) => a.start - b.start || b.end - a.end);
  // (pushed, as Python's are: a list made by `map` is of another kind, and normalising met both)
  const memberRanges: Array<[number, number]> = [];
  for (const d of defs) memberRanges.push(outerRange(d.node));
  const localExports = collectLocalExports(root);
  // JavaScript: `module.exports` and `exports.x` export too.
  const commonJs = options.commonJs === true ? commonJsExports(root) : null;
  for (const name of commonJs?.locals ?? []) localExports.add(name);
  // In a .d.ts, top-level declarations are exported implicitly unless the file has export declarations (the checker's rule).
  const implicitExports = options.isDeclarationFile && !hasExportDeclarations(root);
  const encloses = (outer: readonly [number, number], d: Def): boolean => outer[0] <= d.start && d.end <= outer[1] && (outer[0] < d.start || d.end < outer[1]);
  // Syntax ranges nest, so one sweep in document order keeps, for each definition, the function scopes and
  // containers open at its start (a stack each), instead of testing every scope and container against every
  // definition.
  functionScopes.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const openScopes: Array<[number, number]> = [];
  const openContainers: Def[] = [];
  let nextScope = 0;
  const out: RawSymbol[] = [];
  const exportedMemo = new Map<number, boolean>();
  for (const d of defs) {
    const { node, nameNode, kind } = d;
    while (nextScope < functionScopes.length && (functionScopes[nextScope] as [number, number])[0] <= d.start) {
      const scope = functionScopes[nextScope++] as [number, number];
      while (openScopes.length > 0 && (openScopes.at(-1) as [number, number])[1] <= scope[0]) openScopes.pop();
      openScopes.push(scope);
    }
    while (openScopes.length > 0 && (openScopes.at(-1) as [number, number])[1] <= d.start) openScopes.pop();
    while (openContainers.length > 0 && (openContainers.at(-1) as Def).end <= d.start) openContainers.pop();
    const enclosing = openContainers.filter((c) => encloses([c.start, c.end], d));
    if (CONTAINER_KINDS.has(kind)) openContainers.push(d);
    // The outermost open scope is the widest: if it does not enclose the definition, none does.
    if ((openScopes.length > 0 && encloses(openScopes[0] as [number, number], d)) || !isKept(node, kind)) continue;
    // Built with loops, not spreads: spreading arrays of several element kinds made this function's optimised code
    // deoptimise (and be compiled again) over and over on real code.
    const containers: Container[] = [];
    for (const g of globals) if (encloses(g, d)) containers.push(container("global", null, null, g[0]));
    for (const c of enclosing) containers.push(container(nameOf(c.nameNode), c.node, c.nameNode, c.start));
    containers.sort((a, b) => a.start - b.start);
    // A function of an object literal bound to a name is a member of that name, exported with it.
    const owner = parentOf(node)?.type === "object" ? objectOwner(node) : null;
    // A destructuring binds several names: each is a variable of its own, with the declaration's range, type and value.
    const site: Site = { node, kind, containers, owner, localExports, implicitExports, exportedMemo, memberRanges };
    if (PATTERNS.has(nameNode.type)) destructured(site, nameNode, out);
    else out.push(symbolOf(site, nameNode));
    // `constructor(public x: number, readonly y = 1)`: each such parameter also declares a property of the class.
    if (node.type === "method_definition" && kind === "method" && nameOf(nameNode) === "constructor") parameterProperties(site, out);
  }
  // (pushed where they are found: arrays returned empty or full, spread here, made this function's optimised code
  // deoptimise and be compiled again, 0.1 s of TurboFan's time each, over the TypeScript corpus)
  defaultExports(root, out);
  reexports(root, out);
  if (commonJs !== null) for (let i = 0; i < commonJs.symbols.length; i++) out.push(commonJs.symbols[i] as RawSymbol);
  return out;
}

/** What {@link symbolOf} needs to know of a definition's place: its node and kind, containers, and the file's exports. */
interface Site {
  readonly node: SyntaxNode;
  readonly kind: SymbolKind;
  readonly containers: readonly Container[];
  /** The binding whose object literal holds the node, if any ({@link objectOwner}). */
  readonly owner: { declarator: SyntaxNode; name: SyntaxNode } | null;
  readonly localExports: ReadonlySet<string>;
  readonly implicitExports: boolean;
  readonly exportedMemo: Map<number, boolean>;
  readonly memberRanges: ReadonlyArray<readonly [number, number]>;
}

/** The symbol a definition declares under one of its names (`bound`: its name, or one a destructuring binds). */
function symbolOf(site: Site, bound: SyntaxNode): RawSymbol {
  const { node, kind, containers, owner, localExports, implicitExports, exportedMemo } = site;
  const name = nameOf(bound);
  const qualified = qualify(containers, owner === null ? name : `${owner.name.text}.${name}`);
  // `@internal` keeps a declaration out of the public API, as API Extractor does.
  const exported =
    (owner === null
      ? isExported(node, bound, kind, name, containers, localExports, implicitExports, exportedMemo)
      : isExported(owner.declarator, owner.name, "variable", owner.name.text, containers, localExports, implicitExports, exportedMemo)) && !/@internal\b/.test(docComment(node));
  return {
    name,
    qualifiedName: qualified,
    kind,
    exported,
    node,
    signature: signatureOf(node, bound, name, kind),
    body: bodyOf(node, kind, site.memberRanges),
    overloadSignature: node.type === "function_signature" || (node.type === "method_signature" && parentOf(node)?.type === "class_body"),
  };
}

interface Def {
  readonly node: SyntaxNode;
  readonly nameNode: SyntaxNode;
  readonly kind: SymbolKind;
  readonly start: number;
  readonly end: number;
}

const CONTAINER_KINDS = new Set<SymbolKind>(["class", "interface", "enum", "namespace", "module"]);

const PATTERNS = new Set(["object_pattern", "array_pattern"]);

/** The properties a constructor's parameters declare: those with an accessibility, `readonly` or `override` modifier. */
function parameterProperties(site: Site, out: RawSymbol[]): void {
  const params = site.node.childForFieldName("parameters");
  if (params === null) return;
  for (const p of params.namedChildren) {
    const name = p.childForFieldName("pattern");
    // The modifiers come before the name: without anything there, no children to read.
    if (name?.type !== "identifier" || name.startIndex === p.startIndex) continue;
    if (!p.children.some((c) => c.type === "accessibility_modifier" || c.type === "override_modifier" || (c.type === "readonly" && !c.isNamed))) continue;
    const text = name.text;
    const exported = isExported(p, name, "property", text, site.containers, site.localExports, site.implicitExports, site.exportedMemo);
    const signature: SignatureInfo = { ...emptySignature(text, "property"), modifiers: modifiersOf(p, name), type: typeText(p.childForFieldName("type")) };
    out.push({ name: text, qualifiedName: qualify(site.containers, text), kind: "property", exported, node: p, signature, body: "", overloadSignature: false });
  }
}

/** A destructuring's symbols: a variable for each name it binds ({@link boundNames}). */
function destructured(site: Site, pattern: SyntaxNode, out: RawSymbol[]): void {
  const names: SyntaxNode[] = [];
  boundNames(pattern, names);
  for (const name of names) out.push(symbolOf(site, name));
}

/** The names a destructuring pattern binds, in order, added to `out`: not its keys (`b` of `{ b: c }`) nor its defaults (`= d`). */
function boundNames(pattern: SyntaxNode, out: SyntaxNode[]): void {
  switch (pattern.type) {
    case "identifier":
    case "shorthand_property_identifier_pattern":
      // Half-typed code (`{ a: }`) has a missing, empty name there: nothing is bound yet.
      if (pattern.text !== "") out.push(pattern);
      return;
    case "pair_pattern": {
      const value = pattern.childForFieldName("value");
      if (value !== null) boundNames(value, out);
      return;
    }
    case "assignment_pattern":
    case "object_assignment_pattern": {
      const left = pattern.childForFieldName("left");
      if (left !== null) boundNames(left, out);
      return;
    }
    case "object_pattern":
    case "array_pattern":
    case "rest_pattern":
      for (const child of pattern.namedChildren) boundNames(child, out);
      return;
    default:
      return;
  }
}

/** The binding whose object literal holds `member` directly (`api` of `const api = { get() {} }`), if it is kept itself. */
function objectOwner(member: SyntaxNode): { declarator: SyntaxNode; name: SyntaxNode } | null {
  const object = parentOf(member);
  const declarator = object === null ? null : parentOf(object);
  if (object?.type !== "object" || declarator?.type !== "variable_declarator") return null;
  const name = declarator.childForFieldName("name");
  if (name?.type !== "identifier" || declarator.childForFieldName("value")?.id !== object.id || !isKept(declarator, "variable")) return null;
  return { declarator, name };
}

/** Members that also appear in object types (`type T = { ... }`), where they are part of the alias's type, not symbols. */
const OBJECT_TYPE_MEMBERS = new Set(["method_signature", "property_signature", "call_signature", "construct_signature", "index_signature"]);

/** Members without a name, named as the TypeScript compiler names them. */
const UNNAMED_MEMBERS: Readonly<Record<string, string>> = { call_signature: "__call", construct_signature: "__new", index_signature: "__index" };

/** Keeps module-, namespace- and class-level declarations; drops object-literal members (locals are dropped by range). */
function isKept(node: SyntaxNode, kind: SymbolKind): boolean {
  const parent = parentOf(node);
  if (node.type === "method_definition" || node.type === "pair") {
    // Object-literal members count only as the functions of a module-level binding (`const api = { get() {} }`).
    if (parent?.type === "object") return objectOwner(node) !== null;
    if (parent?.type !== "class_body") return false;
  }
  if (OBJECT_TYPE_MEMBERS.has(node.type) && parent?.type === "object_type") return false;
  const classBody = parent?.type === "class_body" ? parent : null;
  const classNode = classBody === null ? null : parentOf(classBody);
  if (classBody !== null && classNode?.type !== "class_declaration" && classNode?.type !== "abstract_class_declaration") return false;
  if (kind === "variable" || node.type === "variable_declarator") {
    let where = parent === null ? null : parentOf(parent);
    while (where !== null && (where.type === "export_statement" || where.type === "ambient_declaration")) where = parentOf(where);
    if (where === null) return false;
    if (where.type !== "program" && !(where.type === "statement_block" && isNamespaceBody(where))) return false;
  }
  return true;
}

function isNamespaceBody(block: SyntaxNode): boolean {
  const owner = parentOf(block);
  return owner !== null && (owner.type === "internal_module" || owner.type === "module" || (owner.type === "ambient_declaration" && owner.children.some((c) => c.type === "global")));
}

/** `name` qualified by its containers' names (`A.B.name`). */
function qualify(containers: readonly Container[], name: string): string {
  let out = "";
  for (const c of containers) out += `${c.name}.`;
  return out + name;
}

/** One place that makes containers: records of one shape from one site (two sites made the symbol pass's optimised code deoptimise). */
function container(name: string, node: SyntaxNode | null, nameNode: SyntaxNode | null, start: number): Container {
  return { name, node, nameNode, start };
}

interface Container {
  readonly name: string;
  /** The container's declaration; null for `declare global`. */
  readonly node: SyntaxNode | null;
  readonly nameNode: SyntaxNode | null;
  readonly start: number;
}

function nameOf(n: SyntaxNode | null): string {
  if (n === null) return "default";
  const unnamed = UNNAMED_MEMBERS[n.type];
  if (unnamed !== undefined) return unnamed;
  if (n.type === "string") return n.text.slice(1, -1);
  if (n.type === "computed_property_name") return `[${normalizedText(n.namedChildren[0] ?? null)}]`;
  return n.text;
}

/** `export { ... }`, `export * from`, `export =`, `export default`: their presence turns implicit exports off. */
function hasExportDeclarations(scope: SyntaxNode): boolean {
  return scope.namedChildren.some((c) => c.type === "export_statement" && c.childForFieldName("declaration") === null);
}

/** Local names exported by `export { a, b as c }` (no `from`) and `export default a`. */
function collectLocalExports(root: SyntaxNode): Set<string> {
  const names = new Set<string>();
  for (const s of root.namedChildren) {
    if (s.type !== "export_statement" || s.childForFieldName("source") !== null) continue;
    for (const clause of s.namedChildren.filter((c) => c.type === "export_clause")) {
      for (const spec of clause.namedChildren) {
        const n = spec.childForFieldName("name");
        if (n !== null) names.add(n.text);
      }
    }
    const value = s.childForFieldName("value");
    if (value?.type === "identifier") names.add(value.text);
    // `export = Foo`
    const bare = s.namedChildren.find((c) => c.type === "identifier");
    if (bare !== undefined && value === null) names.add(bare.text);
  }
  return names;
}

function isExported(
  node: SyntaxNode,
  nameNode: SyntaxNode | null,
  kind: SymbolKind,
  name: string,
  containers: readonly Container[],
  localExports: ReadonlySet<string>,
  implicitExports: boolean,
  memo: Map<number, boolean>,
): boolean {
  const decl = node.type === "variable_declarator" ? (parentOf(node) ?? node) : node;
  const wrapper = parentOf(decl);
  const hasExport = wrapper?.type === "export_statement" || (wrapper?.type === "ambient_declaration" && parentOf(wrapper)?.type === "export_statement");
  const container = containers.at(-1);
  if (container === undefined) {
    if (hasExport || localExports.has(name)) return true;
    // `declare module "m" {}` declares another module's API: it is public by nature.
    if (node.type === "module" && node.childForFieldName("name")?.type === "string") return true;
    return implicitExports;
  }
  // `declare global {}`: globals are public.
  if (container.node === null) return true;
  const cnode = container.node;
  let containerExported = memo.get(cnode.id);
  if (containerExported === undefined) {
    containerExported = isExported(cnode, container.nameNode, "namespace", container.name, containers.slice(0, -1), localExports, implicitExports, memo);
    memo.set(cnode.id, containerExported);
  }
  switch (cnode.type) {
    case "class_declaration":
    case "abstract_class_declaration":
      return containerExported && !isPrivateMember(node, nameNode);
    case "interface_declaration":
    case "enum_declaration":
      return containerExported;
    default: {
      // Namespaces and modules: members need their own `export`, except in an
      // ambient module declaration (`declare module "m"`) without export declarations.
      const body = cnode.childForFieldName("body");
      const ambient = (cnode.childForFieldName("name")?.type === "string" || implicitExports) && (body === null || !hasExportDeclarations(body));
      return containerExported && (hasExport || ambient) && kind !== "reexport";
    }
  }
}

/**
 * `#x`, or `private` written before the name. The text is asked first
 * (only an `#` name can be a private identifier; `private` must be written
 * before the name), the tree only when it might say yes.
 */
function isPrivateMember(node: SyntaxNode, nameNode: SyntaxNode | null): boolean {
  if (nameNode === null) {
    if (node.childForFieldName("name")?.type === "private_property_identifier" || node.childForFieldName("property")?.type === "private_property_identifier") return true;
  } else {
    if (nameNode.text.startsWith("#") && nameNode.type === "private_property_identifier") return true;
    if (!textMayMatch(node, node.startIndex, nameNode.startIndex, /\bprivate\b/)) return false;
  }
  return node.namedChildren.some((c) => c.type === "accessibility_modifier" && c.text === "private");
}

function signatureOf(node: SyntaxNode, nameNode: SyntaxNode, name: string, kind: SymbolKind): SignatureInfo {
  switch (node.type) {
    case "variable_declarator": {
      const value = node.childForFieldName("value");
      const decl = parentOf(node) ?? node;
      const declKind = decl.childForFieldName("kind")?.text ?? (decl.type === "variable_declaration" ? "var" : "const");
      if (value !== null && FUNCTION_VALUES.has(value.type)) {
        // `const f: Handler = (a) => ...`: the declared type is what callers see, beside the function's own.
        return { ...functionSignature(name, kind, decl, value, [value.type === "arrow_function" ? "arrow" : "expression", declKind]), type: typeText(node.childForFieldName("type")) };
      }
      return { ...emptySignature(name, kind), modifiers: [...new Set([...modifiersOf(decl), declKind])].sort(), type: typeText(node.childForFieldName("type")) };
    }
    case "class_declaration":
    case "abstract_class_declaration":
    case "interface_declaration":
      return {
        ...emptySignature(name, kind),
        modifiers: [...new Set([...modifiersOf(node, nameNode), ...(node.type === "abstract_class_declaration" ? ["abstract"] : [])])].sort(),
        type_params: typeParamsOf(node.childForFieldName("type_parameters")),
        heritage: heritageOf(node),
      };
    case "type_alias_declaration":
      return {
        ...emptySignature(name, kind),
        modifiers: modifiersOf(node, nameNode),
        type_params: typeParamsOf(node.childForFieldName("type_parameters")),
        type: normalizedText(node.childForFieldName("value")),
      };
    case "enum_declaration":
      return { ...emptySignature(name, kind), modifiers: modifiersOf(node, nameNode) };
    case "enum_assignment":
      return { ...emptySignature(name, kind), value: normalizedText(node.childForFieldName("value")) };
    case "public_field_definition":
    case "field_definition":
    case "property_signature": {
      const value = node.childForFieldName("value");
      const base = { ...emptySignature(name, kind), modifiers: modifiersOf(node, nameNode), type: typeText(node.childForFieldName("type")) };
      // An arrow-function field is called like a method: its parameters are API.
      return value !== null && FUNCTION_VALUES.has(value.type) && base.type === null ? { ...functionSignature(name, kind, node, value), modifiers: base.modifiers } : base;
    }
    case "internal_module":
    case "module":
      return { ...emptySignature(name, kind), modifiers: modifiersOf(node, nameNode) };
    case "pair": {
      // `post: (b) => {}` in an object literal: the function's signature under its key.
      const value = node.childForFieldName("value");
      if (value === null) return emptySignature(name, kind);
      return functionSignature(name, kind, value, value, [value.type === "arrow_function" ? "arrow" : "expression"]);
    }
    case "construct_signature":
      // `new (y: string): T`: what it constructs is in `type`, not `return_type`.
      return { ...functionSignature(name, kind, node, node), returns: typeText(node.childForFieldName("type")) };
    case "index_signature":
      // `readonly [key: string]: T`: the key and the value type, as written.
      return { ...emptySignature(name, kind), type: normalizedText(node) };
    default:
      if (node.childForFieldName("parameters") !== null || node.childForFieldName("parameter") !== null) return functionSignature(name, kind, node, node, [], nameNode);
      return { ...emptySignature(name, kind), modifiers: modifiersOf(node, nameNode) };
  }
}

function bodyOf(node: SyntaxNode, kind: SymbolKind, memberRanges: ReadonlyArray<readonly [number, number]>): string {
  switch (kind) {
    case "class":
    case "interface":
    case "enum":
    case "namespace":
    case "module": {
      // Members are symbols of their own: the container's body is what is left, separators dropped.
      return normalizedText(node.childForFieldName("body"), { skip: memberRanges, dropSeparators: true });
    }
    case "variable":
    case "property":
      return normalizedText(node.childForFieldName("value"));
    case "function":
    case "method": {
      const fn = node.type === "variable_declarator" || node.type === "pair" ? node.childForFieldName("value") : node;
      return normalizedText(fn?.childForFieldName("body") ?? null);
    }
    default:
      return "";
  }
}

/** A symbol's extent with what wraps it alone (`export`, `declare`, a one-binding `const`), for leaving it out of its container's body. */
function outerRange(node: SyntaxNode): [number, number] {
  let n = node;
  const list = n.type === "variable_declarator" ? parentOf(n) : null;
  if (list !== null && list.namedChildCount === 1) n = list;
  for (let p = parentOf(n); p !== null && (p.type === "export_statement" || p.type === "ambient_declaration"); p = parentOf(n)) n = p;
  return [n.startIndex, n.endIndex];
}

/**
 * The local name a module exports as its default, when it is a named one: `export default function f() {}` or
 * `class F`, `export default f`, `export { f as default }` (no `from`); null otherwise (none, or an anonymous value:
 * {@link defaultExports} makes a symbol named `default` of it).
 */
export function defaultExportName(root: SyntaxNode): string | null {
  for (const s of root.namedChildren) {
    if (s.type !== "export_statement" || s.childForFieldName("source") !== null) continue;
    if (s.children.some((c) => c.type === "default")) {
      const declared = s.childForFieldName("declaration")?.childForFieldName("name");
      if (declared != null) return declared.text;
      const value = s.childForFieldName("value");
      if (value?.type === "identifier") return value.text;
      const named = value?.childForFieldName("name");
      if (named != null && (value?.type === "function_expression" || value?.type === "class" || value?.type === "function")) return named.text;
      continue;
    }
    for (const clause of s.namedChildren.filter((c) => c.type === "export_clause")) {
      for (const spec of clause.namedChildren) {
        if (spec.childForFieldName("alias")?.text === "default") return spec.childForFieldName("name")?.text ?? null;
      }
    }
  }
  return null;
}

/** `export default function () {}`, `export default class {}`, `export default <expr>`: a symbol named `default`. */
function defaultExports(root: SyntaxNode, out: RawSymbol[]): void {
  for (const s of root.namedChildren) {
    if (s.type !== "export_statement" || !s.children.some((c) => c.type === "default")) continue;
    const value = s.childForFieldName("value");
    if (value === null || value.type === "identifier") continue; // a named local: exported through it
    const kind: SymbolKind = value.type === "class" ? "class" : FUNCTION_VALUES.has(value.type) ? "function" : "variable";
    const signature: SignatureInfo =
      kind === "function"
        ? functionSignature("default", kind, s, value)
        : kind === "class"
          ? { ...emptySignature("default", kind), type_params: typeParamsOf(value.childForFieldName("type_parameters")), heritage: heritageOf(value) }
          : emptySignature("default", kind);
    const body = kind === "function" ? normalizedText(value.childForFieldName("body")) : normalizedText(value);
    out.push({ name: "default", qualifiedName: "default", kind, exported: true, node: s, signature, body, overloadSignature: false });
  }
}

/** `export { a as b } from "m"`, `export * from "m"`, `export * as ns from "m"`, `export type * from "m"`. */
function reexports(root: SyntaxNode, out: RawSymbol[]): void {
  for (const s of root.namedChildren) {
    if (s.type !== "export_statement") continue;
    const source = s.childForFieldName("source");
    if (source === null) continue;
    const module = source.text.slice(1, -1);
    const typeOnly = s.children.some((c) => c.type === "type") || /^export\s+type\b/.test(s.text);
    const add = (name: string, from: string): void => {
      const signature: SignatureInfo = { ...emptySignature(name, "reexport"), modifiers: typeOnly ? ["type"] : [], type: `${from} from ${module}` };
      out.push({ name, qualifiedName: name === "*" ? `*:${module}` : name, kind: "reexport", exported: true, node: s, signature, body: "", overloadSignature: false });
    };
    const clause = s.namedChildren.find((c) => c.type === "export_clause");
    const ns = s.namedChildren.find((c) => c.type === "namespace_export");
    if (clause !== undefined) {
      for (const spec of clause.namedChildren) {
        const orig = spec.childForFieldName("name")?.text;
        if (orig !== undefined) add(spec.childForFieldName("alias")?.text ?? orig, orig);
      }
    } else if (ns !== undefined) {
      add(nameOf(ns.namedChildren[0] ?? null), "*");
    } else {
      add("*", "*");
    }
  }
}
