/* tree-sitter's runtime, compiled into the native parser from the copy vendored in tree-sitter/ (binding.gyp puts its
 * src on the include path; see tree-sitter/README.md). */
#include "lib.c"
