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

/* The lexer's step to the next character, for the UTF-16 text the native parser always parses: the plain case (a
 * character of one unit, not a line feed, the next one in the same range and chunk, and not a surrogate) done here
 * in a few instructions, every other through tree-sitter's own `ts_lexer__advance`. The plain case is what
 * `ts_lexer__do_advance` and `ts_lexer__get_lookahead` do for such a character, step for step: the column counted,
 * the position moved on by the one unit, the token's start moved with it when skipping, and the next unit read as
 * the lookahead. A grammar's lexer calls this once per character of every file; tree-sitter's path, through three
 * functions and a decoder chosen at each step, was a sixth of a Java parse's time, and this cut the parse by about a
 * tenth, with the same trees (test/parse/flat-tree.test.ts holds the native parser's trees to web-tree-sitter's). */
static void comity_lexer__advance(TSLexer *_self, bool skip) {
  Lexer *self = (Lexer *)_self;
  if (self->chunk != NULL && self->lookahead_size == 2 && self->input.encoding == TSInputEncodingUTF16LE && self->logger.log == NULL &&
      self->current_included_range_index < self->included_range_count) {
    int32_t c = self->data.lookahead;
    uint32_t at = self->current_position.bytes;
    uint32_t next = at + 2;
    const TSRange *range = &self->included_ranges[self->current_included_range_index];
    if (c != '\n' && !(at == 0 && c == BYTE_ORDER_MARK) && next < range->end_byte && range->end_byte != range->start_byte && at >= self->chunk_start &&
        next - self->chunk_start + 2 <= self->chunk_size) {
      const uint8_t *p = (const uint8_t *)self->chunk + (next - self->chunk_start);
      uint32_t unit = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
      if (unit < 0xd800 || unit > 0xdfff) {
        ts_lexer__increment_column_data(self);
        self->current_position.extent.column += 2;
        self->current_position.bytes = next;
        if (skip) self->token_start_position = self->current_position;
        self->data.lookahead = (int32_t)unit;
        return;
      }
    }
  }
  ts_lexer__advance(_self, skip);
}

/* Where the token ends, as `ts_lexer__mark_end` says it: here, unless the lexer stands at the start of an included
 * range after the first (then at the end of the one before); in the first range, always here. A grammar's lexer calls
 * it at each state that may end a token. */
static void comity_lexer__mark_end(TSLexer *_self) {
  Lexer *self = (Lexer *)_self;
  if (self->current_included_range_index == 0 && self->included_range_count > 0) {
    self->token_end_position = self->current_position;
    return;
  }
  ts_lexer__mark_end(_self);
}

void comity_use_fast_lexer(TSParser *parser) {
  parser->lexer.data.advance = comity_lexer__advance;
  parser->lexer.data.mark_end = comity_lexer__mark_end;
}
