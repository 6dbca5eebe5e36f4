import type { QueryMatch, SyntaxNode } from "./syntax.js";
import { compareStrings } from "../errors/diagnostic.js";
import type { ReferenceRecord } from "./types.js";

/**
 * References of a file from the matches of its references query: calls (`f`, `obj.method`),
 * `new`, types, decorators, base classes, and imports and re-exports with
 * their module specifier. Sorted and de-duplicated.
 */
export function extractReferences(matches: readonly QueryMatch[]): ReferenceRecord[] {
  const out: ReferenceRecord[] = [];
  // The names seen, by kind and module (by kind alone for no module: most references, and no key to build).
  const seen = new Map<string, Set<string>>();
  const add = (kind: ReferenceRecord["kind"], name: string, module: string | null = null): void => {
    if (name === "") return;
    const group = module === null ? kind : `${kind}\0${module}`;
    let names = seen.get(group);
    if (names === undefined) seen.set(group, (names = new Set()));
    if (names.has(name)) return;
    names.add(name);
    out.push({ kind, name, module });
  };
  // Type names, by far the most frequent capture (every annotation), each looked at once per distinct text.
  const seenTypes = new Set<string>();
  // A type parameter (`T` of `f<T>`) is not a dependency on anything outside, nor is a declaration's own name or
  // the last part of a qualified type (the query captures those as `local.declaration`).
  const typeParams = new Set<string>();
  const notReferences = new Set<number>();
  for (const m of matches) {
    for (const c of m.captures) {
      if (c.name === "local.type_parameter") typeParams.add(c.node.text);
      else if (c.name === "local.declaration") notReferences.add(c.node.id);
    }
  }
  for (const m of matches) {
    for (const c of m.captures) {
      const kind = c.name;
      if (kind.startsWith("_") || kind.startsWith("local.")) continue;
      switch (kind) {
        case "reference.call":
        case "reference.new":
        case "reference.decorator":
        case "reference.base":
          add(kind.slice("reference.".length) as ReferenceRecord["kind"], memberName(c.node));
          break;
        case "reference.type": {
          if (notReferences.has(c.node.id)) break;
          const node = c.node;
          // A plain type name is its text: seen once, it is settled (a type parameter's name is never a reference).
          if (node.type === "type_identifier") {
            const text = node.text;
            if (seenTypes.has(text)) break;
            seenTypes.add(text);
            if (!typeParams.has(text)) add("type", text);
            break;
          }
          if (typeParams.has(node.text)) break;
          add("type", memberName(node));
          break;
        }
        case "reference.import":
          importsOf(c.node, add);
          break;
        case "reference.export":
          reexportsOf(c.node, add);
          break;
        case "reference.import.dynamic":
          add("import", "*", unquote(c.node.text));
          break;
        case "reference.import.module":
          add("import", "*", c.node.text);
          break;
        case "reference.import.name": {
          const source = m.captures.find((x) => x.name === "reference.import.source");
          add("import", c.node.text, source === undefined ? null : source.node.text);
          break;
        }
        default:
          break;
      }
    }
  }
  return out.sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name) || compareStrings(a.module ?? "", b.module ?? ""));
}

/** `a.b.c` for a chain of plain names (and `this`, `self`); `.method` when the object is an expression. */
function memberName(node: SyntaxNode): string {
  // Each `type` read crosses into the parser: once.
  const type = node.type;
  if (type === "member_expression" || type === "attribute") {
    const object = node.childForFieldName("object");
    const property = node.childForFieldName("property") ?? node.childForFieldName("attribute");
    const left = object === null ? "" : /^(identifier|this|super|member_expression|attribute)$/.test(object.type) ? memberName(object) : "";
    return `${left}.${property?.text ?? ""}`;
  }
  if (type === "nested_type_identifier") return node.text.replace(/\s+/g, "");
  if (type === "generic_type") return memberName(node.namedChildren[0] ?? node);
  return node.text;
}

function unquote(s: string): string {
  return s.replace(/^['"`]|['"`]$/g, "");
}

/** `import d, { a as b } from "m"` → default and `a` from "m"; `import * as ns` → `*`; `import "m"` → `*`. */
function importsOf(stmt: SyntaxNode, add: (kind: ReferenceRecord["kind"], name: string, module: string | null) => void): void {
  const source = stmt.childForFieldName("source");
  if (source === null) return;
  const module = unquote(source.text);
  const clause = stmt.namedChildren.find((c) => c.type === "import_clause");
  if (clause === undefined) {
    add("import", "*", module);
    return;
  }
  for (const part of clause.namedChildren) {
    if (part.type === "identifier") add("import", "default", module);
    else if (part.type === "namespace_import") add("import", "*", module);
    else if (part.type === "named_imports") {
      for (const spec of part.namedChildren) {
        const name = spec.childForFieldName("name")?.text;
        if (name !== undefined) add("import", name, module);
      }
    }
  }
}

function reexportsOf(stmt: SyntaxNode, add: (kind: ReferenceRecord["kind"], name: string, module: string | null) => void): void {
  const source = stmt.childForFieldName("source");
  if (source === null) return;
  const module = unquote(source.text);
  const clause = stmt.namedChildren.find((c) => c.type === "export_clause");
  if (clause === undefined) {
    add("export", "*", module);
    return;
  }
  for (const spec of clause.namedChildren) {
    const name = spec.childForFieldName("name")?.text;
    if (name !== undefined) add("export", name, module);
  }
}
