import { createRequire } from "node:module";
import { dirname } from "node:path";
import type Parser from "tree-sitter";

const require = createRequire(import.meta.url);

/**
 * The native `tree-sitter` binding, through `require`: it is a CommonJS
 * package, and importing it as ESM first runs Node's CommonJS export lexer
 * over its source (about 10 ms of a cold process, measured with
 * `--cpu-prof`).
 */
export function loadTreeSitter(): typeof Parser {
  return require("tree-sitter") as typeof Parser;
}

/**
 * A grammar package's native language object (for tree-sitter-typescript,
 * the object holding `typescript` and `tsx`), loaded straight from its
 * binary through `node-gyp-build`, as the package's own entry does, but
 * without also parsing its `node-types.json` (4-6 ms for TypeScript's two):
 * node's tree-sitter would build a class with field getters for every node
 * type from that table (about 10 ms more), and nothing here uses them.
 */
export function loadNativeGrammar(pkg: string): unknown {
  const build = require("node-gyp-build") as (root: string) => unknown;
  return build(dirname(require.resolve(`${pkg}/package.json`)));
}
