import type { DocumentNode, SelectionSetNode } from "graphql";
import { esFromStatements, pythonFromImports } from "../symbols/statement-scan.js";
import { graphqlLib as graphql } from "./parsers.js";

/**
 * The package keys under which a contract's changes and its consumers' uses meet (`docs/coordination.md`): every
 * GraphQL schema of a team is one namespace of `Type.field` names, every HTTP API one namespace of `METHOD /path`
 * names. A use names what it uses exactly as a change's public names do.
 */
export const GRAPHQL_KEY = "graphql:schema";
export const HTTP_KEY = "openapi:http";

/** What a consumer's file uses of a contract: a name in a contract namespace (`module` is the package key). */
export interface ContractUse {
  readonly name: string;
  readonly module: string;
}

/** At most this many uses are read from one file; by default, files of at most this many bytes (a hook's budget). */
const MAX_USES = 20_000;
const MAX_BYTES = 1024 * 1024;

const CODE = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;
const PYTHON = /\.pyi?$/;
const GRAPHQL_DOCUMENT = /\.(graphql|gql)$/;

/**
 * The contract uses of a file: the fields its GraphQL documents select (a `.graphql` operation file, or `gql` /
 * `graphql` tagged templates in code), and the HTTP operations its code calls with a literal or template URL
 * (`fetch`, `axios`, `ky`, `got`, `requests`, `httpx` and their like). A string that only looks like a path, not given
 * to such a call, is not a use. Sorted, de-duplicated, bounded.
 */
export function contractUses(repoPath: string, text: string, maxBytes: number = MAX_BYTES): ContractUse[] {
  if (text.length > maxBytes) return [];
  const out = new Set<string>();
  const add = (module: string, name: string) => {
    if (out.size < MAX_USES) out.add(`${module}\0${name}`);
  };
  for (const doc of graphqlDocuments(repoPath, text)) for (const n of graphqlSelections(doc)) add(GRAPHQL_KEY, n);
  if (CODE.test(repoPath) || PYTHON.test(repoPath)) for (const n of httpCalls(text)) add(HTTP_KEY, n);
  if (CODE.test(repoPath)) for (const u of protobufImports(text)) add(u.module, u.name);
  if (PYTHON.test(repoPath)) for (const u of protobufPythonImports(text)) add(u.module, u.name);
  if (CODE.test(repoPath)) for (const n of generatedClientCalls(text)) add(HTTP_KEY, n);
  if (PYTHON.test(repoPath)) for (const n of generatedPythonClientCalls(text)) add(HTTP_KEY, n);
  return [...out].sort().map((k) => {
    const [module, name] = k.split("\0") as [string, string];
    return { name, module };
  });
}

