import { createRequire } from "node:module";
import { dirname } from "node:path";

const require = createRequire(import.meta.url);

/**
 * A grammar package's native language object (for tree-sitter-typescript,
 * the object holding `typescript` and `tsx`), loaded straight from its
 * binary through `node-gyp-build`, as the package's own entry does, but
 * without also parsing its `node-types.json` (4-6 ms for TypeScript's two),
 * which nothing here uses. Its `language` is the TSLanguage that Comity's
 * native parser takes; a grammar whose binary does not load throws, and the
 * parse layer uses its WebAssembly build instead.
 */
export function loadNativeGrammar(pkg: string): unknown {
  const build = require("node-gyp-build") as (root: string) => unknown;
  return build(dirname(require.resolve(`${pkg}/package.json`)));
}
