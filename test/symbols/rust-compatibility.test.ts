import { beforeAll, describe, expect, it } from "vitest";
import { compareSymbols } from "../../src/symbols/compare-symbols.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { type CompatRow, checkCompatRow } from "../helpers/compat-rows.js";

let extractor: SymbolExtractor;
beforeAll(async () => {
  extractor = await createSymbolExtractor({ languages: ["rust"] });
});

const check = (r: CompatRow): void => checkCompatRow(extractor, "rust", "src/lib.rs", "", r);

const FN = "pub fn open(path: &str) -> Result<Db, Error> { todo!() }\n";
const TRAIT = "pub trait Store {\n    fn get(&self, key: &str) -> Option<Vec<u8>>;\n}\n";
const ENUM = "pub enum Event {\n    Key(u32),\n    Quit,\n}\n";
const STRUCT = "pub struct Config {\n    pub addr: String,\n    port: u16,\n}\n";
const IMPL = `${STRUCT}impl Config {\n    pub fn port(&self) -> u16 { self.port }\n}\n`;

/** Held pairs, each rule of docs/compatibility.md's Rust section at least once. */
const ROWS: readonly CompatRow[] = [
  { row: "pub function removed", before: FN, after: "", name: "open", change: "removed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  { row: "pub function added", before: "", after: FN, name: "open", change: "added", compatibility: "compatible", code: "EXPORT_ADDED" },
  { row: "pub function made private", before: FN, after: FN.replace("pub fn", "fn"), name: "open", change: "signature_changed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  { row: "pub function made pub(crate)", before: FN, after: FN.replace("pub fn", "pub(crate) fn"), name: "open", change: "signature_changed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  { row: "private function changed", before: "fn helper(a: u8) {}\n", after: "fn helper(a: u8, b: u8) {}\n", name: "helper", change: "signature_changed", compatibility: "internal" },
  { row: "parameter added", before: FN, after: FN.replace("path: &str", "path: &str, mode: Mode"), name: "open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_ADDED" },
  { row: "parameter removed", before: FN, after: FN.replace("path: &str", ""), name: "open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_REMOVED" },
  { row: "parameter type changed", before: FN, after: FN.replace("path: &str", "path: String"), name: "open", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_TYPE_CHANGED" },
  { row: "parameter renamed only", before: FN, after: FN.replace("path: &str", "p: &str"), name: "open", change: "signature_changed", compatibility: "compatible", code: "PARAMETER_RENAMED" },
  { row: "return type changed", before: FN, after: FN.replace("Result<Db, Error>", "Option<Db>"), name: "open", change: "signature_changed", compatibility: "breaking", code: "RETURN_TYPE_CHANGED" },
  { row: "generic parameter added", before: FN, after: FN.replace("open(", "open<P: AsRef<str>>("), name: "open", change: "signature_changed", compatibility: "breaking", code: "GENERIC_PARAM_ADDED" },
  {
    row: "generic bound added",
    before: "pub fn run<T: Clone>(t: T) {}\n",
    after: "pub fn run<T: Clone + Send>(t: T) {}\n",
    name: "run",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_BOUND_CHANGED",
  },
  {
    row: "where clause added",
    before: "pub fn run<T>(t: T) {}\n",
    after: "pub fn run<T>(t: T) where T: Send {}\n",
    name: "run",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_PARAM_ADDED",
  },
  {
    row: "generic parameter with a default added to a type",
    before: "pub struct Wrap<T>(T);\n",
    after: "pub struct Wrap<T, A = Global>(T, A);\n",
    name: "Wrap",
    change: "signature_changed",
    compatibility: "breaking",
    code: "GENERIC_PARAM_ADDED_WITH_DEFAULT",
  },
  { row: "became unsafe", before: FN, after: FN.replace("pub fn", "pub unsafe fn"), name: "open", change: "signature_changed", compatibility: "breaking", code: "UNSAFE_ADDED" },
  { row: "no longer unsafe", before: FN.replace("pub fn", "pub unsafe fn"), after: FN, name: "open", change: "signature_changed", compatibility: "compatible", code: "UNSAFE_REMOVED" },
  { row: "became async", before: FN, after: FN.replace("pub fn", "pub async fn"), name: "open", change: "signature_changed", compatibility: "breaking", code: "ASYNC_CHANGED" },
  {
    row: "const fn no longer const",
    before: "pub const fn size() -> usize { 4 }\n",
    after: "pub fn size() -> usize { 4 }\n",
    name: "size",
    change: "signature_changed",
    compatibility: "breaking",
    code: "CONST_FN_REMOVED",
  },
  { row: "method removed", before: IMPL, after: STRUCT, name: "Config.port", change: "removed", compatibility: "breaking", code: "METHOD_REMOVED" },
  { row: "method added", before: STRUCT, after: IMPL, name: "Config.port", change: "added", compatibility: "compatible", code: "METHOD_ADDED" },
  {
    row: "receiver &self became &mut self",
    before: IMPL,
    after: IMPL.replace("port(&self)", "port(&mut self)"),
    name: "Config.port",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RECEIVER_CHANGED",
  },
  {
    row: "receiver &mut self became &self",
    before: IMPL.replace("port(&self)", "port(&mut self)"),
    after: IMPL,
    name: "Config.port",
    change: "signature_changed",
    compatibility: "compatible",
    code: "RECEIVER_LOOSENED",
  },
  {
    row: "method became an associated function",
    before: IMPL,
    after: IMPL.replace("port(&self)", "port()"),
    name: "Config.port",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RECEIVER_CHANGED",
  },
  {
    row: "trait method added without a default",
    before: TRAIT,
    after: TRAIT.replace("}\n", "    fn put(&mut self, key: &str, v: Vec<u8>);\n}\n"),
    name: "Store.put",
    change: "added",
    compatibility: "breaking",
    code: "TRAIT_METHOD_ADDED",
  },
  {
    row: "trait method added with a default",
    before: TRAIT,
    after: TRAIT.replace("}\n", "    fn len(&self) -> usize { 0 }\n}\n"),
    name: "Store.len",
    change: "added",
    compatibility: "compatible",
    code: "TRAIT_METHOD_ADDED_WITH_DEFAULT",
  },
  {
    row: "trait method's default removed",
    before: TRAIT.replace("}\n", "    fn len(&self) -> usize { 0 }\n}\n"),
    after: TRAIT.replace("}\n", "    fn len(&self) -> usize;\n}\n"),
    name: "Store.len",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TRAIT_METHOD_DEFAULT_REMOVED",
  },
  {
    row: "trait associated type added",
    before: TRAIT,
    after: TRAIT.replace("}\n", "    type Key;\n}\n"),
    name: "Store.Key",
    change: "added",
    compatibility: "breaking",
    code: "TRAIT_ASSOCIATED_TYPE_ADDED",
  },
  { row: "trait method removed", before: TRAIT, after: "pub trait Store {\n}\n", name: "Store.get", change: "removed", compatibility: "breaking", code: "METHOD_REMOVED" },
  {
    row: "supertrait added",
    before: TRAIT,
    after: TRAIT.replace("pub trait Store {", "pub trait Store: Send {"),
    name: "Store",
    change: "signature_changed",
    compatibility: "breaking",
    code: "SUPERTRAITS_CHANGED",
  },
  {
    row: "trait impl method's signature changed with its trait",
    before: `${TRAIT}pub struct Mem;\nimpl Store for Mem {\n    fn get(&self, key: &str) -> Option<Vec<u8>> { None }\n}\n`,
    after: `${TRAIT.replace("key: &str", "key: &[u8]")}pub struct Mem;\nimpl Store for Mem {\n    fn get(&self, key: &[u8]) -> Option<Vec<u8>> { None }\n}\n`,
    name: "Mem.Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_TYPE_CHANGED",
  },
  {
    row: "enum variant added to an exhaustive enum",
    before: ENUM,
    after: ENUM.replace("    Quit,\n", "    Quit,\n    Resize(u16, u16),\n"),
    name: "Event.Resize",
    change: "added",
    compatibility: "breaking",
    code: "VARIANT_ADDED",
  },
  {
    row: "enum variant added to a #[non_exhaustive] enum",
    before: `#[non_exhaustive]\n${ENUM}`,
    after: `#[non_exhaustive]\n${ENUM.replace("    Quit,\n", "    Quit,\n    Resize(u16, u16),\n")}`,
    name: "Event.Resize",
    change: "added",
    compatibility: "compatible",
    code: "VARIANT_ADDED",
  },
  { row: "enum variant removed", before: ENUM, after: ENUM.replace("    Quit,\n", ""), name: "Event.Quit", change: "removed", compatibility: "breaking" },
  {
    row: "enum variant's fields changed",
    before: ENUM,
    after: ENUM.replace("Key(u32)", "Key(u64)"),
    name: "Event.Key",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VARIANT_FIELDS_CHANGED",
  },
  { row: "enum became #[non_exhaustive]", before: ENUM, after: `#[non_exhaustive]\n${ENUM}`, name: "Event", change: "signature_changed", compatibility: "breaking", code: "NON_EXHAUSTIVE_ADDED" },
  { row: "pub field removed", before: STRUCT, after: STRUCT.replace("    pub addr: String,\n", ""), name: "Config.addr", change: "removed", compatibility: "breaking", code: "PROPERTY_REMOVED" },
  { row: "pub field made private", before: STRUCT, after: STRUCT.replace("pub addr", "addr"), name: "Config.addr", change: "signature_changed", compatibility: "breaking", code: "EXPORT_REMOVED" },
  {
    row: "pub field's type changed",
    before: STRUCT,
    after: STRUCT.replace("addr: String", "addr: SocketAddr"),
    name: "Config.addr",
    change: "signature_changed",
    compatibility: "breaking",
    code: "FIELD_TYPE_CHANGED",
  },
  { row: "private field removed", before: STRUCT, after: STRUCT.replace("    port: u16,\n", ""), name: "Config.port", change: "removed", compatibility: "internal" },
  {
    row: "tuple struct's fields changed",
    before: "pub struct Id(pub u64);\n",
    after: "pub struct Id(pub u128);\n",
    name: "Id",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TUPLE_FIELDS_CHANGED",
  },
  {
    row: "type alias changed",
    before: "pub type Map = HashMap<String, u8>;\n",
    after: "pub type Map = BTreeMap<String, u8>;\n",
    name: "Map",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_CHANGED",
  },
  {
    row: "constant's type changed",
    before: "pub const LIMIT: usize = 10;\n",
    after: "pub const LIMIT: u32 = 10;\n",
    name: "LIMIT",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_CHANGED",
  },
  {
    row: "constant's value changed",
    before: "pub const LIMIT: usize = 10;\n",
    after: "pub const LIMIT: usize = 20;\n",
    name: "LIMIT",
    change: "signature_changed",
    compatibility: "compatible",
    code: "CONST_VALUE_CHANGED",
  },
  { row: "struct became an enum", before: "pub struct Mode;\n", after: "pub enum Mode { A }\n", name: "Mode", change: "signature_changed", compatibility: "breaking", code: "KIND_CHANGED" },
  { row: "pub function renamed", before: FN, after: FN.replace("open(", "connect("), name: "connect", change: "renamed", compatibility: "breaking", code: "EXPORT_RENAMED" },
  {
    row: "item of a private module changed",
    before: "mod inner {\n    pub fn f(a: u8) {}\n}\n",
    after: "mod inner {\n    pub fn f(a: u8, b: u8) {}\n}\n",
    name: "inner.f",
    change: "signature_changed",
    compatibility: "internal",
  },
];

describe("Rust compatibility (every row of docs/compatibility.md's Rust section)", () => {
  for (const r of ROWS) it(r.row, () => check(r));

  it("comments, layout and a body's own changes are no public change; an impl of two traits' methods of one name are two symbols", () => {
    const same = (before: string, after: string) => expect(compareSymbols(extractor.extract("l.rs", before).symbols, extractor.extract("l.rs", after).symbols, "rust")).toEqual([]);
    same(FN, `/// Opens it.\n${FN.replace("(path: &str)", "( path : &str )")}`);
    const two = "pub struct T;\nimpl A for T { fn run(&self) {} }\nimpl B for T { fn run(&self) {} }\n";
    expect(extractor.extract("l.rs", two).symbols.map((s) => s.qualified_name)).toEqual(["T", "T.A.run", "T.B.run"]);
  });

  it("has at least 30 held pairs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });
});
