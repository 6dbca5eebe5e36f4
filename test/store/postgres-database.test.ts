import { describe, expect, it } from "vitest";
import { inlined, numbered } from "../../src/store/postgres-database.js";

const quote = (v: string): string => `'${v.replace(/'/g, "''")}'`;

describe("a statement's parameters written in as literals (the writes sent with a COMMIT)", () => {
  it("writes each kind of value the core binds, in order, and leaves what a value holds alone", () => {
    expect(inlined("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [7, 1.5, "it's ?", null, undefined, true], quote)).toBe("INSERT INTO t VALUES (7, 1.5, 'it''s ?', NULL, NULL, TRUE)");
    expect(inlined("SELECT 1", [], quote)).toBe("SELECT 1");
    expect(inlined("SELECT 3-?", [-5], quote)).toBe("SELECT 3-(-5)");
  });

  it("refuses what it cannot write as a literal, and a count of parameters that does not match the placeholders", () => {
    expect(() => inlined("SELECT ?", [Number.NaN], quote)).toThrow(/cannot be written/);
    expect(() => inlined("SELECT ?", [{ a: 1 }], quote)).toThrow(/cannot be written/);
    expect(() => inlined("SELECT ?", [Buffer.from("x")], quote)).toThrow(/cannot be written/);
    expect(() => inlined("SELECT ?, ?", [1], quote)).toThrow(/more placeholders/);
    expect(() => inlined("SELECT ?", [1, 2], quote)).toThrow(/1 placeholders for 2/);
  });

  it("numbers placeholders for the extended protocol as before", () => {
    expect(numbered("SELECT ? WHERE a = ? AND b IN (?, ?)")).toBe("SELECT $1 WHERE a = $2 AND b IN ($3, $4)");
  });
});
