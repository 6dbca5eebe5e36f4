import type { Event } from "js-yaml";
import { lineIndex } from "./line-index.js";
import { yamlLib } from "./parsers.js";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { reason, type ChangeReason } from "../symbols/change-reason.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import type { SourceRange, SymbolRecord } from "../symbols/types.js";
import { type ContractEntry, contractSymbols, type HashText, rangeOf } from "./contract-symbol.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** How deep a schema is followed (through `$ref`s, items, properties): deeper is left as its name. */
const MAX_DEPTH = 10;
/** At most this many operations and schema properties are read from one document. */
const MAX_ENTRIES = 20_000;

/**
 * A schema as consumers depend on it, normalised: its type, format, enum values, properties with required-ness,
 * items; a `$ref` followed (within the document) and named. Descriptions and examples are not part of it.
 */
export interface Shape {
  readonly type: string | null;
  readonly format: string | null;
  readonly enum: readonly string[] | null;
  readonly nullable: boolean;
  readonly properties: Readonly<Record<string, Shape>> | null;
  readonly required: readonly string[];
  readonly items: Shape | null;
  /** The component it was named by (`Order`), when it came through a `$ref`. */
  readonly ref: string | null;
  /** That `$ref` itself (`#/components/schemas/Order`). */
  readonly pointer: string | null;
  /** The members of a `oneOf` or `anyOf`, in order. */
  readonly variants: readonly Shape[] | null;
}

