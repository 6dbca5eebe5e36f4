import { beforeAll, describe, expect, it } from "vitest";
import { analyzeContract } from "../../src/contracts/contract-files.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";
import { expectCachedBeforeEqualsFresh } from "../helpers/contract-cache-check.js";

let hash: (s: string) => string;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
});

const PROTO3 = `syntax = "proto3";
package acme.orders.v1;
option go_package = "github.com/acme/orders/v1;ordersv1";
option java_package = "com.acme.orders.v1";
option java_multiple_files = true;
option csharp_namespace = "Acme.Orders.V1";

// An order.
message Order {
  reserved 9, 12 to 14;
  reserved "legacy";
  string id = 1;
  Status status = 2;
  repeated Line lines = 3;
  map<string, string> labels = 4;
  int64 total_cents = 5 [jstype = JS_STRING];
  string customer = 6 [json_name = "customerId"];
  oneof payment {
    string card = 7;
    string voucher = 8;
  }
  message Line {
    string sku = 1;
    int32 qty = 2;
  }
}

enum Status {
  reserved 5;
  STATUS_UNSPECIFIED = 0;
  STATUS_OPEN = 1;
  STATUS_PAID = 2;
}

message GetOrderRequest { string id = 1; }
message ListOrdersRequest { int32 page_size = 1; }

service OrderService {
  rpc GetOrder(GetOrderRequest) returns (Order) {
    option idempotency_level = NO_SIDE_EFFECTS;
  }
  rpc ListOrders(ListOrdersRequest) returns (stream Order);
  rpc Upload(stream Order.Line) returns (Order);
}

service AuditService {
  rpc Ping(GetOrderRequest) returns (GetOrderRequest);
}
`;

const PROTO2 = `syntax = "proto2";
package acme.legacy;
message Item {
  required string id = 1;
  optional int32 count = 2 [default = 1];
  optional string name = 3 [ctype = CORD];
}
`;

type Row = readonly [rule: string, base: "3" | "2", find: string, replace: string, symbol: string, compatibility: "breaking" | "compatible", code: string];