/** The GraphQL documents of a file: a `.graphql` file whole, the `gql`/`graphql` tagged templates of code (interpolations left out). */
export function graphqlDocuments(repoPath: string, text: string): string[] {
  if (GRAPHQL_DOCUMENT.test(repoPath)) return [text];
  if (!CODE.test(repoPath)) return [];
  return [...text.matchAll(/\b(?:gql|graphql)\s*(?:\(\s*)?`([^`]*)`/g)].map((m) => (m[1] ?? "").replace(/\$\{[^}]*\}/g, " "));
}

/**
 * The fields a GraphQL document selects, as the names a schema's changes carry: `Query.user` and `Query.user.email`
 * by their path from the operation's root, `User.email` where a fragment or an inline fragment names the type. A
 * document that does not parse gives nothing.
 */
export function graphqlSelections(text: string): string[] {
  const { Kind, parse } = graphql();
  let doc: DocumentNode;
  try {
    doc = parse(text, { noLocation: true, maxTokens: 50_000 });
  } catch {
    return [];
  }
  const out = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, at: string, depth: number): void => {
    if (set === undefined || depth > 12) return;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith("__")) continue;
        const here = `${at}.${s.name.value}`;
        out.add(here);
        walk(s.selectionSet, here, depth + 1);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, s.typeCondition?.name.value ?? at, depth + 1);
    }
  };
  for (const d of doc.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) walk(d.selectionSet, d.operation === "query" ? "Query" : d.operation === "mutation" ? "Mutation" : "Subscription", 0);
    else if (d.kind === Kind.FRAGMENT_DEFINITION) walk(d.selectionSet, d.typeCondition.name.value, 0);
  }
  return [...out];
}

/**
 * What code imports from protobuf-generated modules (`*_pb`, `*_grpc_pb`, `*_connect`, protoc-gen-es and grpc-js's
 * names): each imported name (`*` for a namespace import) under every package the module's folder may stand for,
 * since generators lay a package `acme.orders.v1` out as `.../acme/orders/v1/` below a root the code does not say:
 * `protobuf:v1`, `protobuf:orders.v1`, `protobuf:acme.orders.v1`, ... A change's package key is exact, so only the
 * right one meets it.
 */
export function protobufImports(text: string): ContractUse[] {
  const out: ContractUse[] = [];
  for (const st of esFromStatements(text)) {
    const generated = st.keyword === "import" ? /^([^"']+?_(?:pb|grpc_pb|connect))(?:\.[cm]?js)?$/.exec(st.specifier) : null;
    if (generated === null) continue;
    const clause = st.clause;
    const dirs = (generated[1] ?? "")
      .split("/")
      .slice(0, -1)
      .filter((s) => s !== "." && s !== ".." && s !== "" && /^[A-Za-z_][\w-]*$/.test(s));
    const packages = dirs.map((_, i) => dirs.slice(i).join(".")).filter((p) => p !== "");
    const names = /\*\s*as\s+\w+/.test(clause)
      ? ["*"]
      : [...(/\{([^}]*)\}/.exec(clause)?.[1] ?? "").split(",")]
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, "")
                .split(/\s+as\s+/)[0]
                ?.trim() ?? "",
          )
          .filter((n) => n !== "");
    for (const p of packages) for (const n of names) out.push({ name: n, module: `protobuf:${p}` });
  }
  return out;
}

/**
 * The names read through each dotted name of a Python text (`a.b_pb2.Order` and `x.y` give `a` → `b_pb2`,
 * `a.b_pb2` → `Order`, `x` → `y`), chains read up to 16 names deep, in one pass.
 */
function dottedReads(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of text.matchAll(/(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+/g)) {
    const parts = m[0].split(".", 16);
    for (let i = 1; i < parts.length; i++) {
      const alias = parts.slice(0, i).join(".");
      const names = out.get(alias) ?? new Set<string>();
      names.add(parts[i] as string);
      out.set(alias, names);
    }
  }
  return out;
}

/**
 * What Python code uses of protoc's generated modules (`orders_pb2`, `orders_pb2_grpc`), as {@link protobufImports}
 * says for TypeScript: each name imported from one (`from acme.orders.v1.orders_pb2 import Order`), or each name read
 * from one imported whole (`from acme.orders.v1 import orders_pb2` then `orders_pb2.Order`; `*` where none is read),
 * under every package its dotted path may stand for. A gRPC stub or servicer (`OrderServiceStub`,
 * `OrderServiceServicer`, `add_OrderServiceServicer_to_server`) stands for its service.
 */
export function protobufPythonImports(text: string): ContractUse[] {
  const out: ContractUse[] = [];
  const generated = /_pb2(?:_grpc)?$/;
  const packagesOf = (parts: readonly string[]): string[] => {
    const dirs = parts.filter((s) => /^[A-Za-z_]\w*$/.test(s));
    return dirs.map((_, i) => dirs.slice(i).join(".")).filter((p) => p !== "");
  };
  const serviceOf = (name: string): string => /^add_(\w+)Servicer_to_server$/.exec(name)?.[1] ?? name.replace(/(?:Stub|Servicer)$/, "");
  // What is read through each dotted name, in one pass over the text, asked for only where an import needs it.
  let reads: Map<string, Set<string>> | null = null;
  const readFrom = (alias: string): string[] => {
    reads ??= dottedReads(text);
    const names = [...(reads.get(alias) ?? [])].map(serviceOf);
    return names.length === 0 ? ["*"] : [...new Set(names)];
  };
  const push = (packages: readonly string[], names: readonly string[]) => {
    for (const p of packages) for (const n of names) if (n !== "") out.push({ name: n, module: `protobuf:${p}` });
  };
  for (const f of pythonFromImports(text)) {
    const module = f.module.replace(/^\.+/, "");
    const imported = f.names
      .replace(/[()\\]/g, " ")
      .split(",")
      .map((x) => x.trim().split(/\s+as\s+/))
      .filter((x) => /^[A-Za-z_]\w*$/.test(x[0] ?? ""));
    const parts = module === "" ? [] : module.split(".");
    if (generated.test(parts[parts.length - 1] ?? ""))
      push(
        packagesOf(parts.slice(0, -1)),
        imported.map((x) => serviceOf(x[0] ?? "")),
      );
    else for (const x of imported) if (generated.test(x[0] ?? "")) push(packagesOf(parts), readFrom(x[1] ?? x[0] ?? ""));
  }
  for (const m of text.matchAll(/^[ \t]*import\s+([\w.]+_pb2(?:_grpc)?)(?:\s+as\s+(\w+))?\s*$/gm)) {
    const parts = (m[1] ?? "").split(".");
    push(packagesOf(parts.slice(0, -1)), readFrom(m[2] ?? m[1] ?? ""));
  }
  return out;
}

/**
 * A module a generated OpenAPI client is imported from, by its specifier: a `generated`, `gen`, `codegen`, `openapi`,
 * `sdk` or `client(s)` folder, a `*.gen` module, a `*-client` / `*-sdk` / `*-api` package. Not GraphQL's or RPC's own
 * clients, whose names are no operation's.
 */
const GENERATED_CLIENT = /(?:^|\/)(?:generated|__generated__|gen|codegen|openapi|swagger|sdk|api-?client|clients?)(?:\/|$)|\.gen$|[-_](?:client|sdk|api)$/i;
const NOT_OPENAPI_CLIENT = /^(?:@apollo\/|@urql\/|urql|@tanstack\/|@trpc\/|graphql|@connectrpc\/|@grpc\/|@bufbuild\/)/;

/**
 * The operations code calls through a generated OpenAPI client, as `op:<operationId>`: a function imported from one
 * and called (`getOrderById(...)`, orval's and hey-api's; `useGetOrderById(...)` stands for `getOrderById`), a method
 * called on a class or namespace imported from one (`OrdersService.getOrderById(...)`), on an instance made of it
 * (`new OrdersApi(cfg)`, a parameter or field typed with it: openapi-generator's) or on `new OrdersApi(...)` itself.
 */
export function generatedClientCalls(text: string): string[] {
  const out = new Set<string>();
  const functions = new Map<string, string>();
  const receivers = new Set<string>();
  for (const st of esFromStatements(text)) {
    const spec = st.specifier.replace(/\.[cm]?[jt]sx?$/, "");
    if (st.keyword !== "import" || spec === "" || !GENERATED_CLIENT.test(spec) || NOT_OPENAPI_CLIENT.test(spec)) continue;
    const clause = st.clause;
    const def = /^\s*([\w$]+)\s*(?:,|$)/.exec(clause)?.[1];
    if (def !== undefined) receivers.add(def);
    const ns = /\*\s*as\s+([\w$]+)/.exec(clause)?.[1];
    if (ns !== undefined) receivers.add(ns);
    for (const n of (/\{([^}]*)\}/.exec(clause)?.[1] ?? "").split(",")) {
      const [imported, local] = n
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/);
      if (imported === undefined || !/^[\w$]+$/.test(imported)) continue;
      const name = local?.trim() ?? imported;
      if (/^[A-Z]/.test(imported)) receivers.add(name);
      else functions.set(name, imported);
    }
  }
  if (functions.size === 0 && receivers.size === 0) return [];
  // Each pattern below is one pass over the text for all the names it looks for, not one a name.
  const called = new Set<string>();
  if (functions.size > 0) for (const m of text.matchAll(/(?<![\w$.])([\w$]+)\s*(?:<[^<>()]{0,400}>)?\s*\(/g)) called.add(m[1] ?? "");
  for (const [local, imported] of functions) {
    if (!called.has(local)) continue;
    const hook = /^use([A-Z]\w*)$/.exec(imported)?.[1];
    out.add(`op:${hook === undefined ? imported : `${hook[0]?.toLowerCase() ?? ""}${hook.slice(1)}`}`);
  }
  const imported = new Set(receivers);
  if (imported.size > 0) {
    for (const m of text.matchAll(/\b(?:const|let|var)\s+([\w$]+)\s*(?::[^=;\n]{0,400})?=\s*new\s+([\w$]+)(?![\w$])/g)) if (imported.has(m[2] ?? "")) receivers.add(m[1] ?? "");
    for (const m of text.matchAll(/([\w$]+)\??\s*:\s*([\w$]+)(?![\w$.])/g)) if (imported.has(m[2] ?? "")) receivers.add(m[1] ?? "");
    for (const m of text.matchAll(/\bnew\s+([\w$]+)\s*\([^()]*\)\s*\.\s*([\w$]+)\s*\(/g)) if (imported.has(m[1] ?? "")) out.add(`op:${m[2] ?? ""}`);
  }
  for (const m of text.matchAll(/(?<![\w$.])(?:this\s*\.\s*)?([\w$]+)\s*\.\s*([a-z_$][\w$]*)\s*(?:<[^>()]*>)?\s*\(/g)) if (receivers.has(m[1] ?? "")) out.add(`op:${m[2] ?? ""}`);
  return [...out].sort();
}

/** A Python module a generated OpenAPI client is imported from: openapi-generator's `openapi_client`, a `*_client` or `*_sdk` package, a `generated`/`gen`/`sdk` one. */
const GENERATED_PY_CLIENT = /(?:^|\.)(?:openapi_client|\w+_(?:client|sdk)|generated|gen|sdk|api_client)(?:\.|$)/;

/**
 * What Python code calls through a generated OpenAPI client, as {@link generatedClientCalls} says for TypeScript:
 * `op:<method>` for a method called on an API class imported from one or an instance made of it
 * (`OrdersApi(client).get_order_by_id(...)`, `api = OrdersApi(client)`), `op:<function>` for a function imported and
 * called.
 */
export function generatedPythonClientCalls(text: string): string[] {
  const out = new Set<string>();
  const receivers = new Set<string>();
  const functions = new Map<string, string>();
  for (const f of pythonFromImports(text)) {
    if (!GENERATED_PY_CLIENT.test(f.module)) continue;
    for (const x of f.names.replace(/[()\\]/g, " ").split(",")) {
      const [imported, local] = x.trim().split(/\s+as\s+/);
      if (imported === undefined || !/^[A-Za-z_]\w*$/.test(imported)) continue;
      if (/^[A-Z]/.test(imported)) receivers.add(local ?? imported);
      else functions.set(local ?? imported, imported);
    }
  }
  if (receivers.size === 0 && functions.size === 0) return [];
  // One pass over the text a pattern, for all the names it looks for.
  if (functions.size > 0) {
    const called = new Set<string>();
    for (const m of text.matchAll(/(?<![\w.])(\w+)\s*\(/g)) called.add(m[1] ?? "");
    for (const [local, imported] of functions) if (called.has(local)) out.add(`op:${imported}`);
  }
  const imported = new Set(receivers);
  if (imported.size > 0) {
    for (const m of text.matchAll(/(?:^|[\s;(])(?:self\.)?(\w+)\s*(?::[^=\n]+)?=\s*(\w+)\s*\(/gm)) if (imported.has(m[2] ?? "")) receivers.add(m[1] ?? "");
    for (const m of text.matchAll(/(?<![\w.])(\w+)\s*\([^()]*\)\s*\.\s*([a-z_]\w*)\s*\(/g)) if (imported.has(m[1] ?? "")) out.add(`op:${m[2] ?? ""}`);
  }
  for (const m of text.matchAll(/(?<![\w.])(?:self\s*\.\s*)?(\w+)\s*\.\s*([a-z_]\w*)\s*\(/g)) if (receivers.has(m[1] ?? "")) out.add(`op:${m[2] ?? ""}`);
  return [...out].sort();
}

const METHODS = "get|post|put|patch|delete|head|options";

/**
 * The HTTP operations code calls with a URL written in it: `METHOD /path` with each interpolated segment as `{}`
 * (and, for a literal number or id segment, `{}` too, as a path template's parameter would be), scheme and host
 * dropped, query and fragment dropped.
 */
export function httpCalls(text: string): string[] {
  const out = new Set<string>();
  // (named groups: the quote that opens the URL closes it, whatever groups the surrounding pattern has)
  const url = String.raw`f?(?<q>["'\x60])(?<u>(?:https?:\/\/[^\s"'\x60/]+)?\/[^\s"'\x60]*)\k<q>`;
  // client.get("/x"), axios.post(`/x/${id}`), requests.delete(f"/x/{id}"), ky.patch('/x')
  for (const m of text.matchAll(new RegExp(String.raw`\.(${METHODS})\s*\(\s*${url}`, "gi"))) addCall(out, m[1] ?? "get", m.groups?.["u"] ?? "");
  // fetch("/x", { method: "POST" }): the method within the call's first lines, else GET
  for (const m of text.matchAll(new RegExp(String.raw`\bfetch\s*\(\s*${url}`, "g"))) {
    const rest = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 300);
    const close = rest.indexOf(")");
    const method = /\bmethod\s*:\s*["'](\w+)["']/.exec(close < 0 ? rest : rest.slice(0, close))?.[1] ?? "get";
    addCall(out, method, m.groups?.["u"] ?? "");
  }
  // axios({ url: "/x", method: "post" }) and request({ method, url }) objects
  for (const m of text.matchAll(new RegExp(String.raw`\burl\s*:\s*${url}`, "g"))) {
    // The method of the same object literal: between the brace that opens it and the one that closes it.
    const at = m.index ?? 0;
    // (searched within 300 characters either side: an unbounded search from every `url:` costs the text's square)
    const from = Math.max(0, at - 300);
    const before = text.slice(from, at).lastIndexOf("{");
    const after = text.slice(at + m[0].length, at + m[0].length + 300).indexOf("}");
    const open = before < 0 ? -1 : from + before;
    const close = after < 0 ? -1 : at + m[0].length + after;
    const around = open < 0 || close < 0 ? "" : text.slice(open, close);
    const method = /\bmethod\s*:\s*["'](\w+)["']/.exec(around)?.[1];
    if (method !== undefined) addCall(out, method, m.groups?.["u"] ?? "");
  }
  return [...out];
}

function addCall(out: Set<string>, method: string, raw: string): void {
  const m = method.toUpperCase();
  if (!new RegExp(`^(${METHODS})$`, "i").test(m)) return;
  const path = normalizeCallPath(raw);
  if (path === null) return;
  const generic = path.replace(/\/(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?=\/|$)/gi, "/{}");
  // A service mounts its routers under a prefix it often declares elsewhere (`app.use("/api/v1", router)` in another
  // file, a gateway's rewrite): the call is also named without a leading `/api`, `/vN` or `/api/vN`.
  out.add(`${m} ${path}`);
  out.add(`${m} ${generic}`);
  const bare = generic.replace(/^\/api(?=\/|$)/i, "").replace(/^\/v\d+(?=\/)/i, "");
  if (bare !== generic && bare.startsWith("/") && bare.length > 1) out.add(`${m} ${bare}`);
}

/** A URL as code writes it, as a path with `{}` for what is filled in; null where it is no path. */
export function normalizeCallPath(raw: string): string | null {
  let p = raw.replace(/^https?:\/\/[^/]+/i, "");
  p = p.replace(/\$\{[^}]*\}/g, "{}").replace(/\{[^}]*\}/g, "{}");
  p = p.replace(/[?#].*$/, "");
  if (!p.startsWith("/") || p.length > 512) return null;
  if (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p;
}

/** An OpenAPI path template as a call would name it: each `{param}` as `{}`, under each of the servers' base paths. */
export function operationCallNames(method: string, template: string, basePaths: readonly string[]): string[] {
  const path = template.replace(/\{[^}]*\}/g, "{}").replace(/(.)\/$/, "$1");
  const out = new Set<string>([`${method} ${path}`]);
  for (const b of basePaths) {
    const base = b.replace(/^https?:\/\/[^/]+/i, "").replace(/\/$/, "");
    if (base !== "" && base.startsWith("/")) out.add(`${method} ${base}${path}`);
  }
  return [...out].sort();
}
