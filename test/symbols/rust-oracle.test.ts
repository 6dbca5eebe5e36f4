import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

// Rust definitions against Universal Ctags on real code (test/fixtures/rust/log: the `log` crate's sources): at
// least 99% of what it reports, by name and line, and every name it reports. Left out of the comparison: impl
// blocks and macro_rules (no symbols of ours), and what is declared inside a function body (not the crate's API).
// An item declared twice under two `cfg`s is one symbol here (the first line), two tags there. CI installs ctags.

const FIXTURE = path.resolve("test/fixtures/rust/log");
const FILES = ((): string[] => {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(FIXTURE, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (child.endsWith(".rs")) out.push(child);
    }
  };
  walk("src");
  return out.sort();
})();
// (ctags takes any other argument for a file to tag, and writes ./tags)
const CTAGS = spawnSync("ctags", ["--version"], { stdio: "ignore" }).status === 0;

interface Tag {
  readonly path: string;
  readonly name: string;
  readonly line: number;
  readonly kind: string;
  readonly scope?: string;
}

for (const parsePath of PARSE_PATHS) {
  describe.skipIf(parsePath.skip || !CTAGS)(`Rust on the ${parsePath.name}`, () => {
    let extractor: SymbolExtractor;
    beforeAll(async () => {
      extractor = await createSymbolExtractor({ backend: parsePath.backend, languages: ["rust"] });
    });

    it("finds at least 99% of the definitions Universal Ctags reports, by name and line, and every one by name", () => {
      const tags = execFileSync("ctags", ["--output-format=json", "--fields=+nzKZs", "--languages=Rust", "-f", "-", ...FILES], { cwd: FIXTURE, encoding: "utf8", maxBuffer: 1 << 26 })
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Tag);
      const functions = new Set(tags.filter((t) => t.kind === "function" || t.kind === "method").map((t) => `${t.path} ${t.scope === undefined ? "" : `${t.scope}::`}${t.name}`));
      const local = (t: Tag): boolean => {
        const parts = t.scope === undefined ? [] : t.scope.split("::");
        return parts.some((_, i) => functions.has(`${t.path} ${parts.slice(0, i + 1).join("::")}`));
      };
      const wanted = tags.filter((t) => t.kind !== "implementation" && t.kind !== "macro" && !local(t));
      expect(wanted.length).toBeGreaterThan(400);
      const lines = new Set<string>();
      const names = new Set<string>();
      for (const f of FILES) {
        const r = extractor.extract(f, fs.readFileSync(path.join(FIXTURE, f)));
        expect(r.diagnostics, f).toEqual([]);
        for (const s of r.symbols) {
          lines.add(`${f} ${s.name} ${s.range.start_line}`);
          names.add(`${f} ${s.name}`);
        }
      }
      expect(wanted.filter((t) => !names.has(`${t.path} ${t.name}`))).toEqual([]);
      expect(wanted.filter((t) => lines.has(`${t.path} ${t.name} ${t.line}`)).length / wanted.length).toBeGreaterThanOrEqual(0.99);
    });
  });
}
