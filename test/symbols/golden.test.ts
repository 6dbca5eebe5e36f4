import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, "fixtures");
/**
 * Golden files beside their inputs: `fixtures/kinds.ts` → `fixtures/kinds.ts.golden.json`.
 * Regenerate after an intended change with `UPDATE_GOLDENS=1 npx vitest run test/symbols/golden.test.ts`,
 * then read the diff.
 */
for (const parsePath of PARSE_PATHS)
  describe.skipIf(parsePath.skip)(`golden symbols per language, on the ${parsePath.name}`, () => {
    let extractor: SymbolExtractor;
    beforeAll(async () => {
      extractor = await createSymbolExtractor({ backend: parsePath.backend });
    });
    for (const name of ["kinds.ts", "kinds.tsx", "kinds.js", "kinds.cjs", "kinds.py"]) {
      it(name, () => {
        const result = extractor.extract(name, fs.readFileSync(path.join(fixtures, name)));
        const view = {
          language: result.language,
          diagnostics: result.diagnostics,
          symbols: result.symbols.map((s) => ({
            qualified_name: s.qualified_name,
            kind: s.kind,
            exported: s.exported,
            lines: `${s.range.start_line}-${s.range.end_line}`,
            signature: s.signature,
            signature_hash: s.signature_hash,
            body_hash: s.body_hash,
          })),
          references: result.references,
        };
        const golden = path.join(fixtures, `${name}.golden.json`);
        const text = `${JSON.stringify(view, null, 2)}\n`;
        if (process.env["UPDATE_GOLDENS"] === "1" || !fs.existsSync(golden)) fs.writeFileSync(golden, text);
        expect(text).toBe(fs.readFileSync(golden, "utf8"));
      });
    }
  });
