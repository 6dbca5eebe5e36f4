import { beforeAll, describe, expect, it } from "vitest";
import { analyzeContract, contractKindOf } from "../../src/contracts/contract-files.js";
import { openapiRefFiles } from "../../src/contracts/openapi-contract.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";
import { expectCachedBeforeEqualsFresh } from "../helpers/contract-cache-check.js";

let hash: (s: string) => string;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
});

const BASE = `openapi: 3.0.3
info: { title: Orders, version: "1.0" }
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - { name: limit, in: query, schema: { type: integer } }
        - { name: status, in: query, schema: { $ref: "#/components/schemas/Status" } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: "#/components/schemas/Order" } }
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/NewOrder" }
      responses:
        "201": { description: created, content: { application/json: { schema: { $ref: "#/components/schemas/Order" } } } }
        "400": { description: bad }
  /orders/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    get:
      operationId: getOrder
      parameters:
        - { name: X-Trace, in: header, schema: { type: string } }
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Order" } } } }
        "404": { description: missing }
    delete:
      operationId: deleteOrder
      responses:
        "204": { description: gone }
components:
  schemas:
    Status: { type: string, enum: [open, paid, shipped] }
    Order:
      type: object
      required: [id, total]
      properties:
        id: { type: string }
        total: { type: number }
        status: { $ref: "#/components/schemas/Status" }
        note: { type: string, description: "free text" }
        items: { type: array, items: { $ref: "#/components/schemas/Line" } }
    Line:
      type: object
      required: [sku]
      properties:
        sku: { type: string }
        qty: { type: integer }
    NewOrder:
      type: object
      required: [items]
      properties:
        items: { type: array, items: { $ref: "#/components/schemas/Line" } }
        coupon: { type: string }
`;

type Row = readonly [name: string, find: string, replace: string, symbol: string, compatibility: "breaking" | "compatible" | "internal", code: string | null];

