import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeContract } from "../../src/contracts/contract-files.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";

// Contract files are untrusted text: whatever they hold, reading and comparing them never throws, and ends.

let hash: (s: string) => string;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
});

const SEEDS: Record<string, string> = {
  "schema.graphql":
    "type Query { user(id: ID!): User }\ntype User implements Node { id: ID! name: String @deprecated }\nextend type User { age: Int }\nunion U = User\nenum E { A B }\ninput I { a: Int = 1 }\ndirective @d(a: Int) on FIELD\n",
  "openapi.yaml":
    'openapi: 3.0.0\npaths:\n  /a/{id}:\n    get:\n      parameters: [{ name: id, in: path, schema: { $ref: "#/components/schemas/A" } }]\n      responses: { "200": { content: { application/json: { schema: { $ref: "#/components/schemas/A" } } } } }\ncomponents:\n  schemas:\n    A: { type: object, properties: { b: { $ref: "#/components/schemas/A" } }, required: [b] }\n',
  "api.proto":
    'syntax = "proto3";\npackage p;\nmessage M { reserved 2; string a = 1; oneof o { int32 b = 3; } map<string, M> m = 4; }\nenum E { Z = 0; }\nservice S { rpc R(M) returns (stream M); }\n',
};

/** A seed with some of its characters replaced, removed or doubled. */
const mutated = (seed: string) =>
  fc.array(fc.tuple(fc.nat(seed.length), fc.constantFrom("", "{", "}", ":", "\n", "  ", '"', "$ref", "#/", "[", "&a", "*a", "=", ";", "\u0000")), { maxLength: 8 }).map((edits) => {
    let s = seed;
    for (const [at, text] of edits) s = `${s.slice(0, at)}${text}${s.slice(at + (text === "" ? 1 : 0))}`;
    return s;
  });

describe("contract parsers on hostile text", () => {
  for (const [name, seed] of Object.entries(SEEDS)) {
    it(`${name}: mutations and random text are read or refused, never thrown`, () => {
      fc.assert(
        fc.property(fc.oneof(mutated(seed), fc.string({ maxLength: 400 })), (text) => {
          const r = analyzeContract(name, Buffer.from(seed), Buffer.from(text), hash);
          expect(r).not.toBeNull();
          for (const c of r?.changes ?? []) expect(["breaking", "compatible", "internal"]).toContain(c.compatibility);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("a YAML alias bomb is refused, not expanded", () => {
    const bomb = `openapi: 3.0.0\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`;
    const r = analyzeContract("openapi.yaml", null, Buffer.from(bomb), hash);
    expect(r?.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
  });
});
