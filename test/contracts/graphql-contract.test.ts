import { buildSchema, findBreakingChanges, findDangerousChanges } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { compareGraphql, coordinateOf, graphqlSymbols } from "../../src/contracts/graphql-contract.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";

let hash: (s: string) => string;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
});

const BASE = `
directive @auth(role: Role = USER, scope: String) repeatable on FIELD_DEFINITION | OBJECT
scalar Date
enum Role { ADMIN USER GUEST }
interface Node { id: ID! }
interface Named { name: String }
type User implements Node & Named {
  id: ID!
  name: String
  email: String!
  role: Role
  posts(first: Int = 10, after: String): [Post!]!
  born: Date
}
type Post implements Node { id: ID! title: String! author: User }
union SearchResult = User | Post
input NewPost { title: String! body: String tags: [String!] }
type Query {
  user(id: ID!): User
  search(term: String!, limit: Int = 20): [SearchResult!]!
  posts: [Post!]!
}
type Mutation { createPost(input: NewPost!): Post }
type Audit { at: Date by: User }
`;

/** Each pair: a name and the schema after an edit of BASE (a replacement of one text by another). */
const EDITS: ReadonlyArray<[string, string, string]> = [
  ["type removed", "type Audit { at: Date by: User }\n", ""],
  ["type changed kind", "scalar Date", "type Date { iso: String }"],
  ["type removed from union", "union SearchResult = User | Post", "union SearchResult = User"],
  ["type added to union", "union SearchResult = User | Post", "union SearchResult = User | Post | Extra\ntype Extra { x: Int }"],
  ["enum value removed", "enum Role { ADMIN USER GUEST }", "enum Role { ADMIN USER }"],
  ["enum value added", "enum Role { ADMIN USER GUEST }", "enum Role { ADMIN USER GUEST OWNER }"],
  ["required input field added", "input NewPost { title: String! body: String tags: [String!] }", "input NewPost { title: String! body: String tags: [String!] slug: String! }"],
  ["optional input field added", "input NewPost { title: String! body: String tags: [String!] }", "input NewPost { title: String! body: String tags: [String!] slug: String }"],
  [
    "input field with a default added (optional)",
    "input NewPost { title: String! body: String tags: [String!] }",
    'input NewPost { title: String! body: String tags: [String!] lang: String! = "en" }',
  ],
  ["interface removed from object", "type User implements Node & Named {", "type User implements Node {"],
  ["interface added to object", "type Post implements Node {", "type Post implements Node & Named { name: String "],
  ["field removed", "  email: String!\n", ""],
  ["field type narrowed to nullable (output: breaking)", "  email: String!", "  email: String"],
  ["field type made non-null (output: safe)", "  name: String\n  email", "  name: String!\n  email"],
  ["field changed to another type", "  role: Role", "  role: String"],
  ["field made a list", "  born: Date", "  born: [Date]"],
  ["required arg added", "  user(id: ID!): User", "  user(id: ID!, tenant: String!): User"],
  ["optional arg added", "  user(id: ID!): User", "  user(id: ID!, tenant: String): User"],
  ["required arg with a default added (optional)", "  user(id: ID!): User", '  user(id: ID!, tenant: String! = "main"): User'],
  ["arg removed", "search(term: String!, limit: Int = 20)", "search(term: String!)"],
  ["arg type changed", "user(id: ID!)", "user(id: Int!)"],
  ["arg made nullable (input: safe)", "user(id: ID!)", "user(id: ID)"],
  ["arg made non-null (input: breaking)", "after: String)", "after: String!)"],
  ["arg default changed", "limit: Int = 20", "limit: Int = 50"],
  ["arg default removed", "first: Int = 10", "first: Int"],
  ["input field type changed", "body: String tags", "body: Int tags"],
  ["input field made non-null", "body: String tags", "body: String! tags"],
  ["input field removed", " body: String tags: [String!] }", " tags: [String!] }"],
  ["directive removed", "directive @auth(role: Role = USER, scope: String) repeatable on FIELD_DEFINITION | OBJECT\n", ""],
  ["directive arg removed", "directive @auth(role: Role = USER, scope: String)", "directive @auth(role: Role = USER)"],
  ["required directive arg added", "directive @auth(role: Role = USER, scope: String)", "directive @auth(role: Role = USER, scope: String, level: Int!)"],
  ["directive repeatable removed", ") repeatable on", ") on"],
  ["directive location removed", "on FIELD_DEFINITION | OBJECT", "on FIELD_DEFINITION"],
  ["directive location added (safe)", "on FIELD_DEFINITION | OBJECT", "on FIELD_DEFINITION | OBJECT | INTERFACE"],
  ["field added (safe)", "  born: Date\n", "  born: Date\n  nickname: String\n"],
  ["type added (safe)", "scalar Date", "scalar Date\ntype Tag { label: String! }"],
  ["description changed (safe)", "type Post implements", '"A blog post"\ntype Post implements'],
  ["field deprecated (safe)", "  born: Date", '  born: Date @deprecated(reason: "use birthday")'],
  ["query field removed", "  posts: [Post!]!\n}\ntype Mutation", "}\ntype Mutation"],
  ["mutation arg type changed", "createPost(input: NewPost!)", "createPost(input: String!)"],
  ["list item made nullable (output: breaking)", "posts(first: Int = 10, after: String): [Post!]!", "posts(first: Int = 10, after: String): [Post]!"],
  ["nothing changed", "type Query {", "type Query {"],
];

function edited(find: string, replace: string): string {
  expect(BASE.includes(find), find).toBe(true);
  return BASE.replace(find, replace);
}