/** Each pair: an edit of BASE, the symbol expected to change, its verdict and a reason code it must carry. */
const ROWS: readonly Row[] = [
  ["operation removed", '    delete:\n      operationId: deleteOrder\n      responses:\n        "204": { description: gone }\n', "", "DELETE /orders/{id}", "breaking", "OPERATION_REMOVED"],
  ["operation added", "    delete:\n", '    patch:\n      responses:\n        "200": { description: ok }\n    delete:\n', "PATCH /orders/{id}", "compatible", "OPERATION_ADDED"],
  ["path renamed: the old operations removed", "  /orders/{id}:", "  /orders/{orderId}:", "GET /orders/{id}", "breaking", "OPERATION_REMOVED"],
  ["response code removed", '        "404": { description: missing }\n', "", "GET /orders/{id}", "breaking", "RESPONSE_REMOVED"],
  [
    "response code added",
    '        "404": { description: missing }\n',
    '        "404": { description: missing }\n        "410": { description: gone }\n',
    "GET /orders/{id}",
    "compatible",
    "RESPONSE_ADDED",
  ],
  [
    "required query parameter added",
    "        - { name: limit, in: query, schema: { type: integer } }",
    "        - { name: limit, in: query, schema: { type: integer } }\n        - { name: tenant, in: query, required: true, schema: { type: string } }",
    "GET /orders",
    "breaking",
    "PARAMETER_ADDED_REQUIRED",
  ],
  [
    "optional query parameter added",
    "        - { name: limit, in: query, schema: { type: integer } }",
    "        - { name: limit, in: query, schema: { type: integer } }\n        - { name: page, in: query, schema: { type: integer } }",
    "GET /orders",
    "compatible",
    "PARAMETER_ADDED_OPTIONAL",
  ],
  [
    "required header added",
    "        - { name: X-Trace, in: header, schema: { type: string } }",
    "        - { name: X-Trace, in: header, schema: { type: string } }\n        - { name: X-Tenant, in: header, required: true, schema: { type: string } }",
    "GET /orders/{id}",
    "breaking",
    "PARAMETER_ADDED_REQUIRED",
  ],
  ["parameter made required", "{ name: X-Trace, in: header, schema", "{ name: X-Trace, in: header, required: true, schema", "GET /orders/{id}", "breaking", "PARAMETER_BECAME_REQUIRED"],
  ["parameter removed", "        - { name: X-Trace, in: header, schema: { type: string } }\n", "", "GET /orders/{id}", "compatible", "PARAMETER_REMOVED"],
  [
    "parameter type narrowed (string to integer)",
    "in: path, required: true, schema: { type: string }",
    "in: path, required: true, schema: { type: integer }",
    "GET /orders/{id}",
    "breaking",
    "TYPE_CHANGED",
  ],
  [
    "parameter type widened (integer to number)",
    "{ name: limit, in: query, schema: { type: integer } }",
    "{ name: limit, in: query, schema: { type: number } }",
    "GET /orders",
    "compatible",
    "TYPE_WIDENED",
  ],
  [
    "parameter format added (narrowed)",
    "in: path, required: true, schema: { type: string }",
    "in: path, required: true, schema: { type: string, format: uuid }",
    "GET /orders/{id}",
    "breaking",
    "FORMAT_CHANGED",
  ],
  ["enum value removed ($ref'd, in a parameter)", "enum: [open, paid, shipped]", "enum: [open, paid]", "GET /orders", "breaking", "ENUM_VALUE_REMOVED"],
  ["enum value removed: the schema itself", "enum: [open, paid, shipped]", "enum: [open, paid]", "Status", "breaking", "ENUM_VALUE_REMOVED"],
  ["enum value added", "enum: [open, paid, shipped]", "enum: [open, paid, shipped, refunded]", "Status", "compatible", "ENUM_VALUE_ADDED"],
  ["request property added as required ($ref'd body)", "      required: [items]\n", "      required: [items, currency]\n", "POST /orders", "breaking", "REQUEST_PROPERTY_ADDED_REQUIRED"],
  ["request property added, optional", "        coupon: { type: string }\n", "        coupon: { type: string }\n        gift: { type: boolean }\n", "POST /orders", "compatible", "PROPERTY_ADDED"],
  ["request property made required", "      required: [items]\n", "      required: [items, coupon]\n", "POST /orders", "breaking", "REQUEST_PROPERTY_BECAME_REQUIRED"],
  ["request property removed", "        coupon: { type: string }\n", "", "POST /orders", "compatible", "REQUEST_PROPERTY_REMOVED"],
  ["request body became optional", "      requestBody:\n        required: true\n", "      requestBody:\n        required: false\n", "POST /orders", "compatible", null],
  [
    "required request body added",
    "    delete:\n      operationId: deleteOrder\n",
    "    delete:\n      operationId: deleteOrder\n      requestBody: { required: true, content: { application/json: { schema: { type: object } } } }\n",
    "DELETE /orders/{id}",
    "breaking",
    "REQUEST_BODY_ADDED_REQUIRED",
  ],
  ["response property removed ($ref'd, nested in an array)", '        note: { type: string, description: "free text" }\n', "", "GET /orders", "breaking", "RESPONSE_PROPERTY_REMOVED"],
  ["response property removed: on the schema's property", '        note: { type: string, description: "free text" }\n', "", "Order.note", "breaking", "PROPERTY_REMOVED"],
  ["response property made optional", "      required: [id, total]\n", "      required: [id]\n", "GET /orders/{id}", "breaking", "RESPONSE_PROPERTY_BECAME_OPTIONAL"],
  ["response property type changed", "        total: { type: number }\n", "        total: { type: string }\n", "GET /orders/{id}", "breaking", "TYPE_CHANGED"],
  ["response property type narrowed number to integer (fine for readers)", "        total: { type: number }\n", "        total: { type: integer }\n", "GET /orders/{id}", "compatible", "TYPE_WIDENED"],
  [
    "response property added",
    '        note: { type: string, description: "free text" }\n',
    '        note: { type: string, description: "free text" }\n        eta: { type: string }\n',
    "GET /orders/{id}",
    "compatible",
    "PROPERTY_ADDED",
  ],
  ["response property may now be null", "        total: { type: number }\n", "        total: { type: number, nullable: true }\n", "GET /orders/{id}", "breaking", "BECAME_NULLABLE"],
  ["nested $ref'd property removed (Line.qty)", "        qty: { type: integer }\n", "", "GET /orders", "breaking", "RESPONSE_PROPERTY_REMOVED"],
  ["nested $ref'd property required in a request", "      required: [sku]\n", "      required: [sku, qty]\n", "POST /orders", "breaking", "REQUEST_PROPERTY_BECAME_REQUIRED"],
  [
    "schema added",
    "    Status: { type: string, enum: [open, paid, shipped] }\n",
    "    Status: { type: string, enum: [open, paid, shipped] }\n    Unused: { type: object }\n",
    "Unused",
    "compatible",
    "SCHEMA_ADDED",
  ],
  ["schema property added as required", "      required: [sku]\n", "      required: [sku, price]\n", "Line.price", "internal", null],
  ["description changed only", 'description: "free text"', 'description: "notes of the buyer"', "Order.note", "internal", null],
  ["operation id changed only (no client signature)", "operationId: getOrder", "operationId: fetchOrder", "GET /orders/{id}", "internal", null],
  [
    "response schema changed to another $ref",
    '"201": { description: created, content: { application/json: { schema: { $ref: "#/components/schemas/Order" } } } }',
    '"201": { description: created, content: { application/json: { schema: { $ref: "#/components/schemas/Line" } } } }',
    "POST /orders",
    "breaking",
    "RESPONSE_PROPERTY_REMOVED",
  ],
  [
    "items type changed in a response array",
    'schema: { type: array, items: { $ref: "#/components/schemas/Order" } }',
    "schema: { type: array, items: { type: string } }",
    "GET /orders",
    "breaking",
    "TYPE_CHANGED",
  ],
  [
    "parameter moved from query to header: one removed, a required one added",
    "{ name: limit, in: query, schema: { type: integer } }",
    "{ name: limit, in: header, required: true, schema: { type: integer } }",
    "GET /orders",
    "breaking",
    "PARAMETER_ADDED_REQUIRED",
  ],
  [
    "enum added to a request parameter (narrowed)",
    "{ name: X-Trace, in: header, schema: { type: string } }",
    "{ name: X-Trace, in: header, schema: { type: string, enum: [a, b] } }",
    "GET /orders/{id}",
    "breaking",
    "ENUM_ADDED",
  ],
  ["nothing changed", "{ name: limit, in: query, schema: { type: integer } }", "{ name: limit, in: query, schema: { type: integer } }", "GET /orders", "internal", null],
];

