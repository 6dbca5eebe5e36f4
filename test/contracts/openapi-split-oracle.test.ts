import * as fs from "node:fs";
import * as path from "node:path";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { load } from "js-yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeContract } from "../../src/contracts/contract-files.js";
import { openapiRefFiles } from "../../src/contracts/openapi-contract.js";
import { loadContentHasher } from "../../src/snapshot/content-hasher.js";

// A real OpenAPI description split over 41 files (Redocly's openapi-starter, test/fixtures/openapi-starter), each of
// its schema and parameter files changed in turn: the operations Comity says changed must be exactly those whose
// definition changed once every `$ref` is resolved by @apidevtools/json-schema-ref-parser, the reference resolver.

const ROOT = path.resolve("test/fixtures/openapi-starter");
const DOC = "openapi/openapi.yaml";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let hash: (s: string) => string;
let files: Map<string, string>;
beforeAll(async () => {
  const h = await loadContentHasher();
  hash = (s) => h.xxh64(s);
  files = new Map();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (child.endsWith(".yaml")) files.set(child, fs.readFileSync(path.join(ROOT, child), "utf8"));
    }
  };
  walk("openapi");
});

/** Each file's change: a property added at the top of a schema's own properties; a parameter made required or optional, or its type changed. */
function mutations(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const [file, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (file.startsWith("openapi/components/schemas/") && /^properties:\n/m.test(text)) out.push({ file, text: text.replace(/^properties:\n/m, "properties:\n  zzOracle:\n    type: string\n") });
    // (a path parameter is required whatever it says: its type changes instead)
    else if (file.startsWith("openapi/components/parameters/") && /^in: path$/m.test(text)) {
      if (/^ {2}type: string$/m.test(text)) out.push({ file, text: text.replace(/^ {2}type: string$/m, "  type: integer") });
    } else if (file.startsWith("openapi/components/parameters/"))
      out.push({
        file,
        text: /^required: (true|false)$/m.test(text)
          ? text.replace(/^required: (true|false)$/m, (_, v: string) => `required: ${v === "true" ? "false" : "true"}`)
          : `${text.trimEnd()}\nrequired: true\n`,
      });
  }
  return out;
}

/** The operations whose definition differs between two versions, every `$ref` resolved by the reference resolver. */
async function oracle(before: Map<string, string>, after: Map<string, string>): Promise<string[]> {
  const resolved = async (texts: Map<string, string>): Promise<Record<string, unknown>> =>
    (await $RefParser.dereference(path.join(ROOT, DOC), {
      resolve: {
        file: {
          order: 1,
          canRead: true,
          // (the code samples it names are left out of the fixture: their text is no part of an operation's shape)
          read: (file: { url: string }) => texts.get(path.relative(ROOT, decodeURIComponent(file.url.replace(/^file:\/\//, "")))) ?? "sample",
        },
        http: false,
      },
      dereference: { circular: "ignore" },
    })) as Record<string, unknown>;
  const [b, a] = [await resolved(before), await resolved(after)];
  const ops = (doc: Record<string, unknown>): Map<string, string> => {
    const out = new Map<string, string>();
    for (const [p, item] of Object.entries((doc["paths"] ?? {}) as Record<string, Record<string, unknown>>))
      for (const m of METHODS) if (item[m] !== undefined) out.set(`${m.toUpperCase()} ${p}`, JSON.stringify({ shared: item["parameters"] ?? null, op: item[m] }));
    return out;
  };
  const [bo, ao] = [ops(b), ops(a)];
  return [...new Set([...bo.keys(), ...ao.keys()])].filter((k) => bo.get(k) !== ao.get(k)).sort();
}

describe("an OpenAPI description split over files: its $refs followed as the reference resolver follows them", () => {
  it("changes exactly the operations whose resolved definition changed, for each schema and parameter file changed", async () => {
    const changed = mutations();
    expect(changed.length).toBeGreaterThanOrEqual(20);
    const text = files.get(DOC) as string;
    let affected = 0;
    for (const m of changed) {
      const after = new Map(files);
      after.set(m.file, m.text);
      const refs = async (texts: Map<string, string>) => openapiRefFiles(DOC, text, async (p) => texts.get(p) ?? null);
      const r = analyzeContract(DOC, Buffer.from(text), Buffer.from(text), hash, { beforeFiles: await refs(files), afterFiles: await refs(after) });
      const ours = (r?.changes ?? []).filter((c) => c.kind === "operation").map((c) => c.qualified_name);
      const expected = await oracle(files, after);
      expect(ours.sort(), m.file).toEqual(expected);
      if (expected.length > 0) affected++;
    }
    // (not a vacuous agreement: most files reach an operation)
    expect(affected).toBeGreaterThanOrEqual(changed.length * 0.7);
  }, 60_000);

  it("reads the whole description: every operation, its schemas named by their files", async () => {
    const text = files.get(DOC) as string;
    const refs = await openapiRefFiles(DOC, text, async (p) => files.get(p) ?? null);
    expect([...refs.keys()].filter((p) => refs.get(p) === null)).toEqual([]);
    const r = analyzeContract(DOC, null, Buffer.from(text), hash, { afterFiles: refs });
    const doc = load(text) as { paths: Record<string, unknown> };
    expect(r?.symbols.filter((s) => s.kind === "operation").length).toBeGreaterThanOrEqual(Object.keys(doc.paths).length);
    const get = r?.symbols.find((s) => s.qualified_name === "GET /orders/{orderId}");
    expect(get?.signature).toContain('"200":"Order#');
  });
});
