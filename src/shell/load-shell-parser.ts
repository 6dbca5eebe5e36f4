import { loadNativeGrammar } from "../parse/load-grammar.js";
import type { Tree } from "../parse/syntax.js";

/** A parser for shell commands (tree-sitter-bash); `parse` throws a `PARSE_TIMEOUT` ComityError past its limits. */
export interface ShellParser {
  parse(command: string): Tree;
}

/** tree-sitter-bash, for the parse layer: its native grammar and its WebAssembly build. */
const BASH = {
  id: "bash",
  grammar: () => loadNativeGrammar("tree-sitter-bash"),
  wasm: "tree-sitter-bash/tree-sitter-bash.wasm",
  sample: 'cd "$d" && make > out.log 2>&1 | tee -a x; cat <<EOF > f\nhi\nEOF\nfor i in *; do echo $i >> l; done\nif [ -f a ]; then\n',
};

/**
 * Loads the bash grammar into the parse layer (Comity's native parser, else web-tree-sitter), only when called, so
 * that hook events without shell commands never load it. Each command's tree is a flat copy (`FlatTree`), whose
 * nodes answer as a syntax tree's do.
 */
export async function loadShellParser(): Promise<ShellParser> {
  const [{ loadFlatParsers }, { FlatTree, flatLanguage }] = await Promise.all([import("../parse/flat-parsers.js"), import("../parse/flat-tree.js")]);
  const parser = (await loadFlatParsers([BASH])).get(BASH.id);
  if (parser === undefined) throw new Error("the bash grammar did not load");
  const { language } = parser;
  const tables = flatLanguage(language.types, (id) => language.nodeTypeIsNamed(id), language.fields);
  return { parse: (command) => new FlatTree(command, tables, parser.parse(command)) };
}
