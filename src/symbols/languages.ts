import type { GrammarSpec } from "../parse/flat-parsers.js";
import { loadNativeGrammar } from "../parse/load-grammar.js";
import type { LanguageId } from "./types.js";

/**
 * The language registry: a new language is one folder of queries under
 * `grammars/` plus one entry here (its extensions, the grammar package, and
 * which extractor reads its definitions).
 */
export interface LanguageSpec extends GrammarSpec {
  readonly id: LanguageId;
  readonly extensions: readonly string[];
  /**
   * Folders under `grammars/` whose `definitions.scm` and `references.scm`
   * (where present) are joined, in order: TSX is TypeScript's queries plus
   * its JSX patterns.
   */
  readonly queries: readonly string[];
  readonly extractor: "typescript" | "python" | "go" | "rust" | "java";
}

const TS_SAMPLE = 'export function f(a: number): string { return "x" /* c */ }\nclass A { m() {} }\nconst o = { k: 1, ...p }\nlet t = <T,>(x: T) => x\nif (a { b(\n';
const GO_SAMPLE =
  'package p\n\nimport "fmt"\n\ntype S struct {\n\tA int `json:"a"`\n\t*B\n}\n\nfunc (s *S) M(a, b int, c ...string) (int, error) { return fmt.Println(a) }\nfunc F[T any](x T) T { return x }\nfunc g( {\n';
const RS_SAMPLE =
  "pub mod m {\n    pub struct S<T: Clone> { pub a: T, b: u8 }\n    impl<T: Clone> S<T> { pub fn new(a: T) -> Self { S { a, b: 0 } } }\n    pub trait Tr { fn f(&self) -> u8; fn g(&self) {} }\n    impl<T: Clone> Tr for S<T> { fn f(&self) -> u8 { 1 /* c */ } }\n    #[non_exhaustive] pub enum E { A, B(u8), C { x: i32 } }\n}\nfn g( {\n";
const JAVA_SAMPLE =
  "package a.b;\n\nimport java.util.List;\n\npublic class S<T extends Comparable<T>> implements Runnable {\n  public static final int N = 1;\n  private final List<T> items;\n  public S(List<T> items) { this.items = items; }\n  @Override public void run() { /* c */ }\n  protected <U> U map(T t, U... us) throws java.io.IOException { return null; }\n  public interface I { void f(int a); default int g() { return 0; } }\n  public enum E { A, B(1) { }; E() {} E(int x) {} }\n}\nclass X { void m( {\n";
const PY_SAMPLE = 'def f(a, *b, **c):\n    return "x"  # c\n\n@d\nclass A(B):\n    def m(self) -> int:\n        pass\nx = [i for i in y if i]\ndef g(:\n';

export const LANGUAGES: readonly LanguageSpec[] = [
  {
    id: "typescript",
    extensions: [".ts", ".mts", ".cts"],
    queries: ["typescript"],
    grammar: () => (loadNativeGrammar("tree-sitter-typescript") as { typescript: unknown }).typescript,
    wasm: "tree-sitter-typescript/tree-sitter-typescript.wasm",
    extractor: "typescript",
    sample: TS_SAMPLE,
  },
  {
    id: "tsx",
    extensions: [".tsx"],
    queries: ["typescript", "tsx"],
    grammar: () => (loadNativeGrammar("tree-sitter-typescript") as { tsx: unknown }).tsx,
    wasm: "tree-sitter-typescript/tree-sitter-tsx.wasm",
    extractor: "typescript",
    sample: TS_SAMPLE,
  },
  {
    id: "javascript",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    queries: ["javascript"],
    grammar: () => loadNativeGrammar("tree-sitter-javascript"),
    wasm: "tree-sitter-javascript/tree-sitter-javascript.wasm",
    extractor: "typescript",
    sample: TS_SAMPLE,
  },
  {
    id: "python",
    extensions: [".py", ".pyi"],
    queries: ["python"],
    grammar: () => loadNativeGrammar("tree-sitter-python"),
    wasm: "tree-sitter-python/tree-sitter-python.wasm",
    extractor: "python",
    sample: PY_SAMPLE,
  },
  {
    id: "go",
    extensions: [".go"],
    queries: ["go"],
    grammar: () => loadNativeGrammar("tree-sitter-go"),
    wasm: "tree-sitter-go/tree-sitter-go.wasm",
    extractor: "go",
    sample: GO_SAMPLE,
  },
  {
    id: "rust",
    extensions: [".rs"],
    queries: ["rust"],
    grammar: () => loadNativeGrammar("tree-sitter-rust"),
    wasm: "tree-sitter-rust/tree-sitter-rust.wasm",
    extractor: "rust",
    sample: RS_SAMPLE,
  },
  {
    id: "java",
    extensions: [".java"],
    queries: ["java"],
    grammar: () => loadNativeGrammar("tree-sitter-java"),
    wasm: "tree-sitter-java/tree-sitter-java.wasm",
    extractor: "java",
    sample: JAVA_SAMPLE,
  },
];

/** The language of a path, by its extension (`.d.ts` is TypeScript); null when none is known. */
export function languageOf(path: string): LanguageSpec | null {
  const lower = path.toLowerCase();
  const dot = lower.lastIndexOf(".");
  if (dot < 0) return null;
  const ext = lower.slice(dot);
  return LANGUAGES.find((l) => l.extensions.includes(ext)) ?? null;
}
