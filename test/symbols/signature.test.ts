import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalSignature } from "../../src/symbols/signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../../src/symbols/types.js";

// What the canonical form is defined as (and what it was built as before it was written directly): the oracle.
function reference(s: SignatureInfo, withName = true): string {
  const one = (x: SignatureInfo): unknown[] => [
    withName ? x.name : "",
    x.kind,
    [...x.modifiers].sort(),
    x.type_params.map((t: TypeParamInfo) => [t.name, t.constraint, t.default]),
    x.params === null ? null : x.params.map((p: ParamInfo) => [p.name, p.kind, p.optional, p.default, p.type]),
    x.returns,
    x.heritage,
    x.type,
    x.value,
  ];
  return JSON.stringify([one(s), s.overloads.map(one)]);
}

// Any text, with what JSON escapes: quotes, backslashes, control characters, lone surrogates.
const text = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom('"', "\\", "\n", "\u0000", "\ud800", "é😀", "a b"));
const maybe = fc.option(text, { nil: null });
const kinds: SymbolKind[] = ["function", "class", "method", "property", "variable", "type", "interface", "enum"];
const param: fc.Arbitrary<ParamInfo> = fc.record({
  name: text,
  kind: fc.constantFrom<ParamInfo["kind"]>("positional", "positional_only", "positional_or_keyword", "keyword_only", "rest", "var_keyword"),
  optional: fc.boolean(),
  default: maybe,
  type: maybe,
});
const typeParam: fc.Arbitrary<TypeParamInfo> = fc.record({ name: text, constraint: maybe, default: maybe });
const base = {
  name: text,
  kind: fc.constantFrom(...kinds),
  modifiers: fc.array(text, { maxLength: 4 }),
  type_params: fc.array(typeParam, { maxLength: 3 }),
  params: fc.option(fc.array(param, { maxLength: 4 }), { nil: null }),
  returns: maybe,
  heritage: fc.array(text, { maxLength: 3 }),
  type: maybe,
  value: maybe,
};
const overload: fc.Arbitrary<SignatureInfo> = fc.record({ ...base, overloads: fc.constant([]) });
const signature: fc.Arbitrary<SignatureInfo> = fc.record({ ...base, overloads: fc.array(overload, { maxLength: 3 }) });

describe("canonicalSignature", () => {
  it("is the JSON of the signature's canonical arrays, byte for byte, with or without the name", () => {
    fc.assert(
      fc.property(signature, fc.boolean(), (s, withName) => {
        expect(canonicalSignature(s, withName)).toBe(reference(s, withName));
      }),
      { numRuns: 3000 },
    );
  });
});
