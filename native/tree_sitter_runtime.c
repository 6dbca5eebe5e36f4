/* tree-sitter's runtime, compiled from the pinned `tree-sitter` package's own copy of it (binding.gyp puts its
 * lib/src on the include path): the same version as the grammars' node bindings were built for. */
#include "lib.c"
