import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { expect } from "vitest";

let validate: ValidateFunction | null = null;

/** Asserts that a `comity analyze --json` document conforms to `schema/analyze.v2.schema.json` (the errors in the message otherwise). */
export function expectAnalyzeSchema(doc: unknown): void {
  if (validate === null) {
    const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../schema/analyze.v2.schema.json");
    validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(fs.readFileSync(file, "utf8")) as object);
  }
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
}
