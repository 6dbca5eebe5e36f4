import { beforeAll, describe, expect, it } from "vitest";
import { compareSymbols } from "../../src/symbols/compare-symbols.js";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { type CompatRow, checkCompatRow } from "../helpers/compat-rows.js";

let extractor: SymbolExtractor;
beforeAll(async () => {
  extractor = await createSymbolExtractor({ languages: ["java"] });
});

const P = "package com.acme.store;\n\n";

const check = (r: CompatRow): void => checkCompatRow(extractor, "java", "Store.java", P, r);

const cls = (body: string, head = "public class Store") => `${head} {\n${body}}\n`;
const GET = "  public byte[] get(String key) { return null; }\n";
const IFACE = "public interface Cache {\n  byte[] get(String key);\n}\n";

/** Held pairs, each rule of docs/compatibility.md's Java section at least once. */
const ROWS: readonly CompatRow[] = [
  { row: "public method removed", before: cls(GET), after: cls(""), name: "Store.get", change: "removed", compatibility: "breaking", code: "METHOD_REMOVED" },
  { row: "public method added", before: cls(""), after: cls(GET), name: "Store.get", change: "added", compatibility: "compatible", code: "METHOD_ADDED" },
  {
    row: "private method changed",
    before: cls("  private int size(int a) { return a; }\n"),
    after: cls("  private int size(int a, int b) { return a; }\n"),
    name: "Store.size",
    change: "signature_changed",
    compatibility: "internal",
  },
  { row: "package-private method removed", before: cls("  int size() { return 0; }\n"), after: cls(""), name: "Store.size", change: "removed", compatibility: "internal" },
  {
    row: "parameter type changed",
    before: cls(GET),
    after: cls(GET.replace("String key", "byte[] key")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_TYPE_CHANGED",
  },
  {
    row: "parameter added",
    before: cls(GET),
    after: cls(GET.replace("String key", "String key, int ttl")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED",
  },
  { row: "parameter removed", before: cls(GET), after: cls(GET.replace("String key", "")), name: "Store.get", change: "signature_changed", compatibility: "breaking", code: "PARAMETER_REMOVED" },
  {
    row: "parameter renamed",
    before: cls(GET),
    after: cls(GET.replace("String key", "String k")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "compatible",
    code: "PARAMETER_RENAMED",
  },
  {
    row: "return type changed",
    before: cls(GET),
    after: cls(GET.replace("byte[] get", "Object get")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_TYPE_CHANGED",
  },
  {
    row: "checked exception added",
    before: cls(GET),
    after: cls(GET.replace("get(String key)", "get(String key) throws IOException")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "EXCEPTION_ADDED",
  },
  {
    row: "exception removed",
    before: cls(GET.replace("get(String key)", "get(String key) throws IOException")),
    after: cls(GET),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "compatible",
    code: "EXCEPTION_REMOVED",
  },
  {
    row: "overload added",
    before: cls(GET),
    after: cls(`${GET}  public byte[] get(String key, int ttl) { return null; }\n`),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "compatible",
    code: "OVERLOAD_ADDED",
  },
  {
    row: "overload removed",
    before: cls(`${GET}  public byte[] get(String key, int ttl) { return null; }\n`),
    after: cls(GET),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "OVERLOAD_REMOVED",
  },
  {
    row: "overload's return type changed, the other kept",
    before: cls(`${GET}  public byte[] get(int id) { return null; }\n`),
    after: cls(`${GET}  public Object get(int id) { return null; }\n`),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "RETURN_TYPE_CHANGED",
  },
  {
    row: "private overload removed",
    before: cls(`${GET}  private byte[] get(int id) { return null; }\n`),
    after: cls(GET),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "compatible",
    code: "HIDDEN_OVERLOAD_CHANGED",
  },
  {
    row: "public became protected",
    before: cls(GET),
    after: cls(GET.replace("public byte", "protected byte")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "VISIBILITY_NARROWED",
  },
  {
    row: "protected became public",
    before: cls(GET.replace("public byte", "protected byte")),
    after: cls(GET),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "compatible",
    code: "VISIBILITY_WIDENED",
  },
  {
    row: "public became private",
    before: cls(GET),
    after: cls(GET.replace("public byte", "private byte")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "EXPORT_REMOVED",
  },
  {
    row: "method became static",
    before: cls(GET),
    after: cls(GET.replace("public byte", "public static byte")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "STATIC_CHANGED",
  },
  {
    row: "method became final",
    before: cls(GET),
    after: cls(GET.replace("public byte", "public final byte")),
    name: "Store.get",
    change: "signature_changed",
    compatibility: "breaking",
    code: "FINAL_ADDED",
  },
  { row: "class became final", before: cls(GET), after: cls(GET, "public final class Store"), name: "Store", change: "signature_changed", compatibility: "breaking", code: "FINAL_ADDED" },
  { row: "class became abstract", before: cls(GET), after: cls(GET, "public abstract class Store"), name: "Store", change: "signature_changed", compatibility: "breaking", code: "BECAME_ABSTRACT" },
  {
    row: "abstract method added to an abstract class",
    before: cls(GET, "public abstract class Store"),
    after: cls(`${GET}  public abstract void flush();\n`, "public abstract class Store"),
    name: "Store.flush",
    change: "added",
    compatibility: "breaking",
    code: "ABSTRACT_METHOD_ADDED",
  },
  {
    row: "abstract method added to an interface",
    before: IFACE,
    after: IFACE.replace("}\n", "  void put(String key, byte[] v);\n}\n"),
    name: "Cache.put",
    change: "added",
    compatibility: "breaking",
    code: "INTERFACE_METHOD_ADDED",
  },
  {
    row: "default method added to an interface",
    before: IFACE,
    after: IFACE.replace("}\n", "  default int size() { return 0; }\n}\n"),
    name: "Cache.size",
    change: "added",
    compatibility: "compatible",
    code: "DEFAULT_METHOD_ADDED",
  },
  {
    row: "default body removed",
    before: IFACE.replace("}\n", "  default int size() { return 0; }\n}\n"),
    after: IFACE.replace("}\n", "  int size();\n}\n"),
    name: "Cache.size",
    change: "signature_changed",
    compatibility: "breaking",
    code: "DEFAULT_REMOVED",
  },
  { row: "interface method removed", before: IFACE, after: "public interface Cache {\n}\n", name: "Cache.get", change: "removed", compatibility: "breaking" },
  {
    row: "supertype removed",
    before: cls(GET, "public class Store implements AutoCloseable"),
    after: cls(GET),
    name: "Store",
    change: "signature_changed",
    compatibility: "breaking",
    code: "SUPERTYPE_CHANGED",
  },
  {
    row: "supertype added",
    before: cls(GET),
    after: cls(GET, "public class Store implements AutoCloseable"),
    name: "Store",
    change: "signature_changed",
    compatibility: "compatible",
    code: "SUPERTYPE_ADDED",
  },
  {
    row: "type parameter bound changed",
    before: cls(GET, "public class Store<K>"),
    after: cls(GET, "public class Store<K extends Comparable<K>>"),
    name: "Store",
    change: "signature_changed",
    compatibility: "breaking",
    code: "TYPE_PARAMETERS_CHANGED",
  },
  { row: "public field removed", before: cls("  public int size;\n"), after: cls(""), name: "Store.size", change: "removed", compatibility: "breaking" },
  {
    row: "public field's type changed",
    before: cls("  public int size;\n"),
    after: cls("  public long size;\n"),
    name: "Store.size",
    change: "signature_changed",
    compatibility: "breaking",
    code: "FIELD_TYPE_CHANGED",
  },
  {
    row: "constant's value changed",
    before: cls("  public static final int LIMIT = 10;\n"),
    after: cls("  public static final int LIMIT = 20;\n"),
    name: "Store.LIMIT",
    change: "signature_changed",
    compatibility: "compatible",
    code: "CONSTANT_VALUE_CHANGED",
  },
  { row: "enum constant removed", before: "public enum Mode { READ, WRITE }\n", after: "public enum Mode { READ }\n", name: "Mode.WRITE", change: "removed", compatibility: "breaking" },
  {
    row: "enum constant added",
    before: "public enum Mode { READ }\n",
    after: "public enum Mode { READ, WRITE }\n",
    name: "Mode.WRITE",
    change: "added",
    compatibility: "compatible",
    code: "ENUM_CONSTANT_ADDED",
  },
  {
    row: "public constructor's parameters changed",
    before: cls("  public Store(String path) {}\n"),
    after: cls("  public Store(String path, int mode) {}\n"),
    name: "Store.<init>",
    change: "signature_changed",
    compatibility: "breaking",
    code: "PARAMETER_ADDED",
  },
  { row: "class became an interface", before: cls(""), after: "public interface Store {\n}\n", name: "Store", change: "signature_changed", compatibility: "breaking", code: "KIND_CHANGED" },
  {
    row: "nested public class's method removed",
    before: cls(`  public static class Builder {\n${GET}  }\n`),
    after: cls("  public static class Builder {\n  }\n"),
    name: "Store.Builder.get",
    change: "removed",
    compatibility: "breaking",
  },
  {
    row: "member of a package-private class removed",
    before: `${cls("")}class Helper {\n${GET}}\n`,
    after: `${cls("")}class Helper {\n}\n`,
    name: "Helper.get",
    change: "removed",
    compatibility: "internal",
  },
  { row: "public method renamed", before: cls(GET), after: cls(GET.replace(" get(", " fetch(")), name: "Store.fetch", change: "renamed", compatibility: "breaking", code: "EXPORT_RENAMED" },
];

describe("Java compatibility (every row of docs/compatibility.md's Java section)", () => {
  for (const r of ROWS) it(r.row, () => check(r));

  it("comments, layout and annotations that are not API are no change; a method's body is internal", () => {
    const b = extractor.extract("S.java", P + cls(GET));
    const a = extractor.extract("S.java", `${P}/** The store. */\n${cls(GET.replace("public byte[] get(String key)", "@Override\n  public byte[]  get( String key )"))}`);
    // (a type's body holds its members: it reads as changed, internally)
    expect(compareSymbols(b.symbols, a.symbols, "java").filter((c) => c.compatibility !== "internal" || c.qualified_name !== "Store")).toEqual([]);
  });

  it("has at least 30 held pairs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });
});