interface Operation {
  readonly params: ReadonlyArray<{ readonly in: string; readonly name: string; readonly required: boolean; readonly shape: Shape | null }>;
  readonly body: { readonly required: boolean; readonly shape: Shape | null } | null;
  readonly responses: Readonly<Record<string, Shape | null>>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A document read (where its nodes are: null for one adopted from a cache, which knows no positions), or why not. */
type Loaded = { doc: Record<string, Json>; node: ((keys: readonly string[]) => SourceRange | null) | null } | Diagnostic;

/** The last few documents parsed, by text: reading, comparing and linking one edit's two versions parse each once. */
const loaded = new Map<string, Loaded>();

/** The document, parsed (YAML or JSON), with where each of its nodes is; null and a diagnostic where it does not parse. */
function load(path: string, text: string, options: { positions?: boolean } = {}): Loaded {
  const kept = loaded.get(text);
  if (kept !== undefined && !(options.positions === true && "doc" in kept && kept.node === null)) {
    // (the most recently used last: what goes first is the one used longest ago)
    loaded.delete(text);
    loaded.set(text, kept);
    return "doc" in kept ? kept : { ...kept, path };
  }
  const l = loadOnce(path, text);
  keepLoaded(text, l);
  return l;
}

function keepLoaded(text: string, l: Loaded): void {
  loaded.delete(text);
  loaded.set(text, l);
  if (loaded.size > 4) loaded.delete(loaded.keys().next().value as string);
}

/** Each operation's `operationId` (`GET /orders/{id}`: `getOrderById`), where it has one: what generated clients name it. */
export function openapiOperationIds(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const l = load("", text);
  if (!("doc" in l)) return out;
  const paths = isObject(l.doc["paths"]) ? l.doc["paths"] : {};
  for (const [p, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const m of METHODS) {
      const o = item[m];
      if (isObject(o) && typeof o["operationId"] === "string" && /^[A-Za-z_$][\w$-]*$/.test(o["operationId"])) out.set(`${m.toUpperCase()} ${p}`, o["operationId"]);
    }
  }
  return out;
}

/** The document's data as read (what a cache keeps of it beside its symbols); null where it does not parse. */
export function openapiDocumentData(text: string): unknown {
  const l = load("", text);
  return "doc" in l ? l.doc : null;
}

/**
 * A version's data kept from an earlier read (a cache's): comparing it does not parse its text again. Its positions
 * are not kept, nor needed: its symbols come from the same cache with theirs.
 */
export function adoptOpenapiDocument(text: string, data: unknown): void {
  if (!isObject(data)) return;
  const kept = loaded.get(text);
  keepLoaded(text, kept !== undefined && "doc" in kept ? kept : { doc: data, node: null });
}

function loadOnce(path: string, text: string): Loaded {
  let docs: unknown[];
  let events: Event[];
  try {
    // Bounded: aliases (a few lines of YAML can otherwise expand to gigabytes, "billion laughs") and nesting (a
    // deeply nested JSON is refused at the depth, not after the whole of it is read). `json` lets a key repeat, the
    // last one winning, as JSON readers do.
    events = yamlLib().parseEvents(text, { maxDepth: MAX_NESTING });
    docs = yamlLib().constructFromEvents(events, { source: text, json: true, maxAliases: 100 });
  } catch (error) {
    return diagnostic("parse_error", "warning", path, `not a YAML or JSON document: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  const doc = docs[0];
  if (docs.length !== 1 || !isObject(doc)) return diagnostic("parse_error", "warning", path, "not an OpenAPI document: no top-level map");
  // An alias is shared, not copied, when read; what reads the document later walks it whole, so a few aliases of
  // aliases would be millions of nodes ("billion laughs"): refused where the document, expanded, passes ten nodes
  // per node written.
  if (events.some((e) => e.type === yamlLib().EVENT_ALIAS) && !withinNodes(doc, 10 * events.length + 10_000))
    return diagnostic("parse_error", "warning", path, "not an OpenAPI document: its aliases expand too far");
  const ranges = keyRanges(text, events);
  const lineCol = lineIndex(text);
  const node = (keys: readonly string[]): SourceRange | null => {
    const r = ranges.get(keys.join("\0"));
    if (r === undefined) return null;
    const [sl, sc] = lineCol(r[0]);
    const [el, ec] = lineCol(r[1]);
    return rangeOf(sl, sc, el, ec);
  };
  return { doc, node };
}

/** Whether a value, its aliases expanded, has at most `budget` nodes; stops counting there. */
function withinNodes(value: unknown, budget: number): boolean {
  let left = budget;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (--left < 0) return false;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) stack.push(x);
  }
  return true;
}

/** How deep a document may nest; OpenAPI documents seldom pass 20. */
const MAX_NESTING = 64;
/** Where keys are recorded to this depth: operations (`paths./x.get`) and properties (`components.schemas.X.properties.p`). */
const MAX_KEY_DEPTH = 5;

/**
 * Where each mapping entry of the first document is, by its key path (keys joined with NUL), to MAX_KEY_DEPTH: from
 * its key's first character to the last character of its value. Read from the parser's events, so the document is
 * parsed once for its data and its positions.
 */
function keyRanges(text: string, events: readonly Event[]): Map<string, [number, number]> {
  const { EVENT_ALIAS, EVENT_DOCUMENT, EVENT_MAPPING, EVENT_POP, EVENT_SCALAR, EVENT_SEQUENCE, getScalarValue } = yamlLib();
  const out = new Map<string, [number, number]>();
  interface Frame {
    readonly map: boolean;
    readonly path: string;
    readonly depth: number;
    index: number;
    key: string | null;
    keyStart: number;
  }
  const stack: Frame[] = [];
  let lastEnd = 0;
  let docs = 0;
  // The value that just ended: recorded under its key, from its key to the last character read.
  const ended = (frame: Frame | undefined, path: string, start: number): void => {
    if (frame?.map && frame.depth < MAX_KEY_DEPTH) out.set(path, [start, Math.max(start, lastEnd)]);
  };
  const childPath = (frame: Frame): string => (frame.path === "" ? (frame.key ?? "") : `${frame.path}\0${frame.key ?? ""}`);
  const pending: Array<{ path: string; start: number }> = [];
  for (const ev of events) {
    if (ev.type === EVENT_DOCUMENT) {
      if (++docs > 1) break;
      continue;
    }
    const top = stack[stack.length - 1];
    if (ev.type === EVENT_POP) {
      stack.pop();
      const p = pending.pop();
      if (p !== undefined) ended(stack[stack.length - 1], p.path, p.start);
      if (stack.length === 0) break;
      continue;
    }
    // A mapping's key: scalars only (a complex key is skipped with its value).
    if (top?.map && top.key === null) {
      if (ev.type === EVENT_SCALAR) {
        top.key = getScalarValue(text, ev);
        top.keyStart = ev.valueStart;
        lastEnd = Math.max(lastEnd, ev.valueEnd);
      } else {
        top.key = "\u0000complex";
        top.keyStart = lastEnd;
        if (ev.type === EVENT_MAPPING || ev.type === EVENT_SEQUENCE) {
          stack.push({ map: ev.type === EVENT_MAPPING, path: "\u0000complex", depth: MAX_KEY_DEPTH, index: 0, key: null, keyStart: 0 });
          pending.push({ path: "\u0000complex", start: lastEnd });
        }
      }
      continue;
    }
    const path = top === undefined ? "" : top.map ? childPath(top) : `${top.path}\0${top.index}`;
    const start = top?.map === true ? top.keyStart : "start" in ev ? ev.start : "valueStart" in ev ? ev.valueStart : lastEnd;
    if (ev.type === EVENT_SCALAR && ev.valueEnd >= 0) lastEnd = Math.max(lastEnd, ev.valueEnd);
    if (ev.type === EVENT_MAPPING || ev.type === EVENT_SEQUENCE) {
      stack.push({ map: ev.type === EVENT_MAPPING, path, depth: top === undefined ? 0 : top.depth + 1, index: 0, key: null, keyStart: 0 });
      pending.push({ path, start });
    } else if (ev.type === EVENT_SCALAR || ev.type === EVENT_ALIAS) ended(top, path, start);
    if (top !== undefined) {
      if (top.map) top.key = null;
      else top.index++;
    }
  }
  return out;
}

/** Swagger 2 keeps its schemas under `definitions`, OpenAPI 3 under `components.schemas`. */
function schemasOf(doc: Record<string, Json>): Record<string, Json> {
  const components = doc["components"];
  const defs = isObject(components) && isObject(components["schemas"]) ? components["schemas"] : isObject(doc["definitions"]) ? doc["definitions"] : {};
  return defs;
}

/**
 * A schema's shape. Followed (`follow`), its `$ref`s within the document are expanded (past MAX_DEPTH, a cycle's
 * included, left as the name): what the rules compare. Not followed, a `$ref` is a leaf that names its component
 * (an `allOf` member's still merged in, as it is part of the object): what a signature digests, the components'
 * own digests standing for them.
 */
function shapeOf(doc: Record<string, Json>, schema: Json | undefined, depth = 0, follow = true): Shape | null {
  if (!isObject(schema)) return null;
  const ref = typeof schema["$ref"] === "string" ? schema["$ref"] : null;
  if (ref !== null) {
    const name = refName(ref);
    if (!follow) return { ...EMPTY, type: "(ref)", ref: name, pointer: ref };
    // A component is expanded once per depth it is met at (many operations name the same ones): kept per document.
    let memo = refShapes.get(doc);
    if (memo === undefined) {
      memo = new Map();
      refShapes.set(doc, memo);
    }
    // (a pure function of the component and the depth: cycles end at MAX_DEPTH, so the memo is exact)
    const key = `${depth}\0${ref}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const target = resolveRef(doc, ref);
    let shape: Shape;
    if (target === undefined || depth >= MAX_DEPTH) shape = { ...EMPTY, type: "(ref)", ref: name, pointer: ref };
    else {
      const inner = shapeOf(doc, target, depth + 1);
      shape = inner === null ? { ...EMPTY, ref: name, pointer: ref } : { ...inner, ref: name, pointer: ref };
    }
    memo.set(key, shape);
    return shape;
  }
  if (depth >= MAX_DEPTH) return { ...EMPTY, type: "(deep)" };
  // allOf: one object of every member's properties and required names.
  const member = (m: Json): Shape | null => {
    if (follow || !isObject(m) || typeof m["$ref"] !== "string") return shapeOf(doc, m, depth + 1, follow);
    const inner = shapeOf(doc, resolveRef(doc, m["$ref"]), depth + 1, false);
    return inner === null ? null : { ...inner, variants: [...(inner.variants ?? []), shapeOf(doc, m, depth + 1, false) ?? EMPTY] };
  };
  const all = Array.isArray(schema["allOf"]) ? schema["allOf"].map(member).filter((s): s is Shape => s !== null) : [];
  // Without a prototype: a property named `__proto__` is a property like any other.
  const props: Record<string, Shape> = Object.create(null) as Record<string, Shape>;
  const required = new Set<string>();
  // (unfollowed, the `$ref`s an allOf merged in are kept as variants: a signature's digest reaches them)
  const merged: Shape[] = [];
  for (const m of all) {
    Object.assign(props, m.properties ?? {});
    for (const r of m.required) required.add(r);
    merged.push(...(m.variants ?? []));
  }
  if (isObject(schema["properties"])) for (const [k, v] of Object.entries(schema["properties"])) props[k] = shapeOf(doc, v, depth + 1, follow) ?? EMPTY;
  if (Array.isArray(schema["required"])) for (const r of schema["required"]) if (typeof r === "string") required.add(r);
  const type = Array.isArray(schema["type"])
    ? schema["type"].filter((t) => t !== "null").join("|")
    : typeof schema["type"] === "string"
      ? schema["type"]
      : Object.keys(props).length > 0
        ? "object"
        : null;
  const variants = ["oneOf", "anyOf"].flatMap((k) => (Array.isArray(schema[k]) ? (schema[k] as Json[]) : [])).map((v) => shapeOf(doc, v, depth + 1, follow) ?? EMPTY);
  return {
    type: type ?? (variants.length > 0 ? `oneOf(${variants.map((v) => v.ref ?? v.type ?? "?").join("|")})` : null),
    format: typeof schema["format"] === "string" ? schema["format"] : null,
    enum: Array.isArray(schema["enum"]) ? schema["enum"].map((e) => JSON.stringify(e)).sort() : null,
    nullable: schema["nullable"] === true || (Array.isArray(schema["type"]) && schema["type"].includes("null")),
    properties: Object.keys(props).length > 0 || type === "object" ? sortKeys(props) : null,
    required: [...required].sort(),
    items: schema["items"] === undefined ? null : shapeOf(doc, schema["items"], depth + 1, follow),
    ref: null,
    pointer: null,
    variants: variants.length > 0 || merged.length > 0 ? [...variants, ...merged] : null,
  };
}

/** Components' shapes by depth, per parsed document (a document parsed anew has its own). */
const refShapes = new WeakMap<object, Map<string, Shape>>();

const EMPTY: Shape = { type: null, format: null, enum: null, nullable: false, properties: null, required: [], items: null, ref: null, pointer: null, variants: null };

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * A signature's digest of a shape (read unfollowed): its own facts and, for each component it names, that
 * component's closure digest: its own facts and those of every component it reaches, hashed once per strongly
 * connected group (Tarjan), so a cycle of components is one digest. A change anywhere under an operation's
 * schemas changes the operation's signature, as the followed shapes' rules read it, without spelling the schemas
 * out at every place they are reached from (megabytes, for a document of a few thousand lines).
 */
function shapeDigest(doc: Record<string, Json>, hash: HashText): (shape: Shape | null) => string | null {
  const own = new Map<string, { text: string; edges: string[] }>();
  const ownOf = (pointer: string): { text: string; edges: string[] } => {
    let o = own.get(pointer);
    if (o === undefined) {
      const edges = new Set<string>();
      const text = structure(shapeOf(doc, resolveRef(doc, pointer), 0, false), edges);
      o = { text, edges: [...edges].sort() };
      own.set(pointer, o);
    }
    return o;
  };
  const done = new Map<string, string>();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const strong = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of ownOf(v).edges) {
      if (done.has(w)) continue;
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      members.push(w);
      if (w === v) break;
    }
    members.sort();
    const inGroup = new Set(members);
    const after = new Set<string>();
    for (const m of members) for (const w of ownOf(m).edges) if (!inGroup.has(w)) after.add(done.get(w) ?? "");
    const d = hash(JSON.stringify([members.map((m) => [m, ownOf(m).text]), [...after].sort()]));
    for (const m of members) done.set(m, d);
  };
  const closure = (pointer: string): string => {
    if (!done.has(pointer)) strong(pointer);
    return done.get(pointer) ?? "";
  };
  return (shape) => {
    if (shape === null) return null;
    const edges = new Set<string>();
    const text = structure(shape, edges);
    if (edges.size === 0) return `${shape.type ?? "any"}#${hash(text)}`;
    return `${shape.ref ?? shape.type ?? "any"}#${hash(JSON.stringify([text, [...edges].sort().map((e) => `${e}#${closure(e)}`)]))}`;
  };
}

