import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectAnalyzeSchema } from "../helpers/analyze-schema.js";
import { commit, createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";

// Service contracts through the built CLI: `comity symbols` and `symbols --diff` read them, `comity analyze` lists
// their changes with the verdicts of their own rules and the briefing says which break.

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "config") };
});
afterEach(() => sb.cleanup());

const SCHEMA = "type Query {\n  user(id: ID!): User\n}\n\ntype User {\n  id: ID!\n  email: String!\n  name: String\n}\n";

describe("contracts in the CLI", () => {
  it("symbols and symbols --diff read a GraphQL schema", () => {
    const before = sb.write("before.graphql", SCHEMA);
    const after = sb.write("after.graphql", SCHEMA.replace("  email: String!\n", "").replace("user(id: ID!)", "user(id: ID!, tenant: String!)"));
    const listed = runBuiltCli(["symbols", "--json", after, "b.ts"], { cwd: sb.dir, env: { ...env } });
    expect(listed.status, listed.stderr).toBe(2); // b.ts does not exist: said, as for code
    sb.write("b.ts", "export const b = 1;\n");
    const both = JSON.parse(runBuiltCli(["symbols", "--json", after, "b.ts"], { cwd: sb.dir, env }).stdout) as {
      files: Array<{ path: string; language: string; symbols: Array<{ qualified_name: string; kind: string }> }>;
    };
    expect(both.files.map((f) => [f.path, f.language])).toEqual([
      [after, "graphql"],
      ["b.ts", "typescript"],
    ]);
    expect(both.files[0]?.symbols.map((s) => `${s.kind} ${s.qualified_name}`)).toEqual(["type Query", "field Query.user", "type User", "field User.id", "field User.name"]);
    const diff = JSON.parse(runBuiltCli(["symbols", "--diff", "--json", before, after], { cwd: sb.dir, env }).stdout) as {
      language: string;
      changes: Array<{ qualified_name: string; compatibility: string; reasons: Array<{ code: string }> }>;
    };
    expect(diff.language).toBe("graphql");
    expect(diff.changes.map((c) => [c.qualified_name, c.compatibility, c.reasons.map((r) => r.code)])).toEqual([
      ["Query.user", "breaking", ["REQUIRED_ARG_ADDED"]],
      ["User.email", "breaking", ["FIELD_REMOVED"]],
    ]);
  });

  it("analyze lists a schema's changes with their verdicts, and the briefing the breaking ones", () => {
    const repo = initRepo(sb, "api");
    commit(sb, repo, "schema/schema.graphql", SCHEMA);
    fs.writeFileSync(path.join(repo, "schema/schema.graphql"), SCHEMA.replace("  email: String!\n", "").replace("  name: String\n", "  name: String\n  nickname: String\n"));
    // Not a contract: a JSON file that is not an OpenAPI document stays unanalysed.
    fs.writeFileSync(path.join(repo, "data.json"), '{"a": 1}\n');
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      repos: Array<{ changes: Array<{ path: string; language: string | null; symbols: Array<{ qualified_name: string; compatibility: string }> | null }> }>;
      briefing: string;
    };
    expectAnalyzeSchema(doc);
    const changes = doc.repos[0]?.changes ?? [];
    expect(changes.find((c) => c.path === "data.json")).toMatchObject({ language: null, symbols: null });
    const schema = changes.find((c) => c.path === "schema/schema.graphql");
    expect(schema?.language).toBe("graphql");
    expect(schema?.symbols?.map((s) => [s.qualified_name, s.compatibility])).toEqual([
      ["User.email", "breaking"],
      ["User.nickname", "compatible"],
    ]);
    expect(doc.briefing).toContain("Breaking: field User.email in schema/schema.graphql (FIELD_REMOVED)");
  });

  it("analyze lists who uses a contract's breaking changes, in the other repos and its own", () => {
    const api = initRepo(sb, "api");
    const openapi =
      'openapi: 3.0.3\nservers: [{ url: "https://api.acme.test/v1" }]\npaths:\n  /orders/{id}:\n    get:\n      responses: { "200": { description: ok } }\n  /health:\n    get:\n      responses: { "200": { description: ok } }\n';
    commit(sb, api, "openapi.yaml", openapi);
    commit(sb, api, "schema.graphql", SCHEMA);
    commit(sb, api, "src/self-check.ts", 'export const ok = () => fetch("/v1/orders/1");\n');
    const web = initRepo(sb, "web");
    commit(sb, web, "src/orders.ts", "export const get = (id: string) => fetch(`/v1/orders/${id}`);\n");
    commit(sb, web, "src/profile.ts", 'import { gql } from "@apollo/client";\nexport const Q = gql`query { user(id: 1) { email name } }`;\n');
    commit(sb, web, "src/docs.ts", 'export const DOCS = "see /v1/orders/{id} and User.email";\n');
    commit(sb, web, "src/health.ts", 'export const h = () => fetch("/v1/health");\n');
    fs.writeFileSync(path.join(api, "openapi.yaml"), openapi.replace('  /orders/{id}:\n    get:\n      responses: { "200": { description: ok } }\n', ""));
    fs.writeFileSync(path.join(api, "schema.graphql"), SCHEMA.replace("  email: String!\n", ""));
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { contract_users: Array<{ publisher: string; qualified_name: string; consumer: string; files: string[] }>; briefing: string };
    expectAnalyzeSchema(doc);
    expect(doc.contract_users.map((u) => [u.publisher, u.qualified_name, u.consumer, u.files])).toEqual([
      ["api", "GET /orders/{id}", "api", ["src/self-check.ts"]],
      ["api", "GET /orders/{id}", "web", ["src/orders.ts"]],
      ["api", "User.email", "web", ["src/profile.ts"]],
    ]);
    expect(doc.briefing).toContain(
      "Breaking changes of a service contract and the code that uses them:\n- `GET /orders/{id}` of the HTTP API (api: `openapi.yaml`, removed: OPERATION_REMOVED) is used by the same repo in `src/self-check.ts`",
    );
    expect(doc.briefing).toContain("- `User.email` of the GraphQL schema (api: `schema.graphql`, removed: FIELD_REMOVED) is used by web in `src/profile.ts`");
  });

  it("analyze follows a document's $refs into its schema files: a property removed there breaks the operations that return it", () => {
    const api = initRepo(sb, "api");
    const openapi =
      'openapi: 3.0.3\nservers: [{ url: "https://api.acme.test/v1" }]\npaths:\n  /orders/{id}:\n    get:\n      responses:\n        "200":\n          description: ok\n          content: { application/json: { schema: { $ref: "./schemas/order.yaml#/Order" } } }\n  /health:\n    get:\n      responses: { "200": { description: ok } }\n';
    const order = "Order:\n  type: object\n  properties:\n    id: { type: string }\n    total: { type: number }\n";
    commit(sb, api, "openapi.yaml", openapi);
    commit(sb, api, "schemas/order.yaml", order);
    commit(sb, api, "deploy/app.yaml", "replicas: 2\n");
    const web = initRepo(sb, "web");
    commit(sb, web, "src/orders.ts", "export const get = (id: string) => fetch(`/v1/orders/${id}`);\n");
    commit(sb, web, "src/health.ts", 'export const h = () => fetch("/v1/health");\n');
    fs.writeFileSync(path.join(api, "schemas/order.yaml"), order.replace("    total: { type: number }\n", ""));
    fs.writeFileSync(path.join(api, "deploy/app.yaml"), "replicas: 3\n");
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { contract_users: Array<{ publisher: string; qualified_name: string; consumer: string; files: string[] }>; briefing: string };
    expectAnalyzeSchema(doc);
    expect(doc.contract_users.map((u) => [u.publisher, u.qualified_name, u.consumer, u.files])).toEqual([["api", "GET /orders/{id}", "web", ["src/orders.ts"]]]);
    expect(doc.briefing).toContain("- `GET /orders/{id}` of the HTTP API (api: `schemas/order.yaml`");
    expect(doc.briefing).toContain("RESPONSE_PROPERTY_REMOVED");
  });

  it("analyze finds Python code that uses a .proto's generated module and stub", () => {
    const schemas = initRepo(sb, "schemas");
    const proto =
      'syntax = "proto3";\npackage acme.orders.v1;\nmessage Order { string id = 1; string status = 2; }\nmessage GetOrderRequest { string id = 1; }\nservice OrderService { rpc GetOrder(GetOrderRequest) returns (Order); }\n';
    commit(sb, schemas, "acme/orders/v1/orders.proto", proto);
    const svc = initRepo(sb, "svc");
    commit(sb, svc, "svc/client.py", "from acme.orders.v1 import orders_pb2_grpc\n\n\ndef stub(channel):\n    return orders_pb2_grpc.OrderServiceStub(channel)\n");
    commit(sb, svc, "svc/view.py", "from acme.orders.v1.orders_pb2 import Order\n\n\ndef label(o: Order) -> str:\n    return o.status\n");
    commit(sb, svc, "svc/other.py", "# OrderService and Order are only words here.\nORDER = 1\n");
    fs.writeFileSync(path.join(schemas, "acme/orders/v1/orders.proto"), proto.replace("returns (Order)", "returns (stream Order)").replace("status = 2", "status = 3"));
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { contract_users: Array<{ publisher: string; qualified_name: string; consumer: string; files: string[] }> };
    expect(doc.contract_users.map((u) => [u.qualified_name, u.consumer, u.files])).toEqual([
      ["Order.status", "svc", ["svc/view.py"]],
      ["OrderService.GetOrder", "svc", ["svc/client.py"]],
    ]);
  });

  it("analyze finds the callers of a removed operation through a generated client, by its operationId", () => {
    const api = initRepo(sb, "api");
    const openapi =
      'openapi: 3.0.3\npaths:\n  /orders/{id}:\n    get:\n      operationId: getOrderById\n      responses: { "200": { description: ok } }\n  /health:\n    get:\n      operationId: health\n      responses: { "200": { description: ok } }\n';
    commit(sb, api, "openapi.yaml", openapi);
    const web = initRepo(sb, "web");
    commit(sb, web, "src/page.ts", 'import { OrdersApi } from "./generated/api";\nexport const load = (id: string) => new OrdersApi().getOrderById({ id });\n');
    commit(sb, web, "src/local.ts", 'export const getOrderById = (id: string) => id;\nexport const x = getOrderById("1");\n');
    fs.writeFileSync(path.join(api, "openapi.yaml"), openapi.replace(/ {2}\/orders\/\{id\}:[\s\S]*?(?= {2}\/health)/, ""));
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { contract_users: Array<{ qualified_name: string; consumer: string; files: string[] }> };
    expect(doc.contract_users.map((u) => [u.qualified_name, u.consumer, u.files])).toEqual([["GET /orders/{id}", "web", ["src/page.ts"]]]);
  });

  it("analyze lists the routes a server's code removes, and who calls them", () => {
    const api = initRepo(sb, "api");
    const server =
      'import express from "express";\nconst app = express();\nconst v1 = express.Router();\nv1.get("/orders/:id", getOrder);\nv1.get("/health", health);\napp.use("/v1", v1);\nexport function getOrder() {}\nexport function health() {}\n';
    commit(sb, api, "src/server.ts", server);
    const web = initRepo(sb, "web");
    commit(sb, web, "src/orders.ts", "export const get = (id: string) => fetch(`/v1/orders/${id}`);\n");
    commit(sb, web, "src/health.ts", 'export const h = () => fetch("/v1/health");\n');
    commit(sb, web, "src/docs.ts", 'export const DOCS = "GET /v1/orders/{id} is documented";\n');
    fs.writeFileSync(path.join(api, "src/server.ts"), server.replace('v1.get("/orders/:id", getOrder);\n', "").replace("export function getOrder() {}\n", ""));
    const r = runBuiltCli(["analyze", "--json"], { cwd: sb.dir, env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { contract_users: Array<{ publisher: string; qualified_name: string; consumer: string; files: string[] }>; briefing: string };
    expectAnalyzeSchema(doc);
    expect(doc.contract_users.map((u) => [u.publisher, u.qualified_name, u.consumer, u.files])).toEqual([["api", "GET /v1/orders/{id}", "web", ["src/orders.ts"]]]);
    expect(doc.briefing).toContain("- `GET /v1/orders/{id}` of the HTTP API (api: `src/server.ts`, removed: OPERATION_REMOVED) is used by web in `src/orders.ts`");
  });
});
