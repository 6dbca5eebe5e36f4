import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { computeExtractionFingerprint, EXTRACTION_SOURCES, EXTRACTOR_VERSION, FINGERPRINT_FILE } from "../../src/symbols/extractor-version.js";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "comity-fingerprint-"));
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  put("src/symbols/extract-symbols.ts", "export const a = 1;\n");
  put("src/parse/query/typescript.scm", "(function_declaration) @f\n");
  put("grammars/python/definitions.scm", "(class_definition) @c\n");
  put("native/flat_parse.c", "int x;\n");
  put("native/hook-client/comity_hook.c", "int main(void) { return 0; }\n");
  put("native/tree-sitter/src/parser.c", "int y;\n");
  put("src/cli/main.ts", "export {};\n");
  put("node_modules/tree-sitter-python/package.json", JSON.stringify({ version: "0.25.0" }));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("the extraction's version", () => {
  it("changes with any source of the extraction, a grammar's version included, and with nothing else", () => {
    const first = computeExtractionFingerprint(root);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(computeExtractionFingerprint(root)).toBe(first);
    // Not the extraction: the CLI, the hook client.
    fs.writeFileSync(path.join(root, "src/cli/main.ts"), "export const changed = true;\n");
    fs.writeFileSync(path.join(root, "native/hook-client/comity_hook.c"), "int main(void) { return 1; }\n");
    expect(computeExtractionFingerprint(root)).toBe(first);
    const seen = new Set([first]);
    const changes: Array<() => void> = [
      () => fs.appendFileSync(path.join(root, "src/symbols/extract-symbols.ts"), "// a change\n"),
      () => fs.appendFileSync(path.join(root, "src/parse/query/typescript.scm"), "; a change\n"),
      () => fs.appendFileSync(path.join(root, "grammars/python/definitions.scm"), "; a change\n"),
      () => fs.appendFileSync(path.join(root, "native/flat_parse.c"), "/* a change */\n"),
      () => fs.appendFileSync(path.join(root, "native/tree-sitter/src/parser.c"), "/* a change */\n"),
      () => fs.writeFileSync(path.join(root, "node_modules/tree-sitter-python/package.json"), JSON.stringify({ version: "0.25.1" })),
      () => fs.writeFileSync(path.join(root, "src/symbols/new-part.ts"), "export {};\n"),
      () => fs.renameSync(path.join(root, "src/symbols/new-part.ts"), path.join(root, "src/symbols/renamed-part.ts")),
    ];
    for (const change of changes) {
      change();
      const next = computeExtractionFingerprint(root);
      expect(seen.has(next)).toBe(false);
      seen.add(next);
    }
    expect(EXTRACTION_SOURCES.packages).toContain("tree-sitter-python");
  });

  it("is, in the build, the fingerprint of the sources it was built from", () => {
    const built = JSON.parse(fs.readFileSync(path.join(repoRoot, "dist", "symbols", FINGERPRINT_FILE), "utf8")) as { fingerprint: string };
    expect(built.fingerprint).toBe(computeExtractionFingerprint(repoRoot));
    expect(EXTRACTOR_VERSION).toBe(built.fingerprint);
  });
});