/** A shape's own facts as text, the components it names by pointer (added to `edges`) and not expanded. */
function structure(shape: Shape | null, edges: Set<string>): string {
  if (shape === null) return "null";
  if (shape.pointer !== null && shape.type === "(ref)") {
    edges.add(shape.pointer);
    return JSON.stringify(`->${shape.pointer}`);
  }
  const props =
    shape.properties === null
      ? "null"
      : `{${Object.entries(shape.properties)
          .map(([k, v]) => `${JSON.stringify(k)}:${structure(v, edges)}`)
          .join(",")}}`;
  const variants = shape.variants === null ? "null" : `[${shape.variants.map((v) => structure(v, edges)).join(",")}]`;
  return `[${JSON.stringify([shape.type, shape.format, shape.enum, shape.nullable, shape.required])},${props},${structure(shape.items, edges)},${variants}]`;
}

/**
 * The other files of the repo a document's `$ref`s name (`./schemas/order.yaml#/Order`, `paths/orders.yaml`), by
 * repo-relative path: their text, null where a file is not there. They are read with this, through the files they
 * name in turn, at most MAX_REF_FILES; a reference that leaves the repo, a URL or an absolute path is not followed.
 */
export type RefFiles = ReadonlyMap<string, string | null>;

/** Where a bundled document keeps the files its `$ref`s reach, each under its path (`#/x-comity-files/a~1b.yaml/X`). */
const FILES_KEY = "x-comity-files";
const MAX_REF_FILES = 64;

