import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSymbolExtractor, type SymbolExtractor } from "../../src/symbols/symbol-extractor.js";
import { PARSE_PATHS } from "../helpers/parse-paths.js";

// Java definitions against `javap -public` on the classes javac compiles from the same sources (javapoet's,
// test/fixtures/java): every public method (each overload) and field of every public class, by qualified name,
// both ways. Left out: what javac writes that the source does not (an implicit constructor, an enum's values and
// valueOf), and protected members (javap -public does not list them; they are exported here).

const FIXTURE = path.resolve("test/fixtures/java/javapoet/java");
const FILES = ((): string[] => {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(FIXTURE, rel), { withFileTypes: true })) {
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (child.endsWith(".java")) out.push(child);
    }
  };
  walk("");
  return out.sort();
})();
const JDK = spawnSync("javac", ["-version"], { stdio: "ignore" }).status === 0 && spawnSync("javap", ["-version"], { stdio: "ignore" }).status === 0;

/** Qualified name (without the package, nested types by `.`) → how many overloads javap lists. */
let javap = new Map<string, number>();
let dir = "";
beforeAll(() => {
  if (!JDK) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-javap-"));
  execFileSync("javac", ["-d", dir, "-nowarn", ...FILES], { cwd: FIXTURE, stdio: "pipe" });
  const classes: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (child.endsWith(".class")) classes.push(child.slice(0, -".class".length).replace(/\//g, "."));
    }
  };
  walk("");
  const text = execFileSync("javap", ["-public", "-cp", dir, ...classes.sort()], { encoding: "utf8", maxBuffer: 1 << 26 });
  // Each public member once per distinct parameter list, generics erased: a bridge method javac adds (a covariant or
  // generic override's) has the parameters of the method it bridges.
  const seen = new Map<string, Set<string>>();
  let owner: string | null = null;
  let binary = "";
  let enumType = false;
  for (const line of text.split("\n")) {
    const header = /^([\w ]*?)\b(class|interface|enum|@interface) ([\w.$]+)(.*)\{$/.exec(line);
    if (header !== null) {
      binary = header[3] as string;
      // (an anonymous or local class, `Outer$1`, and a class not public are nobody's API)
      owner = /^public\b/.test(header[1] ?? "") && !/\$\d/.test(binary) ? binary.replace(/^([a-z]\w*\.)+/, "").replace(/\$/g, ".") : null;
      enumType = header[2] === "enum" || (header[4] ?? "").includes("extends java.lang.Enum<");
      continue;
    }
    if (owner === null || !line.startsWith("  ") || line.includes("static {}")) continue;
    const method = /([\w$.]+)\(([^)]*)\)/.exec(line);
    const name = method === null ? (/([\w$]+);$/.exec(line)?.[1] ?? "") : ((method[1] as string).split(".").pop() ?? "");
    const isConstructor = method !== null && method[1] === binary;
    if (enumType && (name === "values" || name === "valueOf")) continue;
    const key = `${owner}.${isConstructor ? "<init>" : name}`;
    const params = method === null ? "" : (method[2] ?? "").replace(/<[^<>]*>/g, "").replace(/<[^<>]*>/g, "");
    const variants = seen.get(key) ?? new Set<string>();
    variants.add(params);
    seen.set(key, variants);
  }
  javap = new Map([...seen].map(([k, v]) => [k, v.size]));
}, 120_000);
afterAll(() => {
  if (dir !== "") fs.rmSync(dir, { recursive: true, force: true });
});

for (const parsePath of PARSE_PATHS) {
  describe.skipIf(parsePath.skip || !JDK)(`Java on the ${parsePath.name}`, () => {
    let extractor: SymbolExtractor;
    beforeAll(async () => {
      extractor = await createSymbolExtractor({ backend: parsePath.backend, languages: ["java"] });
    });

    it("finds the public methods (each overload) and fields javap lists of the classes javac compiles from the same sources, and no other", () => {
      const ours = new Map<string, number>();
      const constructorsOf = new Set<string>();
      for (const f of FILES) {
        const r = extractor.extract(f, fs.readFileSync(path.join(FIXTURE, f)));
        expect(r.diagnostics, f).toEqual([]);
        for (const s of r.symbols) {
          if (s.kind !== "method" && s.kind !== "property" && s.kind !== "enum_member") continue;
          if (s.name === "<init>") constructorsOf.add(s.qualified_name.slice(0, -".<init>".length));
          if (!s.exported) continue;
          // (an overload's own visibility: javap lists the public ones; an interface's are public unless private)
          const variants = s.detail.overloads.length > 0 ? s.detail.overloads : [s.detail];
          const inInterface = !variants.some((v) => v.modifiers.includes("public") || v.modifiers.includes("protected") || v.modifiers.includes("private"));
          const shown = s.kind === "enum_member" ? 1 : variants.filter((v) => v.modifiers.includes("public") || (inInterface && !v.modifiers.includes("private"))).length;
          if (shown > 0) ours.set(s.qualified_name, shown);
        }
      }
      // (a class that declares no constructor gets javac's public one)
      const wanted = new Map([...javap].filter(([k]) => !(k.endsWith(".<init>") && !constructorsOf.has(k.slice(0, -".<init>".length)))));
      expect(wanted.size).toBeGreaterThan(250);
      const agree = [...wanted].filter(([k, n]) => ours.get(k) === n).length;
      const missing = [...wanted].filter(([k, n]) => ours.get(k) !== n).map(([k, n]) => `${k} ×${n} (ours ${ours.get(k) ?? 0})`);
      const extra = [...ours.keys()].filter((k) => !wanted.has(k));
      expect(agree / wanted.size, missing.join("; ")).toBeGreaterThanOrEqual(0.99);
      expect(1 - extra.length / ours.size, extra.join("; ")).toBeGreaterThanOrEqual(0.99);
    });
  });
}
