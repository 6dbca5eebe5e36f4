/* What tree_sitter_runtime.c adds to tree-sitter's runtime. */
#ifndef COMITY_TREE_SITTER_RUNTIME_H_
#define COMITY_TREE_SITTER_RUNTIME_H_
#include <tree_sitter/api.h>

/* Gives a new parser the lexer's steps of tree_sitter_runtime.c (the same tokens, fewer instructions for each
 * character). */
void comity_use_fast_lexer(TSParser *parser);

#endif