/** Reads the files a document's `$ref`s reach, transitively (see {@link RefFiles}); an empty map for a document that names none. */
export async function openapiRefFiles(docPath: string, text: string, read: (repoPath: string) => Promise<string | null>): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const root = load(docPath, text);
  if (!("doc" in root)) return out;
  const queue: Array<[string, Json]> = [[docPath, root.doc]];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [from, data] = next;
    for (const ref of externalRefs(data)) {
      const target = refTarget(from, ref.split("#")[0] ?? "");
      // (a code sample or a Markdown description named by `$ref` is no part of the API's shape: not read)
      if (target === null || target === docPath || out.has(target) || !/\.(?:ya?ml|json)$/i.test(target)) continue;
      if (out.size >= MAX_REF_FILES) return out;
      let t: string | null = null;
      try {
        t = await read(target);
      } catch {
        // (unreadable: as a file that is not there, its references left as names)
      }
      out.set(target, t);
      const l = t === null ? null : load(target, t);
      if (l !== null && "doc" in l) queue.push([target, l.doc]);
    }
  }
  return out;
}

/** Whether a document names another file in a `$ref` (then what it means depends on more than its own text). */
export function openapiHasExternalRefs(text: string): boolean {
  const l = load("", text);
  return "doc" in l && externalRefs(l.doc).length > 0;
}

/** The `$ref`s under a value that name another file, each once. */
function externalRefs(value: Json): string[] {
  const out = new Set<string>();
  const seen = new Set<object>();
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) stack.push(...v);
    else {
      const ref = v["$ref"];
      if (typeof ref === "string" && !ref.startsWith("#")) out.add(ref);
      stack.push(...Object.values(v));
    }
  }
  return [...out].sort();
}

