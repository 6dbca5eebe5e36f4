import { beforeAll, describe, expect, it } from "vitest";
import { analyzeContract } from "../../src/contracts/contract-files.js";
import { contractUses, generatedClientCalls, graphqlSelections, httpCalls, normalizeCallPath, operationCallNames } from "../../src/contracts/contract-uses.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";

let hash: (s: string) => string;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
});

describe("what a consumer's code uses of a contract", () => {
  it("GraphQL: fields by their path from the root, or by type where a fragment names it", () => {
    const doc = "query P($id: ID!) { user(id: $id) { name ...F ... on Admin { level } posts { title __typename } } }\nfragment F on User { email }\nmutation { createPost(input: {}) { id } }";
    expect(graphqlSelections(doc).sort()).toEqual(
      ["Admin.level", "Mutation.createPost", "Mutation.createPost.id", "Query.user", "Query.user.name", "Query.user.posts", "Query.user.posts.title", "User.email"].sort(),
    );
    expect(graphqlSelections("query { broken ")).toEqual([]);
  });

  it("GraphQL in code: gql and graphql tagged templates, interpolations left out", () => {
    const code = "const Q = gql`\n  query { me { id } }\n  ${FRAGMENT}\n`;\nconst R = graphql(`query { orders { total } }`);\nconst notAQuery = `query { secret }`;\n";
    expect(contractUses("src/a.tsx", code).map((u) => `${u.module} ${u.name}`)).toEqual([
      "graphql:schema Query.me",
      "graphql:schema Query.me.id",
      "graphql:schema Query.orders",
      "graphql:schema Query.orders.total",
    ]);
  });

  it("HTTP: calls with a literal or template URL, by method; a string that only looks like a path is none", () => {
    const code = [
      "await fetch(`/v1/orders/${id}`);",
      'await fetch("https://api.acme.test/v1/orders?limit=5", { method: "POST", body });',
      "axios.delete(`/v1/orders/${order.id}/lines/${n}`);",
      "client.get('/v1/users/42');",
      'const DOCS = "/v1/orders/{id} is described elsewhere";',
      'map.get("key");',
      'axios({ method: "put", url: "/v1/orders/7" });',
    ].join("\n");
    expect(httpCalls(code).sort()).toEqual(
      [
        "DELETE /v1/orders/{}/lines/{}",
        "GET /v1/orders/{}",
        "GET /v1/users/42",
        "GET /v1/users/{}",
        "POST /v1/orders",
        "PUT /v1/orders/7",
        "PUT /v1/orders/{}",
        // and without the version prefix a service may mount its routers under elsewhere
        "DELETE /orders/{}/lines/{}",
        "GET /orders/{}",
        "GET /users/{}",
        "POST /orders",
        "PUT /orders/{}",
      ].sort(),
    );
    expect(contractUses("app/client.py", 'requests.post(f"/v1/orders/{order_id}/pay", json=body)\nhttpx.get("/v1/health")\n').map((u) => u.name)).toEqual([
      "GET /health",
      "GET /v1/health",
      "POST /orders/{}/pay",
      "POST /v1/orders/{}/pay",
    ]);
  });

  it("protobuf: names imported from generated modules, under every package their folder may stand for", () => {
    const code =
      'import { Order, type Status as S } from "../gen/acme/orders/v1/orders_pb.js";\nimport * as svc from "@acme/api/acme/orders/v1/orders_connect";\nimport { x } from "./not-generated.js";\n';
    const uses = contractUses("src/view.ts", code).map((u) => `${u.module} ${u.name}`);
    for (const u of ["protobuf:acme.orders.v1 Order", "protobuf:acme.orders.v1 Status", "protobuf:orders.v1 Order", "protobuf:acme.orders.v1 *"]) expect(uses).toContain(u);
    expect(uses.some((u) => u.includes(" x"))).toBe(false);
  });

  it("protobuf in Python: names imported from protoc's modules or read from one imported whole, a stub as its service", () => {
    const code = [
      "from acme.orders.v1.orders_pb2 import Order, Status as S",
      "from acme.orders.v1 import orders_pb2_grpc as grpc_svc",
      "import acme.billing.v1.invoice_pb2 as inv",
      "from .gen.acme.users.v1 import users_pb2",
      "from acme.orders.v1 import helpers",
      "",
      "stub = grpc_svc.OrderServiceStub(channel)",
      "total = inv.Invoice(id=1)",
      "print(users_pb2)",
      "x = helpers.Order()",
    ].join("\n");
    const uses = contractUses("svc/client.py", code).map((u) => `${u.module} ${u.name}`);
    for (const u of [
      "protobuf:acme.orders.v1 Order",
      "protobuf:orders.v1 Status",
      "protobuf:acme.orders.v1 OrderService",
      "protobuf:acme.billing.v1 Invoice",
      "protobuf:v1 Invoice",
      "protobuf:acme.users.v1 *",
    ])
      expect(uses).toContain(u);
    expect(uses.filter((u) => u.startsWith("protobuf:")).every((u) => !u.includes("helpers") && !u.endsWith(" S"))).toBe(true);
    expect(contractUses("svc/client.ts", code).filter((u) => u.module.startsWith("protobuf:"))).toEqual([]);
  });

  it("HTTP through a generated client: its functions and hooks called, methods on its classes, their instances and typed fields", () => {
    const code = [
      'import { OrdersApi, Configuration } from "../generated/api";',
      'import { getInvoice, useListPayments as usePayments } from "@acme/billing-client";',
      'import * as Users from "./sdk/users.gen";',
      'import { useQuery } from "@apollo/client";',
      'import { helper } from "./utils";',
      "const api = new OrdersApi(new Configuration({ basePath: '/v1' }));",
      "export class View {",
      "  constructor(private readonly orders: OrdersApi) {}",
      "  async load(id: string) {",
      "    await this.orders.getOrderById({ id });",
      "    await api.cancelOrder({ id });",
      "    await new OrdersApi().listOrders();",
      "    await getInvoice(id);",
      "    usePayments();",
      "    Users.deleteUser(id);",
      "    useQuery(Q);",
      "    helper.doThing();",
      "    [1].map((x) => x);",
      "  }",
      "}",
    ].join("\n");
    expect(
      contractUses("src/view.ts", code)
        .filter((u) => u.name.startsWith("op:"))
        .map((u) => u.name),
    ).toEqual(["op:cancelOrder", "op:deleteUser", "op:getInvoice", "op:getOrderById", "op:listOrders", "op:listPayments"]);
    // Not from a generated client: nothing of the kind.
    expect(generatedClientCalls('import { getOrderById } from "./orders";\ngetOrderById(1);\n')).toEqual([]);
  });

  it("HTTP through a generated Python client: methods on its API classes and their instances, its functions", () => {
    const code = [
      "from openapi_client.api.orders_api import OrdersApi",
      "from acme_client import ApiClient, list_payments",
      "from app.helpers import Helper",
      "",
      "class View:",
      "    def __init__(self, client: ApiClient):",
      "        self.orders = OrdersApi(client)",
      "",
      "    def load(self, order_id: str):",
      "        self.orders.get_order_by_id(order_id)",
      "        OrdersApi(None).cancel_order(order_id)",
      "        list_payments()",
      "        Helper().delete_user(order_id)",
    ].join("\n");
    expect(
      contractUses("app/view.py", code)
        .filter((u) => u.name.startsWith("op:"))
        .map((u) => u.name),
    ).toEqual(["op:cancel_order", "op:get_order_by_id", "op:list_payments"]);
  });

  it("normalises paths and templates alike", () => {
    expect(normalizeCallPath("https://h.test/v1/a/${x}/b/?q=1#f")).toBe("/v1/a/{}/b");
    expect(normalizeCallPath("not/a/path")).toBeNull();
    expect(operationCallNames("GET", "/orders/{orderId}", ["https://api.test/v1", "/"])).toEqual(["GET /orders/{}", "GET /v1/orders/{}"]);
  });
});

