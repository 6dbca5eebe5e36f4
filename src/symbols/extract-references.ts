import type { QueryCapture, QueryMatch, SyntaxNode } from "../parse/syntax.js";
import { compareStrings } from "../errors/diagnostic.js";
import type { ReferenceRecord } from "./types.js";

/**
 * References of a file from the matches of its references query: calls (`f`, `obj.method`),
 * `new`, types, decorators, base classes, and imports and re-exports with
 * their module specifier. Sorted and de-duplicated.
 */
export function extractReferences(matches: readonly QueryMatch[]): ReferenceRecord[] {
  const found = new Found();
  // A type parameter (`T` of `f<T>`) is not a dependency on anything outside, nor is a declaration's own name or
  // the last part of a qualified type (the query captures those as `local.declaration`).
  for (const m of matches) {
    for (const c of m.captures) {
      if (c.name === "local.type_parameter") found.typeParams.add(c.node.text);
      else if (c.name === "local.declaration") found.notReferences.add(c.node.id);
    }
  }
  for (const m of matches) for (const c of m.captures) found.capture(m, c);
  return found.out.sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name) || compareStrings(a.module ?? "", b.module ?? ""));
}

/**
 * The references found so far, each once. A class, not closures over locals: with every capture's case inline in
 * one loop, each case first met after that loop was optimised (a re-export, a dynamic import) threw its optimised
 * code away, and each compile of it again was 30-70 ms of TurboFan's time (six over the TypeScript corpus).
 */
class Found {
  readonly out: ReferenceRecord[] = [];
  /** The names seen, by kind and module (by kind alone for no module: most references, and no key to build). */
  readonly #seen = new Map<string, Set<string>>();
  /** Type names, by far the most frequent capture (every annotation), each looked at once per distinct text. */
  readonly #seenTypes = new Set<string>();
  readonly typeParams = new Set<string>();
  readonly notReferences = new Set<number>();

  add(kind: ReferenceRecord["kind"], name: string, module: string | null = null): void {
    if (name === "") return;
    const group = module === null ? kind : `${kind}\0${module}`;
    let names = this.#seen.get(group);
    if (names === undefined) this.#seen.set(group, (names = new Set()));
    if (names.has(name)) return;
    names.add(name);
    this.out.push({ kind, name, module });
  }

  capture(m: QueryMatch, c: QueryCapture): void {
    const kind = c.name;
    switch (kind) {
      case "reference.call":
      case "reference.new":
      case "reference.decorator":
      case "reference.base":
        this.add(kind.slice("reference.".length) as ReferenceRecord["kind"], memberName(c.node));
        return;
      case "reference.type":
        this.type(c.node);
        return;
      case "reference.import":
        importsOf(c.node, this);
        return;
      default:
        this.rare(m, c);
    }
  }

  type(node: SyntaxNode): void {
    if (this.notReferences.has(node.id)) return;
    // A plain type name is its text: seen once, it is settled (a type parameter's name is never a reference).
    if (node.type === "type_identifier") {
      const text = node.text;
      if (this.#seenTypes.has(text)) return;
      this.#seenTypes.add(text);
      if (!this.typeParams.has(text)) this.add("type", text);
      return;
    }
    if (this.typeParams.has(node.text)) return;
    this.add("type", memberName(node));
  }

  /** The captures most files have none of (re-exports, dynamic imports, Python's imports), and the ignored ones. */
  rare(m: QueryMatch, c: QueryCapture): void {
    switch (c.name) {
      case "reference.export":
        reexportsOf(c.node, this);
        return;
      case "reference.import.dynamic":
        this.add("import", "*", unquote(c.node.text));
        return;
      case "reference.import.module":
        this.add("import", "*", c.node.text);
        return;
      // Go: `import "net/http"` (a package, used through its name).
      case "reference.import.path":
        this.add("import", "*", unquote(c.node.text));
        return;
      case "reference.import.name": {
        const source = m.captures.find((x) => x.name === "reference.import.source");
        this.add("import", c.node.text, source === undefined ? null : source.node.text);
        return;
      }
      default:
        // `_`-prefixed helpers and `local.` captures are not references
        return;
    }
  }
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
  // Go: `pkg.F`, `v.M` (a selector), `pkg.T` (a qualified type).
  if (type === "selector_expression") {
    const operand = node.childForFieldName("operand");
    const left = operand === null ? "" : /^(identifier|selector_expression)$/.test(operand.type) ? memberName(operand) : "";
    return `${left}.${node.childForFieldName("field")?.text ?? ""}`;
  }
  if (type === "nested_type_identifier" || type === "qualified_type") return node.text.replace(/\s+/g, "");
  if (type === "generic_type") return memberName(node.namedChildren[0] ?? node);
  return node.text;
}

function unquote(s: string): string {
  return s.replace(/^['"`]|['"`]$/g, "");
}

/**
 * `import d, { a as b } from "m"` → default and `a` from "m"; `import * as ns` → `*`. A side-effect import
 * (`import "m"`, `import "vite/types/customEvent"`) binds no name, so it uses no symbol: not a reference.
 */
function importsOf(stmt: SyntaxNode, found: Found): void {
  const source = stmt.childForFieldName("source");
  if (source === null) return;
  const module = unquote(source.text);
  const clause = stmt.namedChildren.find((c) => c.type === "import_clause");
  if (clause === undefined) return;
  for (const part of clause.namedChildren) {
    if (part.type === "identifier") found.add("import", "default", module);
    else if (part.type === "namespace_import") found.add("import", "*", module);
    else if (part.type === "named_imports") {
      for (const spec of part.namedChildren) {
        const name = spec.childForFieldName("name")?.text;
        if (name !== undefined) found.add("import", name, module);
      }
    }
  }
}

function reexportsOf(stmt: SyntaxNode, found: Found): void {
  const source = stmt.childForFieldName("source");
  if (source === null) return;
  const module = unquote(source.text);
  const clause = stmt.namedChildren.find((c) => c.type === "export_clause");
  if (clause === undefined) {
    found.add("export", "*", module);
    return;
  }
  for (const spec of clause.namedChildren) {
    const name = spec.childForFieldName("name")?.text;
    if (name !== undefined) found.add("export", name, module);
  }
}