/** The repo-relative POSIX path a `$ref`'s file part names from the file `from`; null where it leaves the repo or is a URL. */
function refTarget(from: string, filePart: string): string | null {
  if (filePart === "" || /^[a-z][a-z0-9+.-]*:/i.test(filePart) || filePart.startsWith("/") || filePart.includes("\\")) return null;
  const parts = from.split("/").slice(0, -1);
  for (const seg of filePart.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length === 0 ? null : parts.join("/");
}

const pointerKey = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The document with the files its `$ref`s reach inside it (under FILES_KEY) and every reference rewritten to point
 * there, so that the rules follow a schema into another file as into its own components. The document as read
 * where no file is given.
 */
function bundled(docPath: string, doc: Record<string, Json>, files: RefFiles | null): Record<string, Json> {
  if (files === null || files.size === 0) return doc;
  const copies = new Map<object, Json>();
  const rewrite = (from: string, value: Json): Json => {
    if (typeof value !== "object" || value === null) return value;
    const known = copies.get(value);
    if (known !== undefined) return known;
    if (Array.isArray(value)) {
      const out: Json[] = [];
      copies.set(value, out);
      for (const v of value) out.push(rewrite(from, v));
      return out;
    }
    const out: Record<string, Json> = Object.create(null) as Record<string, Json>;
    copies.set(value, out);
    for (const [k, v] of Object.entries(value)) out[k] = k === "$ref" && typeof v === "string" ? rewriteRef(from, v) : rewrite(from, v);
    return out;
  };
  const rewriteRef = (from: string, ref: string): string => {
    const hash = ref.indexOf("#");
    const filePart = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? "" : ref.slice(hash + 1);
    const target = filePart === "" ? from : refTarget(from, filePart);
    if (target === null || (target !== docPath && typeof files.get(target) !== "string")) return ref;
    return target === docPath ? `#${pointer}` : `#/${FILES_KEY}/${pointerKey(target)}${pointer}`;
  };
  const root = rewrite(docPath, doc) as Record<string, Json>;
  const kept: Record<string, Json> = Object.create(null) as Record<string, Json>;
  for (const [p, t] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const l = t === null ? null : load(p, t);
    if (l !== null && "doc" in l) kept[p] = rewrite(p, l.doc);
  }
  root[FILES_KEY] = kept;
  return root;
}

/** What a `$ref` names its schema by: its last key; a whole file by its name without extension (`Order.yaml`: `Order`). */
function refName(ref: string): string {
  const last = ref.replace(/^.*\//, "");
  if (!ref.startsWith(`#/${FILES_KEY}/`) || ref.split("/").length > 3) return last;
  return last
    .replace(/~1/g, "/")
    .replace(/~0/g, "~")
    .replace(/^.*\//, "")
    .replace(/\.(ya?ml|json)$/i, "");
}

/**
 * A path item, parameter, request body or response, through its `$ref` where it is a reference; keys written beside
 * the `$ref` override the target's (`- $ref: ../parameters/Filter.yaml` with `required: true`), as the reference
 * resolvers and bundlers people use read them (OpenAPI 3.1 itself lets only `summary` and `description` do so).
 */
function deref(doc: Record<string, Json>, raw: Json | undefined): Json | undefined {
  if (!isObject(raw) || typeof raw["$ref"] !== "string") return raw;
  const target = resolveRef(doc, raw["$ref"]);
  const siblings = Object.entries(raw).filter(([k]) => k !== "$ref");
  return siblings.length === 0 || !isObject(target) ? target : { ...target, ...Object.fromEntries(siblings) };
}

/** A `#/...` pointer within the document (`~1` and `~0` unescaped); undefined for another file's or a missing one. */
function resolveRef(doc: Record<string, Json>, ref: string): Json | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let at: Json | undefined = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    at = isObject(at) ? at[key] : undefined;
  }
  return at;
}

/**
 * Each operation of the document, by `METHOD /path/template`, its shapes read (`follow` as `shapeOf` takes it) when
 * first asked for: comparing two versions reads only the operations whose signature changed.
 */
function operationsOf(doc: Record<string, Json>, follow = true): Map<string, { op: () => Operation; keys: string[] }> {
  const out = new Map<string, { op: () => Operation; keys: string[] }>();
  const paths = isObject(doc["paths"]) ? doc["paths"] : {};
  const swagger = typeof doc["swagger"] === "string";
  for (const [p, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item["parameters"]) ? item["parameters"] : [];
    for (const m of METHODS) {
      const o = item[m];
      if (!isObject(o)) continue;
      let read: Operation | null = null;
      out.set(`${m.toUpperCase()} ${p}`, { op: () => (read ??= operationOf(doc, shared, o, swagger, follow)), keys: ["paths", p, m] });
    }
  }
  return out;
}

function operationOf(doc: Record<string, Json>, shared: readonly Json[], o: Record<string, Json>, swagger: boolean, follow: boolean): Operation {
  const byKey = new Map<string, Json>();
  for (const raw of [...shared, ...(Array.isArray(o["parameters"]) ? o["parameters"] : [])]) {
    const prm = deref(doc, raw);
    if (isObject(prm)) byKey.set(`${String(prm["in"])}\0${String(prm["name"])}`, prm);
  }
  const params: Array<Operation["params"][number]> = [];
  let body: Operation["body"] = null;
  for (const prm of byKey.values()) {
    if (!isObject(prm)) continue;
    const where = String(prm["in"]);
    // Swagger 2's body parameter is OpenAPI 3's request body.
    if (where === "body") body = { required: prm["required"] === true, shape: shapeOf(doc, prm["schema"], 0, follow) };
    else params.push({ in: where, name: String(prm["name"]), required: prm["required"] === true || where === "path", shape: shapeOf(doc, prm["schema"] ?? (swagger ? prm : undefined), 0, follow) });
  }
  const rb = deref(doc, o["requestBody"]);
  if (isObject(rb)) body = { required: rb["required"] === true, shape: contentShape(doc, rb, follow) };
  const responses: Record<string, Shape | null> = {};
  if (isObject(o["responses"]))
    for (const [code, rawResp] of Object.entries(o["responses"])) {
      const resp = deref(doc, rawResp);
      responses[code] = isObject(resp) ? (swagger ? shapeOf(doc, resp["schema"], 0, follow) : contentShape(doc, resp, follow)) : null;
    }
  params.sort((a, b) => (`${a.in}\0${a.name}` < `${b.in}\0${b.name}` ? -1 : 1));
  return { params, body, responses: sortKeys(responses) };
}

/** The schema of a request body's or response's content: JSON's where it has one, else the first media type's. */
function contentShape(doc: Record<string, Json>, holder: Record<string, Json>, follow: boolean): Shape | null {
  const content = holder["content"];
  if (!isObject(content)) return null;
  const media = Object.keys(content).sort();
  const json = media.find((m) => /json/i.test(m)) ?? media[0];
  const entry = json === undefined ? undefined : content[json];
  return isObject(entry) ? shapeOf(doc, entry["schema"], 0, follow) : null;
}

/** The base paths its operations are served under: OpenAPI 3's `servers` (their URL's path), Swagger 2's `basePath`. */
export function openapiBasePaths(text: string): string[] {
  const l = load("", text);
  if (!("doc" in l)) return [];
  const out = new Set<string>();
  if (typeof l.doc["basePath"] === "string") out.add(l.doc["basePath"]);
  const servers = l.doc["servers"];
  if (Array.isArray(servers)) for (const s of servers) if (isObject(s) && typeof s["url"] === "string") out.add(s["url"].replace(/^[a-z]+:\/\/[^/]+/i, "") || "/");
  return [...out].sort();
}

/**
 * The public surface of an OpenAPI 3.x or Swagger 2 document: each operation (`GET /orders/{id}`, its parameters,
 * request body and responses part of its signature, `$ref`s within the document followed), each schema component
 * (`Order`) and each of its properties (`Order.status`).
 */
export function openapiSymbols(path: string, text: string, hash: HashText, files: RefFiles | null = null): { symbols: SymbolRecord[]; diagnostics: Diagnostic[] } {
  const loaded = load(path, text, { positions: true });
  if (!("doc" in loaded)) return { symbols: [], diagnostics: [loaded] };
  const doc = bundled(path, loaded.doc, files);
  const node = loaded.node ?? (() => null);
  const whole = rangeOf(1, 1, 1, 1);
  const entries: ContractEntry[] = [];
  const digest = shapeDigest(doc, hash);
  for (const [name, { op: read, keys }] of operationsOf(doc, false)) {
    const op = read();
    const raw = resolveRef(doc, `#/${keys.map((k) => k.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`);
    const params = op.params.map((p) => ({ name: p.name, kind: "positional" as const, optional: !p.required, default: null, type: `${p.in} ${p.shape?.ref ?? p.shape?.type ?? ""}`.trim() }));
    entries.push({
      name,
      qualified_name: name,
      kind: "operation",
      range: node(keys) ?? whole,
      signature: JSON.stringify({
        params: op.params.map((p) => ({ ...p, shape: digest(p.shape) })),
        body: op.body === null ? null : { required: op.body.required, shape: digest(op.body.shape) },
        responses: Object.fromEntries(Object.entries(op.responses).map(([code, r]) => [code, digest(r)])),
      }),
      body: JSON.stringify(raw ?? null),
      detail: { params, returns: Object.keys(op.responses).join(",") },
    });
    if (entries.length > MAX_ENTRIES) return { symbols: [], diagnostics: [diagnostic("file_too_large", "warning", path, `more than ${MAX_ENTRIES} operations and properties: not read`)] };
  }
  const swagger = typeof doc["swagger"] === "string";
  for (const [name, schema] of Object.entries(schemasOf(doc))) {
    const keys = swagger ? ["definitions", name] : ["components", "schemas", name];
    const shape = shapeOf(doc, schema, 0, false);
    entries.push({
      name,
      qualified_name: name,
      kind: "message",
      range: node(keys) ?? whole,
      signature: JSON.stringify(shape === null ? null : { ...shape, properties: Object.keys(shape.properties ?? {}), items: digest(shape.items), variants: shape.variants?.map(digest) ?? null }),
      body: JSON.stringify(schema),
    });
    for (const [prop, s] of Object.entries(shape?.properties ?? {})) {
      entries.push({
        name: prop,
        qualified_name: `${name}.${prop}`,
        kind: "field",
        range: node([...keys, "properties", prop]) ?? node(keys) ?? whole,
        signature: JSON.stringify({ shape: digest(s), required: shape?.required.includes(prop) ?? false }),
        body: JSON.stringify(isObject(schema) && isObject(schema["properties"]) ? (schema["properties"][prop] ?? null) : null),
        detail: { type: s.ref ?? s.type, modifiers: shape?.required.includes(prop) === true ? [] : ["optional"] },
      });
    }
    if (entries.length > MAX_ENTRIES) return { symbols: [], diagnostics: [diagnostic("file_too_large", "warning", path, `more than ${MAX_ENTRIES} operations and properties: not read`)] };
  }
  return { symbols: contractSymbols(entries, hash), diagnostics: [] };
}

/** One version of a document as compared: its text and symbols, and where it is with the files its `$ref`s reach. */
export interface OpenapiVersion {
  readonly text: string;
  readonly symbols: readonly SymbolRecord[];
  readonly path?: string;
  readonly files?: RefFiles | null;
}

/**
 * What changed between two versions of an OpenAPI document, by the rules of `docs/compatibility.md`: breaking for
 * clients are an operation or a response code removed, a parameter or request property added as (or made) required,
 * a type narrowed or changed, an enum value removed, a property removed from (or made optional in) a response. An
 * operation's verdict follows its schemas through their `$ref`s; a schema component's and its properties' take
 * the stricter reading of both directions (a component may be sent and received).
 */
export function compareOpenapi(before: OpenapiVersion | null, after: OpenapiVersion | null): SymbolChange[] {
  const docOf = (v: OpenapiVersion | null): Record<string, Json> | null => {
    if (v === null) return null;
    const l = load("", v.text);
    return "doc" in l ? bundled(v.path ?? "", l.doc, v.files ?? null) : null;
  };
  const [bDoc, aDoc] = [docOf(before), docOf(after)];
  const bOps = bDoc === null ? new Map() : operationsOf(bDoc);
  const aOps = aDoc === null ? new Map() : operationsOf(aDoc);
  const bSyms = new Map((before?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const aSyms = new Map((after?.symbols ?? []).map((s) => [s.qualified_name, s]));
  const bSchemas = bDoc === null ? {} : schemasOf(bDoc);
  const aSchemas = aDoc === null ? {} : schemasOf(aDoc);
  const out: SymbolChange[] = [];
  for (const name of new Set([...bSyms.keys(), ...aSyms.keys()])) {
    const b = bSyms.get(name);
    const a = aSyms.get(name);
    const reasons: ChangeReason[] = [];
    const kind = (a ?? b)?.kind ?? "operation";
    if (b !== undefined && a === undefined) {
      reasons.push(
        kind === "operation"
          ? reason("OPERATION_REMOVED", "breaking", `${name} was removed`)
          : kind === "message"
            ? reason("SCHEMA_REMOVED", "breaking", `schema ${name} was removed`)
            : reason("PROPERTY_REMOVED", "breaking", `property ${name} was removed`),
      );
    } else if (b === undefined && a !== undefined) {
      const requiredNow = kind === "field" && !a.detail.modifiers.includes("optional");
      reasons.push(
        kind === "operation"
          ? reason("OPERATION_ADDED", "compatible", `${name} was added`)
          : kind === "message"
            ? reason("SCHEMA_ADDED", "compatible", `schema ${name} was added`)
            : requiredNow
              ? reason("PROPERTY_ADDED_REQUIRED", "breaking", `required property ${name} was added: a client that sends this schema must now set it`)
              : reason("PROPERTY_ADDED", "compatible", `optional property ${name} was added`),
      );
    } else if (b !== undefined && a !== undefined && b.signature_hash !== a.signature_hash) {
      if (kind === "operation" && bDoc !== null && aDoc !== null) operationReasons(bOps.get(name)?.op(), aOps.get(name)?.op(), reasons);
      else if (kind === "message") shapeReasons(shapeOf(bDoc ?? {}, bSchemas[name]), shapeOf(aDoc ?? {}, aSchemas[name]), "both", name, reasons, false);
      else if (kind === "field") {
        const [parent, prop] = [name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)];
        const bParent = shapeOf(bDoc ?? {}, bSchemas[parent]);
        const aParent = shapeOf(aDoc ?? {}, aSchemas[parent]);
        shapeReasons(bParent?.properties?.[prop] ?? null, aParent?.properties?.[prop] ?? null, "both", name, reasons, true);
        requiredReasons(bParent, aParent, prop, "both", name, reasons);
      }
      if (reasons.length === 0) reasons.push(reason("CHANGED_COMPATIBLY", "compatible", "changed in a way no client of it depends on"));
    }
    const change = b === undefined ? "added" : a === undefined ? "removed" : b.signature_hash !== a.signature_hash ? "signature_changed" : b.body_hash !== a.body_hash ? "body_changed" : null;
    if (change === null) continue;
    const compatibility = reasons.some((r) => r.verdict === "breaking") ? "breaking" : reasons.length > 0 ? "compatible" : "internal";
    out.push({ qualified_name: name, kind, change, renamed_from: null, exported: true, compatibility, reasons: dedupe(reasons) });
  }
  return out.sort((x, y) => (x.qualified_name < y.qualified_name ? -1 : x.qualified_name > y.qualified_name ? 1 : 0));
}

function dedupe(reasons: readonly ChangeReason[]): ChangeReason[] {
  const seen = new Set<string>();
  return reasons.filter((r) => {
    const k = `${r.code}\0${r.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function operationReasons(b: Operation | undefined, a: Operation | undefined, out: ChangeReason[]): void {
  if (b === undefined || a === undefined) return;
  const key = (p: Operation["params"][number]) => `${p.in} ${p.name}`;
  const aParams = new Map(a.params.map((p) => [key(p), p]));
  const bParams = new Map(b.params.map((p) => [key(p), p]));
  for (const [k, p] of aParams) {
    const was = bParams.get(k);
    if (was === undefined)
      out.push(
        p.required
          ? reason("PARAMETER_ADDED_REQUIRED", "breaking", `required ${p.in} parameter ${p.name} was added`)
          : reason("PARAMETER_ADDED_OPTIONAL", "compatible", `optional ${p.in} parameter ${p.name} was added`),
      );
    else {
      if (!was.required && p.required) out.push(reason("PARAMETER_BECAME_REQUIRED", "breaking", `${p.in} parameter ${p.name} became required`));
      shapeReasons(was.shape, p.shape, "request", `${p.in} parameter ${p.name}`, out, true);
    }
  }
  for (const [k, p] of bParams)
    if (!aParams.has(k)) out.push(reason("PARAMETER_REMOVED", "compatible", `${p.in} parameter ${p.name} was removed (a client that sends it is not refused by the document)`));
  if (b.body === null && a.body !== null && a.body.required) out.push(reason("REQUEST_BODY_ADDED_REQUIRED", "breaking", "a required request body was added"));
  if (b.body !== null && a.body !== null) {
    if (!b.body.required && a.body.required) out.push(reason("REQUEST_BODY_BECAME_REQUIRED", "breaking", "the request body became required"));
    shapeReasons(b.body.shape, a.body.shape, "request", "request body", out, true);
  }
  for (const code of Object.keys(b.responses)) {
    if (!(code in a.responses)) out.push(reason("RESPONSE_REMOVED", "breaking", `response ${code} was removed`));
    else shapeReasons(b.responses[code] ?? null, a.responses[code] ?? null, "response", `response ${code}`, out, true);
  }
  for (const code of Object.keys(a.responses)) if (!(code in b.responses)) out.push(reason("RESPONSE_ADDED", "compatible", `response ${code} was added`));
}

type Direction = "request" | "response" | "both";

/** The reasons a schema's change breaks a client that sends it (request), reads it (response), or either (both). */
function shapeReasons(b: Shape | null, a: Shape | null, dir: Direction, at: string, out: ChangeReason[], deep: boolean, depth = 0): void {
  if (b === null || a === null || depth > MAX_DEPTH) return;
  if (b.type !== a.type && b.type !== null && a.type !== null) {
    const widened = (dir === "request" && b.type === "integer" && a.type === "number") || (dir === "response" && b.type === "number" && a.type === "integer");
    out.push(widened ? reason("TYPE_WIDENED", "compatible", `${at}: type ${b.type} became ${a.type}`) : reason("TYPE_CHANGED", "breaking", `${at}: type ${b.type} became ${a.type}`));
  }
  if (b.format !== a.format && a.format !== null) out.push(reason("FORMAT_CHANGED", dir === "response" ? "compatible" : "breaking", `${at}: format ${b.format ?? "(none)"} became ${a.format}`));
  if (b.nullable && !a.nullable && dir !== "response") out.push(reason("NO_LONGER_NULLABLE", "breaking", `${at}: no longer nullable`));
  if (!b.nullable && a.nullable && dir !== "request") out.push(reason("BECAME_NULLABLE", "breaking", `${at}: may now be null`));
  if (b.enum !== null && a.enum !== null) {
    const gone = b.enum.filter((v) => !a.enum?.includes(v));
    const added = a.enum.filter((v) => !b.enum?.includes(v));
    if (gone.length > 0) out.push(reason("ENUM_VALUE_REMOVED", "breaking", `${at}: ${gone.length} enum value${gone.length === 1 ? "" : "s"} removed`));
    if (added.length > 0)
      out.push(
        reason(
          "ENUM_VALUE_ADDED",
          "compatible",
          `${at}: ${added.length} enum value${added.length === 1 ? "" : "s"} added (a client that switches over them may not know ${added.length === 1 ? "it" : "them"})`,
        ),
      );
  } else if (b.enum === null && a.enum !== null && dir !== "response") out.push(reason("ENUM_ADDED", "breaking", `${at}: now limited to ${a.enum.length} values`));
  if (!deep) return;
  const bp = b.properties ?? {};
  const ap = a.properties ?? {};
  for (const prop of Object.keys(bp)) {
    if (!(prop in ap) && a.properties !== null) {
      out.push(
        dir === "request"
          ? reason("REQUEST_PROPERTY_REMOVED", "compatible", `${at}: property ${prop} removed`)
          : reason(dir === "response" ? "RESPONSE_PROPERTY_REMOVED" : "PROPERTY_REMOVED", "breaking", `${at}: property ${prop} removed`),
      );
    } else if (prop in ap) shapeReasons(bp[prop] ?? null, ap[prop] ?? null, dir, `${at}.${prop}`, out, true, depth + 1);
  }
  for (const prop of Object.keys(ap)) {
    if (prop in bp) continue;
    const required = a.required.includes(prop);
    if (required && dir !== "response") out.push(reason(dir === "request" ? "REQUEST_PROPERTY_ADDED_REQUIRED" : "PROPERTY_ADDED_REQUIRED", "breaking", `${at}: required property ${prop} added`));
    else out.push(reason("PROPERTY_ADDED", "compatible", `${at}: property ${prop} added`));
  }
  for (const prop of Object.keys(ap)) if (prop in bp) requiredReasons(b, a, prop, dir, `${at}.${prop}`, out);
  // A name made required without a declared property: a client that sends the schema must now send it all the same.
  for (const name of a.required) {
    if (name in ap || b.required.includes(name) || dir === "response") continue;
    out.push(reason(dir === "request" ? "REQUEST_PROPERTY_ADDED_REQUIRED" : "PROPERTY_ADDED_REQUIRED", "breaking", `${at}: required property ${name} added`));
  }
  shapeReasons(b.items, a.items, dir, `${at}[]`, out, true, depth + 1);
}

function requiredReasons(b: Shape | null, a: Shape | null, prop: string, dir: Direction, at: string, out: ChangeReason[]): void {
  if (b === null || a === null) return;
  const was = b.required.includes(prop);
  const now = a.required.includes(prop);
  if (!was && now && dir !== "response") out.push(reason(dir === "request" ? "REQUEST_PROPERTY_BECAME_REQUIRED" : "PROPERTY_BECAME_REQUIRED", "breaking", `${at} became required`));
  if (was && !now && dir !== "request") out.push(reason(dir === "response" ? "RESPONSE_PROPERTY_BECAME_OPTIONAL" : "PROPERTY_BECAME_OPTIONAL", "breaking", `${at} is no longer always present`));
}