describe("GraphQL SDL as symbols", () => {
  it("lists types, fields with their arguments, enum values and directives, extensions on their type", () => {
    const { symbols, diagnostics } = graphqlSymbols("schema.graphql", `${BASE}\nextend type Query { me: User }\n`, hash);
    expect(diagnostics).toEqual([]);
    const byName = new Map(symbols.map((s) => [s.qualified_name, s]));
    expect(byName.get("User")).toMatchObject({ kind: "type", exported: true, signature: "type User implements Node & Named" });
    expect(byName.get("User.posts")).toMatchObject({ kind: "field", signature: "posts(first: Int = 10, after: String): [Post!]!" });
    expect(byName.get("Role.GUEST")?.kind).toBe("enum_member");
    expect(byName.get("@auth")?.signature).toBe("directive @auth(role: Role = USER, scope: String) repeatable on FIELD_DEFINITION | OBJECT");
    expect(byName.get("Query.me")?.kind).toBe("field");
    expect(byName.get("NewPost.title")?.signature).toBe("title: String!");
    expect(byName.get("User.posts")?.range.start_line).toBe(12);
  });

  it("says a document that does not parse, with no symbols", () => {
    const r = graphqlSymbols("bad.graphql", "type User { id: }", hash);
    expect(r.symbols).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["parse_error"]);
  });
});

describe("GraphQL verdicts against graphql-js's findBreakingChanges (oracle)", () => {
  for (const [name, find, replace] of EDITS) {
    it(name, () => {
      const after = edited(find, replace);
      const oldSchema = buildSchema(BASE);
      const newSchema = buildSchema(after);
      const breaking = findBreakingChanges(oldSchema, newSchema);
      const dangerous = findDangerousChanges(oldSchema, newSchema);
      const changes = compareGraphql({ text: BASE, symbols: graphqlSymbols("s.graphql", BASE, hash).symbols }, { text: after, symbols: graphqlSymbols("s.graphql", after, hash).symbols });
      // The edit breaks clients exactly when graphql-js says so.
      expect(
        changes.some((c) => c.compatibility === "breaking"),
        JSON.stringify(changes),
      ).toBe(breaking.length > 0);
      // Each change graphql-js names is on the symbol it describes, with its type as the reason and the same verdict.
      for (const c of breaking) {
        const on = changes.find((x) => x.qualified_name === coordinateOf(c.type, c.description));
        expect(on?.compatibility, c.description).toBe("breaking");
        expect(on?.reasons.some((r) => r.code === c.type && r.verdict === "breaking")).toBe(true);
      }
      for (const c of dangerous) {
        const on = changes.find((x) => x.qualified_name === coordinateOf(c.type, c.description));
        expect(
          on?.reasons.some((r) => r.code === c.type && r.verdict === "compatible"),
          c.description,
        ).toBe(true);
      }
    });
  }

  it("covers every kind of change graphql-js knows", () => {
    const seen = new Set<string>();
    for (const [, find, replace] of EDITS) {
      const [o, n] = [buildSchema(BASE), buildSchema(edited(find, replace))];
      for (const c of [...findBreakingChanges(o, n), ...findDangerousChanges(o, n)]) seen.add(c.type);
    }
    expect([...seen].sort()).toEqual(
      [
        "ARG_CHANGED_KIND",
        "ARG_DEFAULT_VALUE_CHANGE",
        "ARG_REMOVED",
        "DIRECTIVE_ARG_REMOVED",
        "DIRECTIVE_LOCATION_REMOVED",
        "DIRECTIVE_REMOVED",
        "DIRECTIVE_REPEATABLE_REMOVED",
        "FIELD_CHANGED_KIND",
        "FIELD_REMOVED",
        "IMPLEMENTED_INTERFACE_ADDED",
        "IMPLEMENTED_INTERFACE_REMOVED",
        "OPTIONAL_ARG_ADDED",
        "OPTIONAL_INPUT_FIELD_ADDED",
        "REQUIRED_ARG_ADDED",
        "REQUIRED_DIRECTIVE_ARG_ADDED",
        "REQUIRED_INPUT_FIELD_ADDED",
        "TYPE_ADDED_TO_UNION",
        "TYPE_CHANGED_KIND",
        "TYPE_REMOVED",
        "TYPE_REMOVED_FROM_UNION",
        "VALUE_ADDED_TO_ENUM",
        "VALUE_REMOVED_FROM_ENUM",
      ].sort(),
    );
  });

  it("reads a document that is part of a larger schema: unknown types as scalars, an extension as its type", () => {
    const before = "extend type Query { orders(status: Status): [Order!]! }\n";
    const after = "extend type Query { orders(status: Status!): [Order!]! }\n";
    const changes = compareGraphql({ text: before, symbols: graphqlSymbols("o.graphql", before, hash).symbols }, { text: after, symbols: graphqlSymbols("o.graphql", after, hash).symbols });
    expect(changes, JSON.stringify(changes)).toEqual([
      expect.objectContaining({ qualified_name: "Query.orders", change: "signature_changed", compatibility: "breaking", reasons: [expect.objectContaining({ code: "ARG_CHANGED_KIND" })] }),
    ]);
  });

  it("a new file: everything added, compatible; a deleted one: everything removed, breaking", () => {
    const symbols = graphqlSymbols("s.graphql", BASE, hash).symbols;
    expect(compareGraphql(null, { text: BASE, symbols }).every((c) => c.change === "added" && c.compatibility === "compatible")).toBe(true);
    expect(compareGraphql({ text: BASE, symbols }, null).every((c) => c.change === "removed" && c.compatibility === "breaking")).toBe(true);
  });
});
