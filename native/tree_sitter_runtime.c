/* tree-sitter's runtime, compiled into the native parser from the copy vendored in tree-sitter/ (binding.gyp puts its
 * src on the include path; see tree-sitter/README.md). */

/* Reference counts without atomic operations, in place of tree-sitter's atomic.h (its include guard is taken first).
 * A subtree here never leaves the thread that parsed it: each parse has its own parser and arena, only the flat copy
 * goes out, and the tree is dropped with the arena. The language, which threads do share, is static and has no
 * count. Atomic increments and decrements of every subtree's count were a large part of the parse's own time. */
#define TREE_SITTER_ATOMIC_H_
#include <stddef.h>
#include <stdint.h>
static inline size_t atomic_load(const volatile size_t *p) { return *p; }
static inline uint32_t atomic_inc(volatile uint32_t *p) { return ++*p; }
static inline uint32_t atomic_dec(volatile uint32_t *p) { return --*p; }

#include "lib.c"
