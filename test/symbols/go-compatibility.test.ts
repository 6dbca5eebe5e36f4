import { beforeAll, describe, expect, it } from "vitest";
import { compareSymbols } from "../../src/symbols/compare-symbols.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { type CompatRow, checkCompatRow } from "../helpers/compat-rows.js";

let extractor: SymbolExtractor;
beforeAll(async () => {
  extractor = await createSymbolExtractor({ languages: ["go"] });
});

const P = "package store\n\n";

const check = (r: CompatRow): void => checkCompatRow(extractor, "go", "store/store.go", P, r);

const FN = "func Open(path string) (*DB, error) { return nil, nil }\n";
const IFACE = "type Store interface {\n\tGet(key string) ([]byte, error)\n}\n";
const STRUCT = "type Config struct {\n\tAddr string\n\tPort int\n}\n";

/** Held pairs, each rule of docs/compatibility.md's Go section at least once. */
const ROWS: readonly CompatRow[] = [
  { row: "exported function removed", before: FN, after: "", name: "Open", change: "removed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  { row: "exported function added", before: "", after: FN, name: "Open", change: "added", compatibility: "compatible", code: "EXPORT_ADDED" },
  { row: "unexported function removed", before: "func open() {}\n", after: "", name: "open", change: "removed", compatibility: "internal" },
  { row: "unexported function changed", before: "func open(a int) {}\n", after: "func open(a, b int) {}\n", name: "open", change: "signature_changed", compatibility: "internal" },
  { row: "parameter added", before: FN, after: FN.replace("path string", "path string, mode int"), name: "Open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_ADDED" },
  { row: "parameter removed", before: FN, after: FN.replace("path string", ""), name: "Open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_REMOVED" },
  { row: "parameter type changed", before: FN, after: FN.replace("path string", "path []byte"), name: "Open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_TYPE_CHANGED" },
  {
    row: "parameters reordered",
    before: "func F(a string, b int) {}\n",
    after: "func F(b int, a string) {}\n",
    name: "F",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_TYPE_CHANGED",
  },
  { row: "parameter renamed only", before: FN, after: FN.replace("path string", "name string"), name: "Open", change: "signature_changed", compatibility: "compatible", code: "PARAMETER_RENAMED" },
  {
    row: "variadic parameter added",
    before: FN,
    after: FN.replace("path string", "path string, opts ...Option"),
    name: "Open",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VARIADIC_PARAMETER_ADDED",
  },
  { row: "result added", before: "func Close() {}\n", after: "func Close() error { return nil }\n", name: "Close", change: "signature_changed", compatibility: "breaking", code: "RESULT_CHANGED" },
  { row: "result removed", before: FN, after: "func Open(path string) *DB { return nil }\n", name: "Open", change: "signature_changed", compatibility: "breaking", code: "RESULT_CHANGED" },
  { row: "result type changed", before: FN, after: FN.replace("*DB", "DB"), name: "Open", change: "signature_changed", compatibility: "breaking", code: "RESULT_CHANGED" },
  { row: "body changed only", before: FN, after: FN.replace("return nil, nil", "return &DB{}, nil"), name: "Open", change: "body_changed", compatibility: "internal" },
  {
    row: "type parameters changed",
    before: "func Map[K comparable](m map[K]int) {}\n",
    after: "func Map[K any](m map[K]int) {}\n",
    name: "Map",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_PARAMETERS_CHANGED",
  },
  {
    row: "method removed from a type",
    before: `${STRUCT}func (c *Config) Validate() error { return nil }\n`,
    after: STRUCT,
    name: "Config.Validate",
    change: "removed",
    compatibility: "breaking",
    code: "METHOD_REMOVED",
  },
  {
    row: "method added to a type",
    before: STRUCT,
    after: `${STRUCT}func (c *Config) Validate() error { return nil }\n`,
    name: "Config.Validate",
    change: "added",
    compatibility: "compatible",
    code: "METHOD_ADDED",
  },
  {
    row: "method of an unexported type removed",
    before: "type cfg struct{}\nfunc (c cfg) Validate() {}\n",
    after: "type cfg struct{}\n",
    name: "cfg.Validate",
    change: "removed",
    compatibility: "internal",
  },
  {
    row: "receiver became a pointer",
    before: `${STRUCT}func (c Config) String() string { return "" }\n`,
    after: `${STRUCT}func (c *Config) String() string { return "" }\n`,
    name: "Config.String",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RECEIVER_BECAME_POINTER",
  },
  {
    row: "receiver became a value",
    before: `${STRUCT}func (c *Config) String() string { return "" }\n`,
    after: `${STRUCT}func (c Config) String() string { return "" }\n`,
    name: "Config.String",
    change: "signature_changed",
    compatibility: "compatible",
    code: "RECEIVER_BECAME_VALUE",
  },
  {
    row: "method added to an interface",
    before: IFACE,
    after: IFACE.replace("}\n", "\tPut(key string, v []byte) error\n}\n"),
    name: "Store.Put",
    change: "added",
    compatibility: "breaking",
    code: "INTERFACE_METHOD_ADDED",
  },
  { row: "method removed from an interface", before: IFACE, after: "type Store interface {\n}\n", name: "Store.Get", change: "removed", compatibility: "breaking", code: "METHOD_REMOVED" },
  {
    row: "interface method's signature changed",
    before: IFACE,
    after: IFACE.replace("key string", "key []byte"),
    name: "Store.Get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_TYPE_CHANGED",
  },
  {
    row: "interface now embeds another",
    before: IFACE,
    after: IFACE.replace("}\n", "\tio.Closer\n}\n"),
    name: "Store",
    change: "signature_changed",
    compatibility: "breaking",
    code: "INTERFACE_EMBED_ADDED",
  },
  {
    row: "interface no longer embeds another",
    before: IFACE.replace("}\n", "\tio.Closer\n}\n"),
    after: IFACE,
    name: "Store",
    change: "signature_changed",
    compatibility: "breaking",
    code: "INTERFACE_EMBED_REMOVED",
  },
  { row: "exported field removed", before: STRUCT, after: STRUCT.replace("\tPort int\n", ""), name: "Config.Port", change: "removed", compatibility: "breaking", code: "PROPERTY_REMOVED" },
  { row: "exported field added", before: STRUCT, after: STRUCT.replace("}\n", "\tTLS bool\n}\n"), name: "Config.TLS", change: "added", compatibility: "compatible", code: "FIELD_ADDED" },
  {
    row: "field type changed",
    before: STRUCT,
    after: STRUCT.replace("Port int", "Port string"),
    name: "Config.Port",
    change: "signature_changed",
    compatibility: "breaking",
    code: "FIELD_TYPE_CHANGED",
  },
  { row: "field unexported", before: STRUCT, after: STRUCT.replace("Port int", "port int"), name: "Config.Port", change: "removed", compatibility: "breaking", code: "PROPERTY_REMOVED" },
  { row: "unexported field removed", before: STRUCT.replace("Port int", "port int"), after: STRUCT.replace("\tPort int\n", ""), name: "Config.port", change: "removed", compatibility: "internal" },
  { row: "embedded struct removed", before: STRUCT.replace("}\n", "\tBase\n}\n"), after: STRUCT, name: "Config.Base", change: "removed", compatibility: "breaking", code: "PROPERTY_REMOVED" },
  {
    row: "embedded struct became a pointer",
    before: STRUCT.replace("}\n", "\tBase\n}\n"),
    after: STRUCT.replace("}\n", "\t*Base\n}\n"),
    name: "Config.Base",
    change: "signature_changed",
    compatibility: "breaking",
    code: "EMBEDDED_TYPE_CHANGED",
  },
  {
    row: "struct became an interface",
    before: STRUCT,
    after: "type Config interface {\n\tAddr() string\n}\n",
    name: "Config",
    change: "signature_changed",
    compatibility: "breaking",
    code: "KIND_CHANGED",
  },
  { row: "defined type's underlying type changed", before: "type Mode int\n", after: "type Mode string\n", name: "Mode", change: "signature_changed", compatibility: "breaking", code: "TYPE_CHANGED" },
  { row: "defined type became an alias", before: "type ID string\n", after: "type ID = string\n", name: "ID", change: "signature_changed", compatibility: "breaking", code: "ALIAS_CHANGED" },
  { row: "constant's value changed", before: "const Limit = 10\n", after: "const Limit = 20\n", name: "Limit", change: "signature_changed", compatibility: "breaking", code: "CONST_VALUE_CHANGED" },
  { row: "constant became a variable", before: "const Limit = 10\n", after: "var Limit = 10\n", name: "Limit", change: "signature_changed", compatibility: "breaking", code: "CONST_CHANGED" },
  {
    row: "variable's type changed",
    before: "var Timeout int64\n",
    after: "var Timeout float64\n",
    name: "Timeout",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VARIABLE_TYPE_CHANGED",
  },
  { row: "exported function renamed", before: FN, after: FN.replace("Open(", "Connect("), name: "Connect", change: "renamed", compatibility: "breaking", code: "EXPORT_RENAMED" },
  { row: "type unexported", before: STRUCT, after: STRUCT.replace("type Config", "type config"), name: "Config", change: "removed", compatibility: "breaking" },
];

describe("Go compatibility (every row of docs/compatibility.md's Go section)", () => {
  for (const r of ROWS) it(r.row, () => check(r));
  it("comments, layout, parameters grouped otherwise and named results renamed are no change", () => {
    const same = (before: string, after: string) => expect(compareSymbols(extractor.extract("s.go", P + before).symbols, extractor.extract("s.go", P + after).symbols, "go")).toEqual([]);
    same(FN, `// Open opens it.\n\n${FN.replace("(path string)", "( path string )").replace("return nil, nil", "return nil, nil // none\n")}`);
    same("func F(a int, b int) {}\n", "func F(a, b int) {}\n");
    same("func F() (n int, err error) { return }\n", "func F() (count int, e error) { return }\n");
  });

  it("has at least 30 held pairs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });
});

describe("Go symbols", () => {
  it("qualifies methods by their receiver's type, fields and interface methods by theirs, and exports by Go's rule", () => {
    const src = `${P}import "context"\n\ntype Store interface {\n\tGet(ctx context.Context, key string) ([]byte, error)\n}\n\ntype server struct {\n\tAddr string\n}\n\nfunc (s *server) Start() error {\n\ttype local struct{ X int }\n\treturn nil\n}\n\nfunc New[T any](v T) *server { return nil }\n\nconst A, b = 1, 2\n`;
    const r = extractor.extract("store/store.go", src);
    expect(r.language).toBe("go");
    expect(r.symbols.map((s) => `${s.kind} ${s.qualified_name} ${s.exported ? "exported" : "-"}`)).toEqual([
      "variable A exported",
      "function New exported",
      "interface Store exported",
      "method Store.Get exported",
      "variable b -",
      "class server -",
      "property server.Addr -",
      "method server.Start -",
    ]);
    expect(r.symbols.find((s) => s.qualified_name === "Store.Get")?.range).toMatchObject({ start_line: 6, end_line: 6 });
    expect(r.references).toEqual(
      expect.arrayContaining([
        { kind: "import", name: "Context", module: "context" },
        { kind: "type", name: "context.Context", module: null },
      ]),
    );
  });
});