/** Pairs written from buf breaking's FILE category: each rule at least once, and compatible changes beside them. */
const ROWS: readonly Row[] = [
  ["FILE_SAME_PACKAGE", "3", "package acme.orders.v1;", "package acme.orders.v2;", "Order", "breaking", "FILE_SAME_PACKAGE"],
  [
    "FILE_SAME_SYNTAX",
    "2",
    PROTO2,
    PROTO2.replace('"proto2"', '"proto3"')
      .replace(/ *\[[^\]]*\]/g, "")
      .replace(/(required|optional) /g, ""),
    "Item",
    "breaking",
    "FILE_SAME_SYNTAX",
  ],
  [
    "FILE_SAME_GO_PACKAGE",
    "3",
    'option go_package = "github.com/acme/orders/v1;ordersv1";',
    'option go_package = "github.com/acme/orders/gen;ordersv1";',
    "OrderService",
    "breaking",
    "FILE_SAME_GO_PACKAGE",
  ],
  ["FILE_SAME_JAVA_PACKAGE", "3", 'option java_package = "com.acme.orders.v1";', 'option java_package = "com.acme.orders";', "Status", "breaking", "FILE_SAME_JAVA_PACKAGE"],
  ["FILE_SAME_JAVA_MULTIPLE_FILES", "3", "option java_multiple_files = true;", "option java_multiple_files = false;", "Order", "breaking", "FILE_SAME_JAVA_MULTIPLE_FILES"],
  ["FILE_SAME_CSHARP_NAMESPACE", "3", 'option csharp_namespace = "Acme.Orders.V1";', "", "Order", "breaking", "FILE_SAME_CSHARP_NAMESPACE"],
  ["MESSAGE_NO_DELETE", "3", "message ListOrdersRequest { int32 page_size = 1; }\n", "", "ListOrdersRequest", "breaking", "MESSAGE_NO_DELETE"],
  ["MESSAGE_NO_DELETE (nested)", "3", "  message Line {\n    string sku = 1;\n    int32 qty = 2;\n  }\n", "", "Order.Line", "breaking", "MESSAGE_NO_DELETE"],
  ["FIELD_NO_DELETE", "3", "  string id = 1;\n  Status", "  Status", "Order.id", "breaking", "FIELD_NO_DELETE"],
  ["FIELD_NO_DELETE even with its number reserved (FILE category)", "3", "  string id = 1;\n  Status", "  reserved 1;\n  Status", "Order.id", "breaking", "FIELD_NO_DELETE"],
  ["FIELD_SAME_NAME", "3", "  string id = 1;", "  string order_id = 1;", "Order.order_id", "breaking", "FIELD_SAME_NAME"],
  ["FIELD_SAME_TYPE", "3", "  string id = 1;", "  int64 id = 1;", "Order.id", "breaking", "FIELD_SAME_TYPE"],
  ["FIELD_SAME_TYPE: a number reused by another field", "3", "  string id = 1;", "  int64 ref = 1;", "Order.ref", "breaking", "FIELD_SAME_TYPE"],
  ["FIELD_SAME_TYPE: message type changed", "3", "  repeated Line lines = 3;", "  repeated GetOrderRequest lines = 3;", "Order.lines", "breaking", "FIELD_SAME_TYPE"],
  ["FIELD_SAME_CARDINALITY: made repeated", "3", "  string id = 1;", "  repeated string id = 1;", "Order.id", "breaking", "FIELD_SAME_CARDINALITY"],
  ["FIELD_SAME_CARDINALITY: proto3 optional", "3", "  string id = 1;", "  optional string id = 1;", "Order.id", "breaking", "FIELD_SAME_CARDINALITY"],
  ["FIELD_SAME_CARDINALITY: proto2 required to optional", "2", "  required string id = 1;", "  optional string id = 1;", "Item.id", "breaking", "FIELD_SAME_CARDINALITY"],
  [
    "FIELD_SAME_ONEOF: moved out",
    "3",
    "  oneof payment {\n    string card = 7;\n    string voucher = 8;\n  }",
    "  string card = 7;\n  oneof payment {\n    string voucher = 8;\n  }",
    "Order.card",
    "breaking",
    "FIELD_SAME_ONEOF",
  ],
  [
    "FIELD_SAME_ONEOF: moved in",
    "3",
    '  string customer = 6 [json_name = "customerId"];\n  oneof payment {',
    '  oneof payment {\n    string customer = 6 [json_name = "customerId"];',
    "Order.customer",
    "breaking",
    "FIELD_SAME_ONEOF",
  ],
  ["FIELD_SAME_JSON_NAME", "3", '[json_name = "customerId"]', '[json_name = "customer"]', "Order.customer", "breaking", "FIELD_SAME_JSON_NAME"],
  ["FIELD_SAME_JSTYPE", "3", "[jstype = JS_STRING]", "", "Order.total_cents", "breaking", "FIELD_SAME_JSTYPE"],
  ["FIELD_SAME_DEFAULT", "2", "[default = 1]", "[default = 2]", "Item.count", "breaking", "FIELD_SAME_DEFAULT"],
  ["FIELD_SAME_CTYPE", "2", " [ctype = CORD]", "", "Item.name", "breaking", "FIELD_SAME_CTYPE"],
  ["MESSAGE_SAME_REQUIRED_FIELDS", "2", "  optional int32 count = 2", "  required int32 count = 2", "Item", "breaking", "MESSAGE_SAME_REQUIRED_FIELDS"],
  ["ONEOF_NO_DELETE", "3", "  oneof payment {\n    string card = 7;\n    string voucher = 8;\n  }", "  string card = 7;\n  string voucher = 8;", "Order", "breaking", "ONEOF_NO_DELETE"],
  ["RESERVED_MESSAGE_NO_DELETE: a number", "3", "  reserved 9, 12 to 14;", "  reserved 12 to 14;", "Order", "breaking", "RESERVED_MESSAGE_NO_DELETE"],
  ["RESERVED_MESSAGE_NO_DELETE: a name", "3", '  reserved "legacy";\n', "", "Order", "breaking", "RESERVED_MESSAGE_NO_DELETE"],
  ["ENUM_NO_DELETE", "3", "enum Status {\n  reserved 5;\n  STATUS_UNSPECIFIED = 0;\n  STATUS_OPEN = 1;\n  STATUS_PAID = 2;\n}\n", "", "Status", "breaking", "ENUM_NO_DELETE"],
  ["ENUM_VALUE_NO_DELETE", "3", "  STATUS_PAID = 2;\n", "", "Status.STATUS_PAID", "breaking", "ENUM_VALUE_NO_DELETE"],
  ["ENUM_VALUE_SAME_NAME", "3", "  STATUS_PAID = 2;", "  STATUS_SETTLED = 2;", "Status.STATUS_SETTLED", "breaking", "ENUM_VALUE_SAME_NAME"],
  ["RESERVED_ENUM_NO_DELETE", "3", "  reserved 5;\n  STATUS_UNSPECIFIED", "  STATUS_UNSPECIFIED", "Status", "breaking", "RESERVED_ENUM_NO_DELETE"],
  ["SERVICE_NO_DELETE", "3", "service AuditService {\n  rpc Ping(GetOrderRequest) returns (GetOrderRequest);\n}\n", "", "AuditService", "breaking", "SERVICE_NO_DELETE"],
  ["RPC_NO_DELETE", "3", "  rpc Upload(stream Order.Line) returns (Order);\n", "", "OrderService.Upload", "breaking", "RPC_NO_DELETE"],
  ["RPC_SAME_REQUEST_TYPE", "3", "rpc ListOrders(ListOrdersRequest)", "rpc ListOrders(GetOrderRequest)", "OrderService.ListOrders", "breaking", "RPC_SAME_REQUEST_TYPE"],
  ["RPC_SAME_RESPONSE_TYPE", "3", "rpc Ping(GetOrderRequest) returns (GetOrderRequest)", "rpc Ping(GetOrderRequest) returns (Order)", "AuditService.Ping", "breaking", "RPC_SAME_RESPONSE_TYPE"],
  ["RPC_SAME_CLIENT_STREAMING", "3", "rpc Upload(stream Order.Line)", "rpc Upload(Order.Line)", "OrderService.Upload", "breaking", "RPC_SAME_CLIENT_STREAMING"],
  ["RPC_SAME_SERVER_STREAMING", "3", "returns (stream Order);", "returns (Order);", "OrderService.ListOrders", "breaking", "RPC_SAME_SERVER_STREAMING"],
  ["RPC_SAME_IDEMPOTENCY_LEVEL", "3", "    option idempotency_level = NO_SIDE_EFFECTS;\n", "", "OrderService.GetOrder", "breaking", "RPC_SAME_IDEMPOTENCY_LEVEL"],
  ["a field added (compatible)", "3", "  string id = 1;\n", "  string id = 1;\n  string note = 15;\n", "Order.note", "compatible", "ADDED"],
  ["a message added (compatible)", "3", "message GetOrderRequest", "message Empty {}\nmessage GetOrderRequest", "Empty", "compatible", "ADDED"],
  ["an enum value added (compatible)", "3", "  STATUS_PAID = 2;\n", "  STATUS_PAID = 2;\n  STATUS_SHIPPED = 3;\n", "Status.STATUS_SHIPPED", "compatible", "ADDED"],
  ["an RPC added (compatible)", "3", "  rpc Ping(", "  rpc Pong(GetOrderRequest) returns (GetOrderRequest);\n  rpc Ping(", "AuditService.Pong", "compatible", "ADDED"],
  ["a reserved range added (compatible)", "3", "  reserved 9, 12 to 14;", "  reserved 9, 12 to 14, 20;", "Order", "compatible", "CHANGED_COMPATIBLY"],
];

