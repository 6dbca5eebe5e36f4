import { reason } from "../symbols/change-reason.js";
import type { SymbolChange } from "../symbols/compare-symbols.js";
import { operationCallNames } from "./contract-uses.js";
import { lineIndex } from "./line-index.js";

/**
 * An HTTP route a server's code declares: `GET /orders/{id}` (each path parameter written `{name}`, whatever the
 * framework's own syntax), its line and handler. `ANY` stands for a route that answers every method (Express's
 * `all`, Django's `path`).
 */
export interface RouteDecl {
  readonly method: string;
  readonly path: string;
  readonly line: number;
  readonly handler: string | null;
}

/** At most this many routes are read from one file, of at most this many bytes. */
const MAX_ROUTES = 5000;
const MAX_BYTES = 1024 * 1024;

const CODE = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;
const PYTHON = /\.py$/;
const VERBS = "get|post|put|patch|delete|head|options";
/** Server frameworks whose import makes a file's `x.get("/path", handler)` a route, not a client's call. */
const JS_SERVERS = /(?:from\s+|require\s*\(\s*)["'](?:express|@koa\/router|koa-router|hono(?:\/[\w-]+)?|fastify|@nestjs\/common)["']/;
const PY_SERVERS = /^\s*(?:from|import)\s+(?:fastapi|flask|django\.urls|starlette)\b/m;
/** Receivers that are HTTP clients even in a server's file (a backend calling another service). */
const CLIENTS = /^(?:axios|ky|got|superagent|needle|request|http|https|fetch|\$http)$|client$/i;

/** Whether a file may declare routes: it imports a server framework this reader knows. Cheap: no parse. */
export function mayDeclareRoutes(repoPath: string, text: string): boolean {
  if (text.length > MAX_BYTES) return false;
  if (CODE.test(repoPath)) return JS_SERVERS.test(text);
  if (PYTHON.test(repoPath)) return PY_SERVERS.test(text);
  return false;
}

/**
 * The routes a file declares, read from its text (not run): Express, Koa, Hono and Fastify routers
 * (`app.get("/orders/:id", h)`, `router.route("/x").get(h).post(h)`, `fastify.route({ method, url })`), NestJS
 * controllers (`@Controller("orders")` with `@Get(":id")`), FastAPI and Flask decorators (with an `APIRouter` or
 * `Blueprint` prefix declared in the same file) and Django's `path()` patterns. A path built at run time is not read;
 * a router mounted under a prefix by another file (`app.use("/api", router)`) is read under the `prefixes` given. Sorted by name.
 */
export function routesIn(
  repoPath: string,
  text: string,
  options: {
    /** Where another file mounts this one's router (`externalMountPrefixes`): each route is served under each. */
    readonly prefixes?: readonly string[];
  } = {},
): RouteDecl[] {
  if (!mayDeclareRoutes(repoPath, text)) return [];
  const read = CODE.test(repoPath) ? jsRoutes(text) : pythonRoutes(repoPath, text);
  const prefixes = options.prefixes ?? [];
  const out =
    prefixes.length === 0
      ? read
      : read.flatMap((r) =>
          prefixes.flatMap((p) => {
            const path = routeTemplate(joinPaths(p, r.path));
            return path === null ? [] : [{ ...r, path }];
          }),
        );
  const seen = new Set<string>();
  return out
    .filter((r) => {
      const k = routeName(r);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, MAX_ROUTES)
    .sort((a, b) => (routeName(a) < routeName(b) ? -1 : routeName(a) > routeName(b) ? 1 : a.line - b.line));
}

/** A route's name, as an OpenAPI operation is named: `GET /orders/{id}`. */
export function routeName(r: RouteDecl): string {
  return `${r.method} ${r.path}`;
}

/**
 * What changed in the routes a file declares: a route gone is breaking for every client that calls it (a method or
 * a path changed is one gone and one added); one added is compatible. Kind `operation`, as an OpenAPI document's.
 */
export function compareRoutes(before: readonly RouteDecl[], after: readonly RouteDecl[]): SymbolChange[] {
  const b = new Map(before.map((r) => [routeName(r), r]));
  const a = new Map(after.map((r) => [routeName(r), r]));
  const out: SymbolChange[] = [];
  for (const [name, r] of b)
    if (!a.has(name))
      out.push({
        qualified_name: name,
        kind: "operation",
        change: "removed",
        renamed_from: null,
        exported: true,
        compatibility: "breaking",
        reasons: [reason("OPERATION_REMOVED", "breaking", `route ${name}${r.handler === null ? "" : ` (${r.handler})`} was removed`)],
      });
  for (const [name] of a)
    if (!b.has(name))
      out.push({
        qualified_name: name,
        kind: "operation",
        change: "added",
        renamed_from: null,
        exported: true,
        compatibility: "compatible",
        reasons: [reason("OPERATION_ADDED", "compatible", `route ${name} was added`)],
      });
  return out.sort((x, y) => (x.qualified_name < y.qualified_name ? -1 : x.qualified_name > y.qualified_name ? 1 : 0));
}

/** The names a client's call gives a route (`GET /orders/{}`); a route of any method, each method's. */
export function routeCallNames(name: string): string[] {
  const m = /^([A-Z]+) (\/.*)$/.exec(name);
  if (m === null) return [name];
  const [method, path] = [m[1] as string, m[2] as string];
  const methods = method === "ANY" ? VERBS.toUpperCase().split("|") : [method];
  return [...new Set(methods.flatMap((v) => operationCallNames(v, path, [])))].sort();
}

/** A framework's path (`/orders/:id`, `<int:id>`, `{id}`, `*`) as a template with `{name}` parameters; null if none. */
export function routeTemplate(raw: string): string | null {
  if (raw.length > 512 || /[\s`$]/.test(raw) || raw.includes("(")) return null;
  let p = raw.startsWith("/") ? raw : `/${raw}`;
  p = p
    .replace(/<(?:[a-z_]+:)?(\w+)>/g, "{$1}")
    .replace(/:(\w+)\??/g, "{$1}")
    .replace(/\/\*+(?=\/|$)/g, "/{}")
    .replace(/\/+/g, "/");
  if (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p;
}

export function joinPaths(prefix: string, path: string): string {
  const a = prefix.replace(/^\/+|\/+$/g, "");
  const b = path.replace(/^\/+/, "");
  return `/${[a, b].filter((s) => s !== "").join("/")}`;
}

/** A quoted string whose quote is capture group `n` (its text group `n + 1`): the quote that opens it closes it. */
const quoted = (n: number): string => `(["'\x60])([^"'\x60\n]*)\\${n}`;

/**
 * The prefix each router of a file is mounted under in that same file (`app.use("/v1", api)`,
 * `app.route("/v1", api)` in Hono, `app.include_router(router, prefix="/v1")`, `app.register_blueprint(bp,
 * url_prefix="/v1")`), through mounts of mounts (a few levels).
 */
function mountedPrefixes(mounts: ReadonlyArray<{ parent: string; prefix: string; child: string }>): Map<string, string> {
  const direct = new Map<string, { parent: string; prefix: string }>();
  for (const m of mounts) if (!direct.has(m.child) && m.child !== m.parent) direct.set(m.child, { parent: m.parent, prefix: m.prefix });
  const out = new Map<string, string>();
  for (const child of direct.keys()) {
    let prefix = "";
    let at: string | undefined = child;
    for (let i = 0; i < 5 && at !== undefined; i++) {
      const up = direct.get(at);
      if (up === undefined) break;
      prefix = joinPaths(up.prefix, prefix);
      at = up.parent;
    }
    out.set(child, prefix);
  }
  return out;
}

/** The prefix each router of a JavaScript or TypeScript file is mounted under in that file (`app.use("/v1", api)`). */
export function mountedPrefixesIn(text: string): Map<string, string> {
  const mounts = [...text.matchAll(new RegExp(String.raw`([\w$]+)\s*\.\s*(?:use|route)\s*\(\s*${quoted(2)}\s*,\s*([\w$]+)\s*\)`, "g"))].map((m) => ({
    parent: m[1] ?? "",
    prefix: m[3] ?? "",
    child: m[4] ?? "",
  }));
  return mountedPrefixes(mounts);
}

function jsRoutes(text: string): RouteDecl[] {
  const lineAt = lineIndex(text);
  const out: RouteDecl[] = [];
  const prefixes = mountedPrefixesIn(text);
  const add = (method: string, receiver: string, raw: string, at: number, handler: string | null) => {
    const path = routeTemplate(joinPaths(prefixes.get(receiver) ?? "", raw));
    if (path !== null && out.length < MAX_ROUTES) out.push({ method: method === "ALL" ? "ANY" : method, path, line: lineAt(at)[0], handler });
  };
  // app.get("/x", handler): a path, then a comma (a handler follows); not a client's call.
  for (const m of text.matchAll(new RegExp(String.raw`([\w$]+)\s*\.\s*(${VERBS}|all)\s*\(\s*${quoted(3)}\s*,\s*([\w$.]*)`, "g"))) {
    const receiver = m[1] ?? "";
    if (CLIENTS.test(receiver) || !(m[4] ?? "").startsWith("/")) continue;
    add((m[2] ?? "").toUpperCase(), receiver, m[4] ?? "", m.index ?? 0, handlerName(m[5]));
  }
  // router.route("/x").get(h).post(h): the methods chained on it, to the end of the statement.
  for (const m of text.matchAll(new RegExp(String.raw`([\w$]+)\s*\.\s*route\s*\(\s*${quoted(2)}\s*\)`, "g"))) {
    if (!(m[3] ?? "").startsWith("/")) continue;
    const from = (m.index ?? 0) + m[0].length;
    const end = text.slice(from, from + 2000).search(/;|\n\s*\n|\.\s*route\s*\(/);
    const chain = text.slice(from, end < 0 ? from + 2000 : from + end);
    for (const v of chain.matchAll(new RegExp(String.raw`\.\s*(${VERBS}|all)\s*\(`, "g"))) add((v[1] ?? "").toUpperCase(), m[1] ?? "", m[3] ?? "", m.index ?? 0, null);
  }
  // fastify.route({ method: "GET" | ["GET", "POST"], url: "/x", handler })
  for (const m of text.matchAll(/\.\s*route\s*\(\s*\{/g)) {
    const from = (m.index ?? 0) + m[0].length;
    const body = objectBody(text, from);
    const url = new RegExp(String.raw`\b(?:url|path)\s*:\s*${quoted(1)}`).exec(body)?.[2];
    const methods = /\bmethod\s*:\s*(\[[^\]]*\]|["'][A-Za-z]+["'])/.exec(body)?.[1];
    if (url === undefined || methods === undefined) continue;
    for (const v of methods.matchAll(/["']([A-Za-z]+)["']/g)) add((v[1] ?? "").toUpperCase(), "", url, m.index ?? 0, null);
  }
  // NestJS: @Controller("orders") then @Get(":id") on its methods.
  const controllers = [...text.matchAll(new RegExp(String.raw`@Controller\s*\(\s*(?:${quoted(1)}|\{[^}]*?\bpath\s*:\s*${quoted(3)}[^}]*\})?\s*\)`, "g"))].map((m) => ({
    at: m.index ?? 0,
    prefix: m[2] ?? m[4] ?? "",
  }));
  if (controllers.length > 0)
    for (const m of text.matchAll(
      new RegExp(
        String.raw`@(Get|Post|Put|Patch|Delete|Head|Options|All)\s*\(\s*(?:${quoted(2)})?\s*\)\s*(?:@[\w.]+\s*(?:\([^)]*\))?\s*)*(?:(?:public|private|protected|async|static)\s+)*([\w$]+)`,
        "g",
      ),
    )) {
      const at = m.index ?? 0;
      const controller = controllers.filter((c) => c.at < at).pop();
      if (controller === undefined) continue;
      add((m[1] ?? "").toUpperCase(), "", joinPaths(controller.prefix, m[3] ?? ""), at, m[4] ?? null);
    }
  return out;
}

/** The text of an object literal from just after its `{` to its matching `}` (strings not read; 2,000 characters at most). */
function objectBody(text: string, from: number): string {
  let depth = 1;
  for (let i = from; i < text.length && i < from + 2000; i++) {
    const ch = text[i];
    if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return text.slice(from, i);
  }
  return text.slice(from, from + 2000);
}

function handlerName(raw: string | undefined): string | null {
  if (raw === undefined || raw === "" || raw === "async" || raw === "function") return null;
  return raw;
}

function pythonRoutes(repoPath: string, text: string): RouteDecl[] {
  const lineAt = lineIndex(text);
  const out: RouteDecl[] = [];
  /** A Python string (a prefix letter allowed) whose quote is group `n`. */
  const str = (n: number): string => `[rRbBuU]?(["'])([^"'\\n]*)\\${n}`;
  // A router's or blueprint's prefix, declared in the same file: `api = APIRouter(prefix="/v1")`,
  // `bp = Blueprint("orders", __name__, url_prefix="/orders")`.
  const own = new Map<string, string>();
  const prefixArg = (args: string): string | undefined => new RegExp(String.raw`\b(?:prefix|url_prefix)\s*=\s*${str(1)}`).exec(args)?.[2];
  for (const m of text.matchAll(/^\s*(\w+)\s*=\s*(?:APIRouter|Blueprint)\s*\(([^)]*)\)/gm)) {
    const prefix = prefixArg(m[2] ?? "");
    if (prefix !== undefined) own.set(m[1] ?? "", prefix);
  }
  // Mounted in this file: app.include_router(router, prefix="/v1"), app.register_blueprint(bp, url_prefix="/v1").
  const mounts = [...text.matchAll(/^\s*(\w+)\.(?:include_router|register_blueprint)\s*\(\s*(\w+)([^)]*)\)/gm)].map((m) => ({
    parent: m[1] ?? "",
    prefix: prefixArg(m[3] ?? "") ?? "",
    child: m[2] ?? "",
  }));
  const mounted = mountedPrefixes(mounts);
  const prefixes = new Map([...own.keys(), ...mounted.keys()].map((k) => [k, joinPaths(mounted.get(k) ?? "", own.get(k) ?? "")]));
  const add = (method: string, receiver: string, raw: string, at: number) => {
    const path = routeTemplate(joinPaths(prefixes.get(receiver) ?? "", raw));
    if (path === null || out.length >= MAX_ROUTES) return;
    // The function the decorator is on: the next `def`.
    const handler = /^\s*(?:async\s+)?def\s+(\w+)/m.exec(text.slice(at, at + 2000))?.[1] ?? null;
    out.push({ method, path, line: lineAt(at)[0], handler });
  };
  // FastAPI and Flask 2: @app.get("/x"), @router.post("/x/{id}")
  for (const m of text.matchAll(new RegExp(String.raw`^\s*@(\w+)\.(${VERBS})\s*\(\s*${str(3)}`, "gm"))) add((m[2] ?? "").toUpperCase(), m[1] ?? "", m[4] ?? "", m.index ?? 0);
  // Flask: @app.route("/x", methods=["GET", "POST"]) (GET where none are given); FastAPI's api_route alike.
  for (const m of text.matchAll(new RegExp(String.raw`^\s*@(\w+)\.(?:route|api_route)\s*\(\s*${str(2)}([^)]*)\)`, "gm"))) {
    const listed = /\bmethods\s*=\s*[[(]([^\])]*)[\])]/.exec(m[4] ?? "")?.[1];
    const methods = listed === undefined ? ["GET"] : [...listed.matchAll(/["'](\w+)["']/g)].map((v) => (v[1] ?? "").toUpperCase());
    for (const method of methods) add(method, m[1] ?? "", m[3] ?? "", m.index ?? 0);
  }
  // Django: path("orders/<int:pk>/", view) in a URLconf; an include() is a prefix, not a route, and re_path is a regex.
  if (/(?:^|\/)urls\.py$/.test(repoPath) || /^\s*from\s+django\.urls\s+import/m.test(text))
    for (const m of text.matchAll(new RegExp(String.raw`\bpath\s*\(\s*${str(1)}\s*,\s*([\w.]+)`, "g"))) {
      if ((m[3] ?? "") === "include") continue;
      const path = routeTemplate(m[2] ?? "");
      if (path !== null && out.length < MAX_ROUTES) out.push({ method: "ANY", path, line: lineAt(m.index ?? 0)[0], handler: m[3] ?? null });
    }
  return out;
}
