import type { ASTNode, DefinitionNode, DocumentNode, FieldDefinitionNode, GraphQLSchema, InputValueDefinitionNode, Kind } from "graphql";
import { graphqlLib } from "./parsers.js";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { reason, type ChangeReason } from "../symbols/change-reason.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import type { ParamInfo, SymbolKind, SymbolRecord } from "../symbols/types.js";
import { type ContractEntry, contractSymbols, type HashText, rangeOf } from "./contract-symbol.js";

/** At most this many definitions are read from one document: a larger one is reported, not read. */
const MAX_DEFINITIONS = 20_000;

/**
 * The public surface of a GraphQL SDL document: each type (`User`), each field and input field with its arguments
 * (`User.posts`), each enum value (`Role.ADMIN`) and each directive (`@auth`). Extensions add to their type. A
 * document that does not parse has no symbols and a `parse_error`; operations (queries a client sends) are not part of
 * a schema and are skipped.
 */
export function graphqlSymbols(path: string, text: string, hash: HashText): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  const { Kind, Source, parse, print } = graphqlLib();
  let doc: DocumentNode;
  try {
    doc = parse(new Source(text, path), { maxTokens: 1_000_000 });
  } catch (error) {
    return { symbols: [], diagnostics: [diagnostic("parse_error", "warning", path, `not a GraphQL document: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)] };
  }
  if (doc.definitions.length > MAX_DEFINITIONS) return { symbols: [], diagnostics: [diagnostic("file_too_large", "warning", path, `more than ${MAX_DEFINITIONS} definitions: not read`)] };
  // Line starts, once: graphql's getLocation scans from the top at each call (a 40,000-line schema took minutes).
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const position = (offset: number): { line: number; column: number } => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  };
  // (a body is a node as graphql prints it, descriptions and directives included: layout and comments do not count)
  const range = (node: ASTNode) => {
    const start = position(node.loc?.start ?? 0);
    const end = position(node.loc?.end ?? 0);
    return rangeOf(start.line, start.column, end.line, end.column);
  };
  const entries: ContractEntry[] = [];
  for (const def of doc.definitions) {
    const typeKind = typeKindOf(def);
    if (typeKind === null || !("name" in def) || def.name === undefined) continue;
    const name = def.kind === Kind.DIRECTIVE_DEFINITION ? `@${def.name.value}` : def.name.value;
    const heritage = "interfaces" in def ? (def.interfaces ?? []).map((i) => i.name.value) : "types" in def ? (def.types ?? []).map((t) => t.name.value) : [];
    const head = `${typeKind.keyword} ${name}${heritage.length === 0 ? "" : def.kind === Kind.UNION_TYPE_DEFINITION || def.kind === Kind.UNION_TYPE_EXTENSION ? ` = ${heritage.join(" | ")}` : ` implements ${heritage.join(" & ")}`}`;
    const signature =
      def.kind === Kind.DIRECTIVE_DEFINITION
        ? `${head}(${(def.arguments ?? []).map(argText).join(", ")})${def.repeatable ? " repeatable" : ""} on ${def.locations.map((l) => l.value).join(" | ")}`
        : head;
    // A type's own body is without its members (each has its own): a changed field is not a changed type too.
    const own = { ...def, ...("fields" in def ? { fields: [] } : {}), ...("values" in def ? { values: [] } : {}) } as ASTNode;
    entries.push({ name, qualified_name: name, kind: typeKind.kind, range: range(def), signature, body: print(own), detail: { heritage, modifiers: typeKind.keyword === "input" ? ["input"] : [] } });
    if ("fields" in def)
      for (const f of def.fields ?? []) {
        const field = f as FieldDefinitionNode | InputValueDefinitionNode;
        const args = "arguments" in field ? (field.arguments ?? []) : [];
        const type = print(field.type);
        const sig = `${field.name.value}${args.length === 0 ? "" : `(${args.map(argText).join(", ")})`}: ${type}${"defaultValue" in field && field.defaultValue !== undefined ? ` = ${print(field.defaultValue)}` : ""}`;
        entries.push({
          name: field.name.value,
          qualified_name: `${name}.${field.name.value}`,
          kind: "field",
          range: range(field),
          signature: sig,
          body: print(field),
          detail: { params: args.length === 0 && !("arguments" in field) ? null : args.map(paramOf), returns: type, modifiers: deprecated(field) ? ["deprecated"] : [] },
        });
      }
    if ("values" in def)
      for (const v of def.values ?? []) {
        entries.push({
          name: v.name.value,
          qualified_name: `${name}.${v.name.value}`,
          kind: "enum_member",
          range: range(v),
          signature: v.name.value,
          body: print(v),
          detail: { modifiers: deprecated(v) ? ["deprecated"] : [] },
        });
      }
  }
  return { symbols: contractSymbols(entries, hash), diagnostics: [] };
}

function typeKindOf(def: DefinitionNode): { keyword: string; kind: SymbolKind } | null {
  const { Kind } = graphqlLib();
  switch (def.kind) {
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.OBJECT_TYPE_EXTENSION:
      return { keyword: "type", kind: "type" };
    case Kind.INTERFACE_TYPE_DEFINITION:
    case Kind.INTERFACE_TYPE_EXTENSION:
      return { keyword: "interface", kind: "interface" };
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
    case Kind.INPUT_OBJECT_TYPE_EXTENSION:
      return { keyword: "input", kind: "type" };
    case Kind.UNION_TYPE_DEFINITION:
    case Kind.UNION_TYPE_EXTENSION:
      return { keyword: "union", kind: "type" };
    case Kind.ENUM_TYPE_DEFINITION:
    case Kind.ENUM_TYPE_EXTENSION:
      return { keyword: "enum", kind: "enum" };
    case Kind.SCALAR_TYPE_DEFINITION:
    case Kind.SCALAR_TYPE_EXTENSION:
      return { keyword: "scalar", kind: "type" };
    case Kind.DIRECTIVE_DEFINITION:
      return { keyword: "directive", kind: "function" };
    default:
      return null;
  }
}

function argText(a: InputValueDefinitionNode): string {
  const { print } = graphqlLib();
  return `${a.name.value}: ${print(a.type)}${a.defaultValue === undefined ? "" : ` = ${print(a.defaultValue)}`}`;
}

function paramOf(a: InputValueDefinitionNode): ParamInfo {
  const { Kind, print } = graphqlLib();
  const required = a.type.kind === Kind.NON_NULL_TYPE && a.defaultValue === undefined;
  return { name: a.name.value, kind: "positional", optional: !required, default: a.defaultValue === undefined ? null : print(a.defaultValue), type: print(a.type) };
}

function deprecated(node: { readonly directives?: ReadonlyArray<{ readonly name: { readonly value: string } }> | undefined }): boolean {
  return (node.directives ?? []).some((d) => d.name.value === "deprecated");
}

/**
 * What changed between two versions of a GraphQL SDL document, by graphql-js's own `findBreakingChanges` and
 * `findDangerousChanges` (a dangerous change is `compatible` here, with its reason): each change is put on the
 * symbol it names. Additions graphql does not flag are compatible (`TYPE_ADDED`, `FIELD_ADDED`, ...); a symbol
 * removed with its type counts as removed with it. A document that is part of a larger schema is read alone: the
 * types it names but does not define are taken as scalars, and an extension of a type defined elsewhere as its
 * definition. Sorted by qualified name.
 */
export function compareGraphql(before: { text: string; symbols: readonly SymbolRecord[] } | null, after: { text: string; symbols: readonly SymbolRecord[] } | null): SymbolChange[] {
  const { findBreakingChanges, findDangerousChanges } = graphqlLib();
  const bSyms = new Map((before?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const aSyms = new Map((after?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const reasons = new Map<string, ChangeReason[]>();
  const add = (name: string, r: ChangeReason) => reasons.set(name, [...(reasons.get(name) ?? []), r]);
  const oldSchema = before === null ? null : schemaOf(before.text);
  const newSchema = after === null ? null : schemaOf(after.text);
  if (oldSchema !== null && newSchema !== null) {
    for (const c of findBreakingChanges(oldSchema, newSchema)) add(coordinateOf(c.type, c.description), reason(c.type, "breaking", c.description));
    for (const c of findDangerousChanges(oldSchema, newSchema)) add(coordinateOf(c.type, c.description), reason(c.type, "compatible", withoutValues(c.type, c.description)));
  }
  const names = new Set([...bSyms.keys(), ...aSyms.keys(), ...reasons.keys()]);
  const out: SymbolChange[] = [];
  for (const name of names) {
    const b = bSyms.get(name);
    const a = aSyms.get(name);
    const found = [...(reasons.get(name) ?? [])];
    const parent = name.includes(".") ? name.slice(0, name.indexOf(".")) : null;
    if (b !== undefined && a === undefined && found.length === 0) {
      // Gone with its type (whose own TYPE_REMOVED graphql reports), or a field or value graphql would have named.
      found.push(parent !== null && !aSyms.has(parent) ? reason("TYPE_REMOVED", "breaking", `removed with ${parent}`) : reason("REMOVED", "breaking", `${name} was removed`));
    }
    if (b === undefined && a !== undefined && found.length === 0)
      found.push(reason(a.kind === "field" ? "FIELD_ADDED" : a.kind === "enum_member" ? "VALUE_ADDED" : "TYPE_ADDED", "compatible", `${name} was added`));
    if (b !== undefined && a !== undefined && found.length === 0 && b.signature_hash !== a.signature_hash) {
      found.push(reason("SAFE_CHANGE", "compatible", "changed in a way graphql's findBreakingChanges finds neither breaking nor dangerous"));
    }
    const kind = (a ?? b)?.kind ?? (name.startsWith("@") ? "function" : "type");
    const change =
      b === undefined ? "added" : a === undefined ? "removed" : b.signature_hash !== a.signature_hash || found.length > 0 ? "signature_changed" : b.body_hash !== a.body_hash ? "body_changed" : null;
    if (change === null) continue;
    const compatibility = found.some((r) => r.verdict === "breaking") ? "breaking" : found.length > 0 ? "compatible" : "internal";
    out.push({ qualified_name: name, kind, change, renamed_from: null, exported: true, compatibility, reasons: found });
  }
  return out.sort((x, y) => (x.qualified_name < y.qualified_name ? -1 : x.qualified_name > y.qualified_name ? 1 : 0));
}

/**
 * For each field coordinate (`User.email`), the paths from the schema's root types that select it
 * (`Query.user.email`, `Query.me.orders.edges.node.status` through a connection): the names a client's documents
 * give it when they do not name its type. Found backwards, from the field's type up through every field that returns
 * it (or a union or interface it belongs to) to a root type, shortest first, at most 9 fields long, at most
 * `maxPaths` a coordinate (a change carries 64 names on the wire); the schema is the document's (types
 * it does not define are scalars).
 */
export function graphqlRootPaths(text: string, coordinates: readonly string[], maxPaths = 63): Map<string, string[]> {
  const out = new Map<string, string[]>(coordinates.map((c) => [c, []]));
  const schema = schemaOf(text);
  if (schema === null || coordinates.length === 0) return out;
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((t) => t !== null && t !== undefined).map((t) => t.name));
  // Which fields return each type: its own name, and each union and interface it is part of.
  const returning = new Map<string, Array<{ parent: string; field: string }>>();
  const via = new Map<string, string[]>();
  for (const t of Object.values(schema.getTypeMap())) {
    if (t.name.startsWith("__")) continue;
    const add = <T>(m: Map<string, T[]>, k: string, v: T): void => {
      const list = m.get(k);
      if (list === undefined) m.set(k, [v]);
      else list.push(v);
    };
    if ("getTypes" in t && typeof t.getTypes === "function") for (const m of t.getTypes()) add(via, m.name, t.name);
    if ("getInterfaces" in t && typeof t.getInterfaces === "function") for (const i of t.getInterfaces()) add(via, t.name, i.name);
    if (!("getFields" in t) || typeof t.getFields !== "function" || "getTypes" in t) continue;
    for (const f of Object.values(t.getFields()) as Array<{ name: string; type: unknown }>) {
      add(returning, namedTypeName(f.type), { parent: t.name, field: f.name });
    }
  }
  for (const coordinate of coordinates) {
    const dot = coordinate.indexOf(".");
    if (dot < 0) continue;
    const list = out.get(coordinate) as string[];
    // Backwards, breadth first: the shortest paths first (what documents mostly write); a type may recur (a user's
    // friends are users), the length bounds it.
    const start = coordinate.slice(0, dot);
    const queue: Array<{ type: string; suffix: string; depth: number }> = [{ type: start, suffix: coordinate.slice(dot + 1), depth: 0 }];
    for (let next = 0; next < queue.length && next < 50_000 && list.length < maxPaths; next++) {
      const { type, suffix, depth } = queue[next] as { type: string; suffix: string; depth: number };
      if (roots.has(type)) list.push(`${type}.${suffix}`);
      if (depth >= 8) continue;
      for (const as of [type, ...(via.get(type) ?? [])])
        for (const r of returning.get(as) ?? []) if (queue.length < 200_000) queue.push({ type: r.parent, suffix: `${r.field}.${suffix}`, depth: depth + 1 });
    }
  }
  return out;
}

function namedTypeName(type: unknown): string {
  let t = type as { ofType?: unknown; name?: string };
  while (t.ofType !== undefined) t = t.ofType as { ofType?: unknown; name?: string };
  return t.name ?? "";
}

/**
 * The field coordinates (`User.email`) a GraphQL document selects, resolved against a schema by graphql-js's own
 * TypeInfo (fragments, aliases and nesting as the server would read them); empty where either does not parse.
 */
export function graphqlCoordinatesUsed(document: string, schemaText: string): Set<string> {
  const { TypeInfo, parse, visit, visitWithTypeInfo } = graphqlLib();
  const out = new Set<string>();
  const schema = schemaOf(schemaText);
  if (schema === null) return out;
  let doc: DocumentNode;
  try {
    doc = parse(document, { noLocation: true, maxTokens: 200_000 });
  } catch {
    return out;
  }
  const info = new TypeInfo(schema);
  visit(
    doc,
    visitWithTypeInfo(info, {
      Field(node) {
        const parent = info.getParentType();
        if (parent !== null && parent !== undefined && !node.name.value.startsWith("__")) out.add(`${parent.name}.${node.name.value}`);
      },
    }),
  );
  return out;
}

/** A change's description without the default values it quotes: values are content, and never leave the machine. */
function withoutValues(type: string, description: string): string {
  const m = /^(\w+\.\w+ arg \w+) has changed defaultValue from /.exec(description);
  return type === "ARG_DEFAULT_VALUE_CHANGE" && m !== null ? `${m[1]} has changed its default value.` : description;
}

/** The symbol a graphql-js change describes (its descriptions are its only coordinates). */
export function coordinateOf(type: string, description: string): string {
  const d = description;
  let m = /^An? (?:required|optional) arg \w+ on directive (\w+) was added\.$/.exec(d);
  if (m !== null) return `@${m[1]}`;
  if (type.startsWith("DIRECTIVE_") || type === "REQUIRED_DIRECTIVE_ARG_ADDED") return `@${/(\w+)\.$/.exec(d)?.[1] ?? ""}`;
  m = /^An? (?:required|optional) arg \w+ on (\w+)\.(\w+) was added\.$/.exec(d);
  if (m !== null) return `${m[1]}.${m[2]}`;
  m = /^An? (?:required|optional) field (\w+) on input type (\w+) was added\.$/.exec(d);
  if (m !== null) return `${m[2]}.${m[1]}`;
  m = /^\w+ was (?:added to|removed from) union type (\w+)\.$/.exec(d);
  if (m !== null) return m[1] as string;
  m = /^(\w+) was (?:added to|removed from) enum type (\w+)\.$/.exec(d);
  if (m !== null) return `${m[2]}.${m[1]}`;
  m = /^\w+ added to interfaces implemented by (\w+)\.$/.exec(d);
  if (m !== null) return m[1] as string;
  m = /^(\w+) no longer implements interface \w+\.$/.exec(d);
  if (m !== null) return m[1] as string;
  m = /^Standard scalar (\w+) was removed/.exec(d);
  if (m !== null) return m[1] as string;
  m = /^(\w+)\.(\w+)\b/.exec(d);
  if (m !== null) return `${m[1]}.${m[2]}`;
  return /^(\w+)/.exec(d)?.[1] ?? d;
}

/**
 * A schema built from one document, or null where it cannot be: what it names but does not define becomes a scalar,
 * and the first extension of a type it does not define becomes that type's definition.
 */
function schemaOf(text: string): GraphQLSchema | null {
  // The last few schemas built, by their text: a comparison and its consumers' names read the same two documents.
  const kept = builtSchemas.get(text);
  if (kept !== undefined) return kept;
  const built = buildSchemaOf(text);
  builtSchemas.set(text, built);
  if (builtSchemas.size > 4) builtSchemas.delete(builtSchemas.keys().next().value as string);
  return built;
}

const builtSchemas = new Map<string, GraphQLSchema | null>();

function buildSchemaOf(text: string): GraphQLSchema | null {
  const { Kind, buildASTSchema, parse, specifiedScalarTypes, visit } = graphqlLib();
  let doc: DocumentNode;
  try {
    doc = parse(text, { noLocation: true, maxTokens: 1_000_000 });
  } catch {
    return null;
  }
  const defined = new Set<string>(specifiedScalarTypes.map((t) => t.name));
  for (const d of doc.definitions) if ("name" in d && d.name !== undefined && !d.kind.endsWith("Extension") && d.kind !== Kind.DIRECTIVE_DEFINITION) defined.add(d.name.value);
  const toDefinition: Record<string, Kind> = {
    [Kind.OBJECT_TYPE_EXTENSION]: Kind.OBJECT_TYPE_DEFINITION,
    [Kind.INTERFACE_TYPE_EXTENSION]: Kind.INTERFACE_TYPE_DEFINITION,
    [Kind.INPUT_OBJECT_TYPE_EXTENSION]: Kind.INPUT_OBJECT_TYPE_DEFINITION,
    [Kind.UNION_TYPE_EXTENSION]: Kind.UNION_TYPE_DEFINITION,
    [Kind.ENUM_TYPE_EXTENSION]: Kind.ENUM_TYPE_DEFINITION,
    [Kind.SCALAR_TYPE_EXTENSION]: Kind.SCALAR_TYPE_DEFINITION,
  };
  const definitions: DefinitionNode[] = [];
  for (const d of doc.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) continue;
    const as = toDefinition[d.kind];
    if (as !== undefined && "name" in d && !defined.has(d.name.value)) {
      defined.add(d.name.value);
      definitions.push({ ...d, kind: as } as DefinitionNode);
    } else definitions.push(d);
  }
  const named = new Set<string>();
  visit({ kind: Kind.DOCUMENT, definitions }, { NamedType: (n) => void named.add(n.name.value) });
  for (const n of [...named].sort()) if (!defined.has(n)) definitions.push({ kind: Kind.SCALAR_TYPE_DEFINITION, name: { kind: Kind.NAME, value: n } });
  try {
    return buildASTSchema({ kind: Kind.DOCUMENT, definitions }, { assumeValid: true, assumeValidSDL: true });
  } catch {
    return null;
  }
}
