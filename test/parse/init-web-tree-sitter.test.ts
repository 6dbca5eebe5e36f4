import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { endianness } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Language, Parser, Query } from "web-tree-sitter";
import { initWebTreeSitter } from "../../src/parse/init-web-tree-sitter.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TS_WASM = "node_modules/tree-sitter-typescript/tree-sitter-typescript.wasm";

// What the engine asks of web-tree-sitter, all through nodes passed into WebAssembly memory and back: query
// captures, each capture's type, end and parent, and the root's children. Printed as one digest. The source
// repeats a class, with non-ASCII text (surrogate pairs too), until the parse grows WebAssembly memory (new views
// of it, which the accessors and the input copy must follow); the parser reads it in thousands of chunks.
// The same program runs in a child process with web-tree-sitter as shipped: the oracle.
const PROGRAM = `
export async function digestOfParse(Parser, Language, Query, createHash, wasm, heapBytes) {
  const before = heapBytes();
  const language = await Language.load(wasm);
  const parser = new Parser();
  parser.setLanguage(language);
  const unit = "export class A<T> extends B {\\n  #p = 'é😀'; // ü\\n  m(a: T, b = 2): void { f(a); new C(); }\\n}\\n";
  const tree = parser.parse(unit.repeat(24000));
  const query = new Query(language, "(call_expression function: (_) @call) (new_expression) @new (type_identifier) @type");
  const hash = createHash("sha256");
  for (const m of query.matches(tree.rootNode)) {
    for (const c of m.captures) hash.update(c.name + c.node.type + c.node.startIndex + ":" + c.node.endIndex + ":" + c.node.startPosition.row + (c.node.parent?.type ?? "") + "\\n");
  }
  for (const child of tree.rootNode.children) hash.update(child.type + child.endPosition.column);
  tree.delete();
  return { digest: hash.digest("hex"), grew: heapBytes() > before };
}`;

type Program = { digestOfParse: (...args: unknown[]) => Promise<{ digest: string; grew: boolean }> };
const load = async (): Promise<Program> => (await import(`data:text/javascript,${encodeURIComponent(PROGRAM)}`)) as Program;

describe("initWebTreeSitter", () => {
  it("gives what web-tree-sitter as shipped gives through its faster accessors and input copy, after its memory grows too", async () => {
    expect(endianness()).toBe("LE");
    const module: { HEAP32?: Int32Array; instantiateWasm?: unknown } = {};
    expect(await initWebTreeSitter(Parser, module)).toBe(true);
    // The WebAssembly was instantiated here, with the faster input copy.
    expect(typeof module.instantiateWasm).toBe("function");
    // A later call (another extractor in this thread) finds them in place.
    expect(await initWebTreeSitter(Parser)).toBe(true);
    const here = await (await load()).digestOfParse(Parser, Language, Query, createHash, `${root}${TS_WASM}`, () => module.HEAP32?.buffer.byteLength ?? 0);
    const shipped = JSON.parse(
      execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { Parser, Language, Query } from "web-tree-sitter"; import { createHash } from "node:crypto";
           const m = {}; await Parser.init(m);
           const { digestOfParse } = await import("data:text/javascript," + encodeURIComponent(${JSON.stringify(PROGRAM)}));
           process.stdout.write(JSON.stringify(await digestOfParse(Parser, Language, Query, createHash, ${JSON.stringify(TS_WASM)}, () => m.HEAP32.buffer.byteLength)));`,
        ],
        { cwd: root, encoding: "utf8" },
      ),
    ) as { digest: string; grew: boolean };
    expect(shipped.grew).toBe(true);
    expect(here.grew).toBe(true);
    expect(here.digest).toBe(shipped.digest);
  });
});
