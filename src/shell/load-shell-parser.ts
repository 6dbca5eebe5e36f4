import type Parser from "tree-sitter";

/** A parser for shell commands (tree-sitter-bash). */
export type ShellParser = Pick<Parser, "parse">;

/**
 * Loads tree-sitter and the bash grammar (native bindings, about 10 ms).
 * Imported lazily so that hook events without shell commands never load them.
 */
export async function loadShellParser(): Promise<ShellParser> {
  const { default: TreeSitter } = await import("tree-sitter");
  const { default: Bash } = await import("tree-sitter-bash");
  const parser = new TreeSitter();
  parser.setLanguage(Bash as unknown as Parser.Language);
  return parser;
}