function analyze(before: string, after: string) {
  const r = analyzeContract("acme/orders/v1/orders.proto", Buffer.from(before), Buffer.from(after), hash);
  if (r === null) throw new Error("not read as a contract");
  return r;
}

describe(".proto files as symbols", () => {
  it("lists messages (nested too), fields, enums and their values, services and RPCs, without the package in their names", () => {
    const r = analyzeContract("orders.proto", null, Buffer.from(PROTO3), hash);
    const names = r?.symbols.map((s) => `${s.kind} ${s.qualified_name}`) ?? [];
    for (const n of [
      "message Order",
      "message Order.Line",
      "field Order.Line.sku",
      "field Order.labels",
      "field Order.card",
      "enum Status",
      "enum_member Status.STATUS_PAID",
      "interface OrderService",
      "operation OrderService.ListOrders",
    ])
      expect(names).toContain(n);
    expect(r?.symbols.find((s) => s.qualified_name === "Order.status")?.range.start_line).toBe(13);
    expect(r?.symbols.find((s) => s.qualified_name === "OrderService.Upload")?.range.start_line).toBe(43);
  });

  it("puts a field on its own message's line, where another message has a field of the same name and number", () => {
    const text =
      'syntax = "proto3";\npackage shop.v1;\n\nmessage A {\n  string name = 1;\n  string other = 2;\n}\n\nmessage B {\n  // B\'s own { \n  string name = 1;\n  enum Kind {\n    KIND_UNSPECIFIED = 0;\n  }\n  oneof choice {\n    string other = 2;\n  }\n}\n\nenum Kind {\n  KIND_UNSPECIFIED = 0;\n}\n';
    const r = analyzeContract("two.proto", null, Buffer.from(text), hash);
    const lineOf = (name: string) => r?.symbols.find((s) => s.qualified_name === name)?.range.start_line;
    const names = ["A.name", "A.other", "B", "B.name", "B.Kind", "B.Kind.KIND_UNSPECIFIED", "B.other", "Kind", "Kind.KIND_UNSPECIFIED"];
    expect(names.map(lineOf)).toEqual([5, 6, 9, 11, 12, 13, 16, 20, 21]);
  });

  it("finds declarations written on one line: a message, an enum and a service each on its own line", () => {
    const text =
      'syntax = "proto3";\npackage shop.v1;\n\nmessage A { string name = 1; }\nmessage B { string name = 1; message C { string name = 1; } }\nenum K { K_A = 0; K_B = 1; }\n/* message D { string name = 1; } */\nmessage D { enum K { K_A = 0; } string name = 1; }\nservice S { rpc Get(A) returns (B); rpc List(A) returns (stream B); }\n';
    const r = analyzeContract("one-line.proto", null, Buffer.from(text), hash);
    const lineOf = (name: string) => r?.symbols.find((s) => s.qualified_name === name)?.range.start_line;
    const names = ["A", "A.name", "B", "B.name", "B.C", "B.C.name", "K", "K.K_A", "K.K_B", "D", "D.K", "D.K.K_A", "D.name", "S", "S.Get", "S.List"];
    expect(names.map(lineOf)).toEqual([4, 4, 5, 5, 5, 5, 6, 6, 6, 8, 8, 8, 8, 9, 9, 9]);
  });

  it("says a file that does not parse", () => {
    const r = analyze(PROTO3, 'syntax = "proto3";\nmessage {\n');
    expect(r.changes).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
  });

  it("nothing but comments and layout changed: no change", () => {
    expect(analyze(PROTO3, PROTO3.replace("// An order.", "// An order, as the shop keeps it.").replace("  string id = 1;", "  string   id   =   1;")).changes).toEqual([]);
  });
});