function analyze(before: string | null, after: string | null, name = "openapi.yaml") {
  const r = analyzeContract(name, before === null ? null : Buffer.from(before), after === null ? null : Buffer.from(after), hash);
  if (r === null) throw new Error("not read as a contract");
  return r;
}

describe("OpenAPI documents as symbols", () => {
  it("knows an OpenAPI or Swagger document by its first key, YAML or JSON, and nothing else", () => {
    expect(contractKindOf("api/openapi.yaml", BASE.slice(0, 100))).toBe("openapi");
    expect(contractKindOf("spec.json", '{\n  "info": {},\n  "openapi": "3.1.0"\n}')).toBe("openapi");
    expect(contractKindOf("swagger.yml", "swagger: '2.0'\n")).toBe("openapi");
    expect(contractKindOf("docker-compose.yml", "services:\n  a: {}\n")).toBe(null);
    expect(contractKindOf("package.json", '{"name": "openapi", "version": "1.0.0"}')).toBe(null);
  });

  it("lists operations, schemas and their properties, with their lines", () => {
    const r = analyze(null, BASE);
    expect(r.symbols.map((s) => `${s.kind} ${s.qualified_name}`)).toEqual([
      "operation DELETE /orders/{id}",
      "operation GET /orders",
      "operation GET /orders/{id}",
      "message Line",
      "field Line.qty",
      "field Line.sku",
      "message NewOrder",
      "field NewOrder.coupon",
      "field NewOrder.items",
      "message Order",
      "field Order.id",
      "field Order.items",
      "field Order.note",
      "field Order.status",
      "field Order.total",
      "operation POST /orders",
      "message Status",
    ]);
    expect(r.symbols.find((s) => s.qualified_name === "GET /orders/{id}")?.range.start_line).toBe(29);
    expect(r.symbols.find((s) => s.qualified_name === "Order.total")?.range.start_line).toBe(48);
  });

  it("says a document that does not parse", () => {
    const r = analyze(BASE, "openapi: 3.0.0\npaths: [\n");
    expect(r.changes).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
  });
});

