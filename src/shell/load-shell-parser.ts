import type Parser from "tree-sitter";
import { loadNativeGrammar, loadTreeSitter } from "../tree-sitter/load-native.js";

/** A parser for shell commands (tree-sitter-bash). */
export type ShellParser = Pick<Parser, "parse">;

/**
 * Loads tree-sitter and the bash grammar (native bindings, a few ms), only
 * when called, so that hook events without shell commands never load them.
 * The grammar is the bare binary (no node-types table: the walk uses no
 * field getters).
 */
export async function loadShellParser(): Promise<ShellParser> {
  const TreeSitter = loadTreeSitter();
  const parser = new TreeSitter();
  parser.setLanguage(loadNativeGrammar("tree-sitter-bash") as Parser.Language);
  return parser;
}
