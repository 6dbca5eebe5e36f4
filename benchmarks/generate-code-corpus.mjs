#!/usr/bin/env node
// Seeded generator of a corpus of real-looking TypeScript and Python files (classes, interfaces,
// overloads, decorators, nested functions, imports), for the symbols benchmark.
// Usage: node benchmarks/generate-code-corpus.mjs [DIR] [--files N] [--seed N]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { rng, runGeneratorScript } from "./lib.mjs";

export const DEFAULT_CORPUS = path.join(os.tmpdir(), "comity-bench", "code-corpus");

const WORDS = [
  "config",
  "user",
  "order",
  "session",
  "cache",
  "parser",
  "token",
  "route",
  "event",
  "store",
  "queue",
  "report",
  "schema",
  "client",
  "server",
  "buffer",
  "stream",
  "record",
  "policy",
  "ledger",
];

function tsFile(r, i) {
  const w = () => WORDS[Math.floor(r() * WORDS.length)];
  const cap = (s) => s[0].toUpperCase() + s.slice(1);
  const parts = [`import { ${w()}Helper, type ${cap(w())}Options } from "./${w()}-${i % 37}";`, `import * as path from "node:path";`, ""];
  const n = 3 + Math.floor(r() * 5);
  for (let k = 0; k < n; k++) {
    const name = `${cap(w())}${cap(w())}${k}`;
    parts.push(
      `/** ${name} keeps ${w()} state. */`,
      `export interface ${name}Options<T = unknown> {`,
      `  readonly id: string;`,
      `  ${w()}?: number;`,
      `  handler(value: T, context: { ${w()}: string }): Promise<void>;`,
      `}`,
      ``,
      `export class ${name}<T extends object = {}> extends Base${k} implements Disposable {`,
      `  #${w()} = new Map<string, T>();`,
      `  static instances = 0;`,
      `  private readonly ${w()}: number;`,
      `  protected ${w()}Handler = (event: ${cap(w())}Event): void => { this.emit(event); };`,
      ``,
      `  constructor(private readonly options: ${name}Options<T>, ${w()}: string = "${w()}") {`,
      `    super(${w()});`,
      `    this.${w()} = options.${w()} ?? ${k};`,
      `  }`,
      ``,
      `  get size(): number { return this.#${w()}.size; }`,
      ``,
      `  async load(${w()}: string, ${w()}?: ${cap(w())}Options): Promise<T | undefined> {`,
      `    const value = await ${w()}Helper(path.join(${w()}, "${w()}.json"));`,
      `    if (value === undefined) { return undefined; }`,
      `    for (const [key, item] of Object.entries(value)) { this.#${w()}.set(key, item as T); }`,
      `    return this.#${w()}.get(${w()});`,
      `  }`,
      ``,
      `  ${w()}(a: number, b: number): number;`,
      `  ${w()}(a: string): string;`,
      `  ${w()}(a: unknown, b?: unknown): unknown { return b === undefined ? a : [a, b]; }`,
      `}`,
      ``,
      `export function ${w()}${cap(w())}${k}(input: ReadonlyArray<${name}Options>, limit = ${k + 1}): Map<string, number> {`,
      `  const out = new Map<string, number>();`,
      `  for (const item of input.slice(0, limit)) { out.set(item.id, (out.get(item.id) ?? 0) + 1); }`,
      `  return out;`,
      `}`,
      ``,
      `export const ${w()}${k} = async (id: string): Promise<${name} | null> => (id.length > 0 ? null : null);`,
      `export type ${name}Id = string & { readonly __brand: "${name}" };`,
      `export enum ${name}State { Idle = "idle", Busy = "busy", Done = ${k} }`,
      ``,
    );
  }
  return parts.join("\n");
}

function pyFile(r, i) {
  const w = () => WORDS[Math.floor(r() * WORDS.length)];
  const cap = (s) => s[0].toUpperCase() + s.slice(1);
  const parts = [
    `"""Module ${i}: ${w()} and ${w()} handling."""`,
    `from __future__ import annotations`,
    ``,
    `import os`,
    `from .${w()}_${i % 37} import ${w()}_helper, ${cap(w())}Options`,
    ``,
    `DEFAULT_${w().toUpperCase()} = ${i % 100}`,
    ``,
  ];
  const n = 3 + Math.floor(r() * 5);
  for (let k = 0; k < n; k++) {
    const name = `${cap(w())}${cap(w())}${k}`;
    parts.push(
      ``,
      `class ${name}(Base${k}, metaclass=Registry):`,
      `    """${name} keeps ${w()} state."""`,
      ``,
      `    retries: int = ${k}`,
      `    ${w()} = "${w()}"`,
      ``,
      `    def __init__(self, ${w()}: str, *, timeout: float = 2.5) -> None:`,
      `        self.${w()} = ${w()}`,
      `        self.timeout: float = timeout`,
      `        self._cache: dict[str, int] = {}`,
      ``,
      `    @property`,
      `    def size(self) -> int:`,
      `        return len(self._cache)`,
      ``,
      `    async def load(self, key: str, default: int | None = None, *args, **kwargs) -> int | None:`,
      `        def inner(value):`,
      `            return value * ${k + 1}`,
      ``,
      `        value = await ${w()}_helper(os.path.join(key, "${w()}.json"), *args, **kwargs)`,
      `        return inner(value) if value is not None else default`,
      ``,
      `    @staticmethod`,
      `    def create(${w()}: str) -> "${name}":`,
      `        return ${name}(${w()})`,
      ``,
      ``,
      `def ${w()}_${w()}_${k}(items: list[${name}], /, limit: int = ${k + 1}) -> dict[str, int]:`,
      `    out: dict[str, int] = {}`,
      `    for item in items[:limit]:`,
      `        out[item.${w()}] = out.get(item.${w()}, 0) + 1`,
      `    return out`,
    );
  }
  return `${parts.join("\n")}\n`;
}

/** Creates (or reuses, when the same parameters built it) the corpus; returns its summary. */
export function generateCodeCorpus({ dir = DEFAULT_CORPUS, files = 1500, seed = 11 } = {}) {
  const stamp = path.join(dir, ".generated.json");
  const params = { files, seed, version: 1 };
  if (fs.existsSync(stamp)) {
    const old = JSON.parse(fs.readFileSync(stamp, "utf8"));
    if (JSON.stringify(old.params) === JSON.stringify(params)) return old;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const r = rng(seed);
  let tsBytes = 0;
  let pyBytes = 0;
  for (let i = 0; i < files; i++) {
    const sub = `pkg${i % 30}`;
    for (const [lang, ext, make] of [
      ["ts", "ts", tsFile],
      ["py", "py", pyFile],
    ]) {
      const file = path.join(dir, lang, sub, `module_${i}.${ext}`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const text = make(r, i);
      fs.writeFileSync(file, text);
      if (lang === "ts") tsBytes += Buffer.byteLength(text);
      else pyBytes += Buffer.byteLength(text);
    }
  }
  const summary = { params, dir, tsDir: path.join(dir, "ts"), pyDir: path.join(dir, "py"), tsFiles: files, pyFiles: files, tsBytes, pyBytes };
  fs.writeFileSync(stamp, JSON.stringify(summary, null, 2));
  return summary;
}

runGeneratorScript(import.meta.url, generateCodeCorpus);