describe("OpenAPI verdicts: each rule of docs/compatibility.md on a pair", () => {
  for (const [name, find, replace, symbol, compatibility, code] of ROWS) {
    it(name, () => {
      expect(BASE.includes(find), find).toBe(true);
      const r = analyze(BASE, BASE.replace(find, replace));
      const c = r.changes.find((x) => x.qualified_name === symbol);
      if (compatibility === "internal" && code === null && c === undefined) return; // nothing a client sees changed
      expect(c, JSON.stringify(r.changes.map((x) => [x.qualified_name, x.compatibility, x.reasons.map((y) => y.code)]))).toBeDefined();
      expect(c?.compatibility, JSON.stringify(c?.reasons)).toBe(compatibility);
      if (code !== null) expect(c?.reasons.map((x) => x.code)).toContain(code);
    });
  }

  it("reads Swagger 2: definitions, body parameters and response schemas", () => {
    const v2 = `swagger: "2.0"
info: { title: Pets, version: "1" }
paths:
  /pets/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, type: integer }
      responses:
        "200": { description: ok, schema: { $ref: "#/definitions/Pet" } }
    put:
      parameters:
        - { name: id, in: path, required: true, type: integer }
        - { name: body, in: body, required: true, schema: { $ref: "#/definitions/Pet" } }
      responses:
        "200": { description: ok }
definitions:
  Pet:
    type: object
    required: [name]
    properties:
      name: { type: string }
      tag: { type: string }
`;
    const r = analyze(
      v2,
      v2
        .replace("      tag: { type: string }\n", "")
        .replace("required: [name]", "required: [name, kind]\n    x: 1")
        .replace("      name: { type: string }\n", "      name: { type: string }\n      kind: { type: string }\n"),
      "swagger.yaml",
    );
    const byName = new Map(r.changes.map((c) => [c.qualified_name, c]));
    expect(byName.get("GET /pets/{id}")?.reasons.map((x) => x.code)).toContain("RESPONSE_PROPERTY_REMOVED");
    expect(byName.get("PUT /pets/{id}")?.reasons.map((x) => x.code)).toContain("REQUEST_PROPERTY_ADDED_REQUIRED");
    expect(byName.get("Pet.tag")?.compatibility).toBe("breaking");
  });

  it("a schema removed", () => {
    const withGone = BASE.replace("    Status: {", "    Gone: { type: object }\n    Status: {");
    expect(analyze(withGone, BASE).changes.find((c) => c.qualified_name === "Gone")).toMatchObject({
      change: "removed",
      compatibility: "breaking",
      reasons: [expect.objectContaining({ code: "SCHEMA_REMOVED" })],
    });
  });

  it("a cycle of $refs is followed once, not for ever", () => {
    const cyclic = BASE.replace("        qty: { type: integer }\n", '        qty: { type: integer }\n        parent: { $ref: "#/components/schemas/Line" }\n');
    const r = analyze(BASE, cyclic);
    expect(r.changes.find((c) => c.qualified_name === "Line.parent")?.compatibility).toBe("compatible");
  });

  it("a change two $refs down, or inside a cycle of them, changes the operations that reach it", () => {
    // GET /orders reaches Line through Order.items; Line made cyclic, then changed inside the cycle.
    const cyclic = BASE.replace("        qty: { type: integer }\n", '        qty: { type: integer }\n        parent: { $ref: "#/components/schemas/Line" }\n');
    const changed = cyclic.replace("        sku: { type: string }\n", "        sku: { type: integer }\n");
    const r = analyze(cyclic, changed);
    const byName = new Map(r.changes.map((c) => [c.qualified_name, c]));
    for (const op of ["GET /orders", "GET /orders/{id}", "POST /orders"]) expect(byName.get(op)?.compatibility, op).toBe("breaking");
    expect(byName.get("GET /orders")?.reasons.map((x) => x.code)).toContain("TYPE_CHANGED");
    // An operation that does not reach Line is not changed.
    expect(byName.has("DELETE /orders/{id}")).toBe(false);
    // A description deep down changes no signature.
    const described = cyclic.replace("        sku: { type: string }\n", '        sku: { type: string, description: "stock unit" }\n');
    expect(analyze(cyclic, described).changes.filter((c) => c.change === "signature_changed")).toEqual([]);
  });

  it("refuses a document nested deeper than any OpenAPI document is, at its depth", () => {
    const deep = `{"openapi": "3.0.0", "x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const r = analyze(null, deep, "openapi.json");
    expect(r.symbols).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
  });

  it("has a pair for at least 40 cases", () => {
    expect(ROWS.length + 3).toBeGreaterThanOrEqual(40);
  });
});

describe("a version kept in the contract cache (HEAD's, read edit after edit)", () => {
  it("gives every pair the verdicts, reasons and lines of a version read anew, without parsing it again", async () => {
    const pairs = ROWS.map(([name, find, replace]) => [name, BASE, BASE.replace(find, replace)] as const);
    await expectCachedBeforeEqualsFresh("openapi.yaml", pairs, hash, (p) => ({ object: p.yamlLib(), method: "parseEvents" }));
  });
});

describe("$refs to other files of the repo", () => {
  const DOC = `openapi: 3.0.3
info: { title: Orders, version: "1" }
paths:
  /orders:
    $ref: paths/orders.yaml
  /orders/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "./schemas/order.yaml#/Order" }
`;
  const PATHS = `get:
  responses:
    "200":
      description: ok
      content:
        application/json:
          schema: { type: array, items: { $ref: "../schemas/order.yaml#/Order" } }
post:
  requestBody:
    required: true
    content:
      application/json:
        schema: { $ref: "../schemas/new-order.yaml" }
  responses:
    "201": { description: created }
`;
  const ORDER = `Order:
  type: object
  required: [id]
  properties:
    id: { type: string }
    total: { type: number }
    parent: { $ref: "#/Order" }
`;
  const NEW_ORDER = `type: object
properties:
  sku: { type: string }
`;
  const files = (over: Record<string, string | null> = {}) =>
    new Map(Object.entries({ "api/paths/orders.yaml": PATHS, "api/schemas/order.yaml": ORDER, "api/schemas/new-order.yaml": NEW_ORDER, ...over }));
  const run = (before: Map<string, string | null>, after: Map<string, string | null>) => {
    const r = analyzeContract("api/openapi.yaml", Buffer.from(DOC), Buffer.from(DOC), hash, { beforeFiles: before, afterFiles: after });
    if (r === null) throw new Error("not read as a contract");
    return r.changes.map((c) => [c.qualified_name, c.compatibility, [...new Set(c.reasons.map((x) => x.code))].sort()]);
  };

  it("finds the files a document's $refs reach, through the files they name, and nothing outside the repo", async () => {
    const reads: string[] = [];
    const all = files({ "api/schemas/order.yaml": `${ORDER}    owner: { $ref: "../../../../etc/passwd" }\n    user: { $ref: "https://example.com/u.yaml" }\n` });
    const found = await openapiRefFiles("api/openapi.yaml", DOC, async (p) => {
      reads.push(p);
      return all.get(p) ?? null;
    });
    expect([...found.keys()].sort()).toEqual(["api/paths/orders.yaml", "api/schemas/new-order.yaml", "api/schemas/order.yaml"]);
    expect(reads.every((p) => p.startsWith("api/"))).toBe(true);
  });

  it("a property removed from a response schema in another file breaks the operations that return it", () => {
    expect(run(files(), files({ "api/schemas/order.yaml": ORDER.replace("    total: { type: number }\n", "") }))).toEqual([
      ["GET /orders", "breaking", ["RESPONSE_PROPERTY_REMOVED"]],
      ["GET /orders/{id}", "breaking", ["RESPONSE_PROPERTY_REMOVED"]],
    ]);
  });

  it("a required property added to a request schema in another file breaks the operation that takes it; a whole file names its schema", () => {
    const after = files({ "api/schemas/new-order.yaml": `${NEW_ORDER.replace("type: object\n", "type: object\nrequired: [qty]\n")}  qty: { type: integer }\n` });
    expect(run(files(), after)).toEqual([["POST /orders", "breaking", ["REQUEST_PROPERTY_ADDED_REQUIRED"]]]);
  });

  it("an operation removed from a path file is removed; nothing changed in the files, nothing changed", () => {
    expect(run(files(), files({ "api/paths/orders.yaml": PATHS.slice(0, PATHS.indexOf("post:")) }))).toEqual([["POST /orders", "breaking", ["OPERATION_REMOVED"]]]);
    expect(run(files(), files())).toEqual([]);
  });

  it("a file that is not there leaves its schema a name, as before", () => {
    expect(run(files({ "api/schemas/order.yaml": null }), files({ "api/schemas/order.yaml": null }))).toEqual([]);
  });
});