describe("what a contract's breaking change is reached by", () => {
  it("a GraphQL field by its coordinate and each path from a root type that selects it", () => {
    const before = "type Query { user(id: ID!): User me: User search: [Result] }\nunion Result = User | Post\ntype Post { id: ID! }\ntype User { id: ID! email: String friends: [User] }\n";
    const after = before.replace(" email: String", "");
    const r = analyzeContract("schema.graphql", Buffer.from(before), Buffer.from(after), hash);
    const names = r?.link.publicNames.get("User.email") ?? [];
    expect(r?.link.package).toEqual({ name: "schema", ecosystem: "graphql" });
    for (const n of ["User.email", "Query.user.email", "Query.me.email", "Query.me.friends.email"]) expect(names).toContain(n);
  });

  it("a protobuf field by its message, an RPC by its service and the service's client", () => {
    const proto = 'syntax = "proto3";\npackage acme.v1;\nmessage Order { string id = 1; string status = 2; }\nservice Orders { rpc Get(Order) returns (Order); }\n';
    const r = analyzeContract("orders.proto", Buffer.from(proto), Buffer.from(proto.replace("status = 2", "status = 3").replace("returns (Order)", "returns (stream Order)")), hash);
    expect(r?.link.package).toEqual({ name: "acme.v1", ecosystem: "protobuf" });
    expect(r?.link.publicNames.get("Order.status")).toEqual(["Order.status", "Order"]);
    expect(r?.link.publicNames.get("Orders.Get")).toEqual(["Orders.Get", "Orders", "OrdersClient", "OrdersStub"]);
  });

  it("an HTTP operation by its operationId too, as generated clients call it", () => {
    const doc =
      'openapi: 3.0.0\npaths:\n  /orders/{id}:\n    get:\n      operationId: getOrderById\n      responses: { "200": { description: ok } }\n  /health:\n    get:\n      responses: { "200": { description: ok } }\n';
    const after = doc.replace(/ {2}\/orders\/\{id\}:[\s\S]*?(?= {2}\/health)/, "");
    const r = analyzeContract("openapi.yaml", Buffer.from(doc), Buffer.from(after), hash);
    expect(r?.link.publicNames.get("GET /orders/{id}")).toEqual(["GET /orders/{id}", "GET /orders/{}", "op:getOrderById", "op:get_order_by_id"]);
  });

  it("an HTTP operation as a call names it, under the servers' base path too", () => {
    const doc = 'openapi: 3.0.0\nservers: [{ url: "https://api.test/v2" }]\npaths:\n  /items/{id}:\n    get:\n      responses: { "200": { description: ok } }\n';
    const r = analyzeContract("openapi.yaml", Buffer.from(doc), Buffer.from(doc.replace("/items/{id}", "/things/{id}")), hash);
    expect(r?.link.publicNames.get("GET /items/{id}")).toEqual(["GET /items/{id}", "GET /items/{}", "GET /v2/items/{}"]);
  });
});