describe(".proto verdicts: buf breaking's FILE rules, each on a pair", () => {
  for (const [rule, base, find, replace, symbol, compatibility, code] of ROWS) {
    it(rule, () => {
      const before = base === "3" ? PROTO3 : PROTO2;
      expect(before.includes(find), find).toBe(true);
      const r = analyze(before, before.replace(find, replace));
      expect(r.diagnostics).toEqual([]);
      const c = r.changes.find((x) => x.qualified_name === symbol);
      expect(c, JSON.stringify(r.changes.map((x) => [x.qualified_name, x.compatibility, x.reasons.map((y) => y.code)]))).toBeDefined();
      expect(c?.compatibility, JSON.stringify(c?.reasons)).toBe(compatibility);
      expect(c?.reasons.map((x) => x.code)).toContain(code);
      // Only what the rule names breaks: a compatible edit breaks nothing in the file.
      if (compatibility === "compatible") expect(r.changes.filter((x) => x.compatibility === "breaking")).toEqual([]);
    });
  }

  it("has at least 40 pairs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
  });
});

describe("a version kept in the contract cache (HEAD's, read edit after edit)", () => {
  it("gives every pair the verdicts and reasons of a version read anew, without parsing it again", async () => {
    const pairs = ROWS.map(([rule, base, find, replace]) => {
      const before = base === "3" ? PROTO3 : PROTO2;
      return [rule, before, before.replace(find, replace)] as const;
    });
    await expectCachedBeforeEqualsFresh("acme/orders/v1/orders.proto", pairs, hash, (p) => ({ object: p.protobufLib(), method: "parse" }));
  });
});
