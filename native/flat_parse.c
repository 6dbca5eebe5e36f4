/*
 * Parses a text with a tree-sitter grammar and returns its tree as one flat
 * copy, in the layout of src/symbols/flat-tree.ts's packFlatTreeData: for n
 * visible nodes in pre-order, starts (int32 x n), ends (int32 x n), parents
 * (int32 x n), types (uint16 x n), fields (uint16 x n), flags (uint8 x n).
 * Positions are UTF-16 code units, as the text is parsed as UTF-16 (the
 * JavaScript string's own units), exactly as web-tree-sitter parses it.
 *
 * The copy walks the tree's subtrees directly, with tree-sitter's internal
 * headers (this addon compiles tree-sitter's runtime itself), in the order and
 * with the answers of the public tree cursor: the visible nodes in pre-order,
 * each one's symbol (its alias where its parent's production gives one), its
 * field (looked up through its invisible ancestors, as
 * ts_tree_cursor_current_field_id does), its range and its visible parent.
 * The cursor asks the same of every node through several calls each; this
 * walk keeps what it needs in a frame per level. test/symbols/flat-tree.test.ts
 * holds its copies equal to web-tree-sitter's, made with the public cursor.
 *
 * The grammar is the `language` external of a tree-sitter grammar package's
 * node binding (a TSLanguage pointer). Nothing here keeps file contents.
 */
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
/* MSVC: no pthreads nor posix_memalign; the arena's chunks are plain malloc there, and the allocator is set at each
 * load (the same four pointers, before any parse of that thread). */
#define THREAD_LOCAL __declspec(thread)
#else
#include <stdatomic.h>
#include <sys/mman.h>
#define THREAD_LOCAL _Thread_local
#endif
#include <tree_sitter/api.h>
#include "language.h"
#include "stat_many.h"
#include "watch_tree.h"
#include "spawn_capture.h"
#include "tree_sitter_runtime.h"
#include "subtree.h"
#include "tree.h"

/* One level of the walk: a node whose children are being copied. */
typedef struct {
  const Subtree *children;
  uint32_t count, index, structural;
  uint32_t position; /* in bytes: where the next child's padding starts */
  const TSSymbol *aliases;
  const TSFieldMapEntry *fields, *fields_end;
  int32_t parent;    /* the index of the nearest visible node at or above this one */
  TSFieldId inherited; /* the field this (invisible) node passes to its children, as the cursor finds it; 0 under a visible one */
} Frame;

/*
 * The memory of one parse. tree-sitter allocates each subtree, stack node and array on its own and frees them one
 * by one when the tree is deleted: on the TypeScript corpus, malloc and free and the walk that releases the tree
 * were a tenth of the parse. A parse here allocates from this thread's arena instead (ts_set_allocator, set once for
 * this addon's copy of the runtime), and everything it made is dropped at once afterwards: the parser is made for
 * the parse and deleted after it (its own memory is in the arena too), and the tree is not released node by node.
 * Outside a parse no arena is active and the runtime uses malloc, as by default. The grammars' external scanners
 * allocate with their own malloc (they are other shared objects) and free what they allocate, as before.
 */
typedef struct Chunk {
  struct Chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
} Chunk;

typedef struct {
  Chunk *first, *current;
  void *last;          /* the latest allocation, which a realloc can grow in place */
  size_t allocated;    /* bytes handed out in this parse: what its memory bound is checked against */
} Arena;

static THREAD_LOCAL Arena *active_arena;

#define HUGE_PAGE ((size_t)2 << 20)
#define ARENA_CHUNK HUGE_PAGE
/* What a thread keeps between parses: its chunks beyond this are given back. */
#define ARENA_KEEP ((size_t)64 << 20)
/* Each allocation is preceded by its size, in 16 bytes to keep the alignment malloc gives. */
#define HEADER 16

static void out_of_memory(size_t size) {
  fprintf(stderr, "tree-sitter failed to allocate %zu bytes", size);
  abort();
}

/* A chunk of `size` bytes of room, in memory the kernel may back with huge pages: first touching a 4 KiB page costs a
 * fault each, which in a virtual machine weighed as much as the parse's allocations did. */
static Chunk *new_chunk(size_t size) {
  size_t total = (sizeof(Chunk) + size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  void *p = NULL;
#ifdef _WIN32
  p = malloc(total);
  if (p == NULL) return NULL;
#else
  if (posix_memalign(&p, HUGE_PAGE, total) != 0 || p == NULL) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, total, MADV_HUGEPAGE);
#endif
#endif
  Chunk *c = p;
  c->size = total - sizeof(Chunk);
  c->used = 0;
  c->next = NULL;
  return c;
}

static void *arena_alloc(Arena *a, size_t size) {
  size_t need = HEADER + ((size + 15) & ~(size_t)15);
  Chunk *c = a->current;
  while (c != NULL && c->used + need > c->size) {
    /* The next chunk (one kept from an earlier parse), or a new one. */
    if (c->next != NULL && c->next->size >= need) { c = c->next; c->used = 0; a->current = c; break; }
    Chunk *fresh = new_chunk(c->size * 2 > need ? c->size * 2 : need);
    if (fresh == NULL) out_of_memory(size);
    fresh->next = c->next;
    c->next = fresh;
    c = fresh;
    a->current = c;
  }
  if (c == NULL) {
    c = new_chunk(need > ARENA_CHUNK ? need : ARENA_CHUNK);
    if (c == NULL) out_of_memory(size);
    a->first = a->current = c;
  }
  unsigned char *p = c->data + c->used;
  c->used += need;
  a->allocated += need;
  *(size_t *)p = size;
  a->last = p + HEADER;
  return p + HEADER;
}

static void *arena_malloc(size_t size) {
  Arena *a = active_arena;
  if (a == NULL) { void *p = malloc(size); if (size > 0 && p == NULL) out_of_memory(size); return p; }
  return arena_alloc(a, size);
}

static void *arena_calloc(size_t count, size_t size) {
  Arena *a = active_arena;
  if (a == NULL) { void *p = calloc(count, size); if (count > 0 && size > 0 && p == NULL) out_of_memory(count * size); return p; }
  /* calloc's own check: a product that overflows is a failed allocation, never a short one. */
  if (size != 0 && count > SIZE_MAX / size) out_of_memory(SIZE_MAX);
  void *p = arena_alloc(a, count * size);
  memset(p, 0, count * size);
  return p;
}

static void *arena_realloc(void *old, size_t size) {
  Arena *a = active_arena;
  if (a == NULL) { void *p = realloc(old, size); if (size > 0 && p == NULL) out_of_memory(size); return p; }
  if (old == NULL) return arena_alloc(a, size);
  size_t had = *(size_t *)((unsigned char *)old - HEADER);
  if (size <= had) return old;
  /* The latest allocation grows where it is, when its chunk has the room. */
  Chunk *c = a->current;
  size_t grown = ((size + 15) & ~(size_t)15), before = ((had + 15) & ~(size_t)15);
  if (old == a->last && c->used - before + grown <= c->size) {
    c->used += grown - before;
    *(size_t *)((unsigned char *)old - HEADER) = size;
    return old;
  }
  void *p = arena_alloc(a, size);
  memcpy(p, old, had);
  return p;
}

static void arena_free(void *p) {
  if (active_arena == NULL) free(p);
  /* In a parse: nothing, the whole arena is dropped after it. */
}

static void set_allocator(void) {
  ts_set_allocator(arena_malloc, arena_calloc, arena_realloc, arena_free);
}

#ifndef _WIN32
/* 0: not set, 1: a thread is setting it, 2: set. C11 atomics rather than pthread_once, whose symbol moved to
 * GLIBC_2.34 and would keep a prebuilt addon from loading on the older glibc Node 20 supports (2.28). */
static atomic_int allocator_state = 0;

static void set_allocator_once(void) {
  int expected = 0;
  if (atomic_compare_exchange_strong(&allocator_state, &expected, 1)) {
    set_allocator();
    atomic_store(&allocator_state, 2);
    return;
  }
  /* Another thread is storing the same four pointers: wait for it, so that no parse here runs before they are set. */
  while (atomic_load(&allocator_state) != 2) {
  }
}
#endif

/* Starts a parse's arena on this thread. */
static void arena_begin(Arena *a) {
  if (a->first != NULL) { a->current = a->first; a->first->used = 0; }
  a->last = NULL;
  a->allocated = 0;
  active_arena = a;
}

/* Ends it: everything allocated in it is dropped; the chunks are kept for the next parse, up to ARENA_KEEP. */
static void arena_end(Arena *a) {
  active_arena = NULL;
  size_t kept = 0;
  Chunk **link = &a->first;
  while (*link != NULL) {
    Chunk *c = *link;
    if (kept + c->size <= ARENA_KEEP) { kept += c->size; c->used = 0; link = &c->next; continue; }
    *link = c->next;
    free(c);
  }
  a->current = a->first;
  a->last = NULL;
}

static void arena_delete(Arena *a) {
  for (Chunk *c = a->first; c != NULL;) { Chunk *next = c->next; free(c); c = next; }
  a->first = a->current = NULL;
}

typedef struct {
  Arena arena;
  uint16_t *text;
  size_t text_cap;
  int32_t *starts, *ends, *parents;
  uint16_t *types, *fields;
  uint8_t *flags;
  Frame *frames;
  size_t cap, frames_cap, count;
} State;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  State *s = data;
  arena_delete(&s->arena);
  free(s->text); free(s->starts); free(s->ends); free(s->parents); free(s->types); free(s->fields); free(s->flags); free(s->frames);
  free(s);
}

static int grow(State *s, size_t need) {
  if (need <= s->cap) return 1;
  size_t cap = s->cap ? s->cap : 4096;
  while (cap < need) cap *= 2;
  int32_t *a = realloc(s->starts, cap * 4); if (!a) return 0; s->starts = a;
  int32_t *b = realloc(s->ends, cap * 4); if (!b) return 0; s->ends = b;
  int32_t *c = realloc(s->parents, cap * 4); if (!c) return 0; s->parents = c;
  uint16_t *d = realloc(s->types, cap * 2); if (!d) return 0; s->types = d;
  uint16_t *e = realloc(s->fields, cap * 2); if (!e) return 0; s->fields = e;
  uint8_t *f = realloc(s->flags, cap); if (!f) return 0; s->flags = f;
  s->cap = cap;
  return 1;
}

/* Room for `units` UTF-16 units of text. */
static int reserve_text(State *s, size_t units) {
  if (units <= s->text_cap) return 1;
  size_t cap = s->text_cap ? s->text_cap : 65536;
  while (cap < units) cap *= 2;
  uint16_t *t = realloc(s->text, cap * 2);
  if (!t) return 0;
  s->text = t; s->text_cap = cap;
  return 1;
}

static Frame *enter(State *s, size_t depth) {
  if (depth >= s->frames_cap) {
    size_t cap = s->frames_cap ? s->frames_cap * 2 : 256;
    while (cap <= depth) cap *= 2;
    Frame *a = realloc(s->frames, cap * sizeof(Frame));
    if (!a) return NULL;
    s->frames = a; s->frames_cap = cap;
  }
  return &s->frames[depth];
}

/* Copies one visible node (positions: bytes of UTF-16, halved into units); its index. */
static inline int32_t emit(State *s, TSSymbol symbol, TSFieldId field, uint32_t start, uint32_t end, int32_t parent, int missing) {
  size_t n = s->count++;
  s->types[n] = symbol;
  s->fields[n] = field;
  s->starts[n] = (int32_t)(start >> 1);
  s->ends[n] = (int32_t)(end >> 1);
  s->parents[n] = parent;
  s->flags[n] = missing ? 1 : 0;
  return (int32_t)n;
}

/* The frame of `node`'s children; `start`: where the node starts (after its padding). */
static void open_frame(Frame *f, const TSLanguage *language, Subtree node, uint32_t start, int32_t parent, TSFieldId inherited) {
  f->children = ts_subtree_children(node);
  f->count = node.ptr->child_count;
  f->index = 0;
  f->structural = 0;
  /* A node's padding is its first child's: the first child's padding starts where the node's does. */
  f->position = start - ts_subtree_padding(f->children[0]).bytes;
  f->aliases = ts_language_alias_sequence(language, node.ptr->production_id);
  ts_language_field_map(language, node.ptr->production_id, &f->fields, &f->fields_end);
  f->parent = parent;
  f->inherited = inherited;
}

/* The visible nodes of `tree` in pre-order, into the state's arrays (count: s->count); 0 when out of memory. */
static int copy_tree(State *s, const TSTree *tree) {
  const TSLanguage *language = tree->language;
  Subtree root = tree->root;
  s->count = 0;
  uint32_t start = ts_subtree_padding(root).bytes;
  if (!grow(s, 1)) return 0;
  int32_t top = emit(s, ts_language_public_symbol(language, ts_subtree_symbol(root)), 0, start, start + ts_subtree_size(root).bytes, -1, ts_subtree_missing(root));
  if (ts_subtree_child_count(root) == 0) return 1;
  size_t depth = 0;
  Frame *f = enter(s, 0);
  if (f == NULL) return 0;
  open_frame(f, language, root, start, top, 0);
  for (;;) {
    f = &s->frames[depth];
    if (f->index == f->count) {
      if (depth == 0) return 1;
      depth--;
      continue;
    }
    Subtree child = f->children[f->index++];
    uint32_t child_start = f->position + ts_subtree_padding(child).bytes;
    uint32_t child_end = child_start + ts_subtree_size(child).bytes;
    f->position = child_end;
    int extra = ts_subtree_extra(child);
    TSSymbol alias = 0;
    TSFieldId field = 0;
    if (!extra) {
      if (f->aliases) alias = f->aliases[f->structural];
      for (const TSFieldMapEntry *m = f->fields; m < f->fields_end; m++) {
        if (!m->inherited && m->child_index == f->structural) { field = m->field_id; break; }
      }
      if (field == 0) field = f->inherited;
      f->structural++;
    }
    uint32_t children = ts_subtree_child_count(child);
    if (ts_subtree_visible(child) || alias != 0) {
      if (!grow(s, s->count + 1)) return 0;
      int32_t index = emit(s, ts_language_public_symbol(language, alias ? alias : ts_subtree_symbol(child)), field, child_start, child_end, f->parent, ts_subtree_missing(child));
      if (children == 0) continue;
      Frame *g = enter(s, depth + 1);
      if (g == NULL) return 0;
      open_frame(g, language, child, child_start, index, 0);
      depth++;
    } else if (children > 0 && child.ptr->visible_child_count > 0) {
      /* An invisible node: its visible descendants are its visible parent's children, and it passes its field on. */
      int32_t parent = f->parent;
      Frame *g = enter(s, depth + 1);
      if (g == NULL) return 0;
      open_frame(g, language, child, child_start, parent, field);
      depth++;
    }
  }
}

#ifndef _WIN32
/*
 * Languages whose every parse state is "large": the same table values, read by one index instead of a search.
 * tree-sitter keeps most states of a grammar as lists of (value, symbols) groups that each lookup scans; the parse
 * asks the table for every token and every reduction, and that scan was the runtime's largest single cost. A copy of
 * the language with a dense table (state x symbol, 2 bytes each: 1.5 MB for Python, 4.3 MB for TypeScript) answers
 * every lookup with the same value, so the parse makes the same tree (the parser reads the table through
 * ts_language_lookup alone; only queries and the lookahead iterator, which Comity does not use, walk the groups).
 * Made once per language and process, shared by its threads and kept for its life, at the DENSE_AFTER-th parse of
 * it: a process that parses a file or two never pays for it.
 */
#define DENSE_LANGUAGES 16
#define DENSE_AFTER 8
#define DENSE_MAX_BYTES (32u << 20)
typedef struct {
  const TSLanguage *original;
  _Atomic(const TSLanguage *) dense; /* NULL: not made (yet, or too large, or out of memory): the original is used */
  atomic_int parses;
} DenseLanguage;
static DenseLanguage dense_languages[DENSE_LANGUAGES];
static atomic_int dense_count = 0;
static atomic_flag dense_lock = ATOMIC_FLAG_INIT;

static const TSLanguage *make_dense(const TSLanguage *language) {
  size_t states = language->state_count, symbols = language->symbol_count;
  if (states == 0 || symbols == 0 || states * symbols * 2 > DENSE_MAX_BYTES) return NULL;
  uint16_t *table = calloc(states * symbols, 2);
  TSLanguage *copy = calloc(1, sizeof(TSLanguage));
  const uint16_t **starts = malloc((UINT16_MAX + 1) * sizeof(const uint16_t *));
  if (table == NULL || copy == NULL || starts == NULL) { free(table); free(copy); free(starts); return NULL; }
  size_t large = language->large_state_count;
  if (large > 0) memcpy(table, language->parse_table, large * symbols * 2);
  for (size_t state = large; state < states; state++) {
    const uint16_t *data = &language->small_parse_table[language->small_parse_table_map[state - large]];
    uint16_t groups = *(data++);
    for (unsigned g = 0; g < groups; g++) {
      starts[g] = data;
      data += 2 + data[1];
    }
    /* Groups written last to first: where two list a symbol, the first one's value stays, the one a lookup finds. */
    uint16_t *row = &table[state * symbols];
    for (unsigned g = groups; g-- > 0;) {
      const uint16_t *group = starts[g];
      for (unsigned j = 0; j < group[1]; j++) if (group[2 + j] < symbols) row[group[2 + j]] = group[0];
    }
  }
  free(starts);
  /* A grammar of an older ABI has a shorter struct: its fields up to primary_state_ids are laid out as these. */
  memcpy(copy, language, language->abi_version >= 15 ? sizeof(TSLanguage) : offsetof(TSLanguage, name));
  copy->parse_table = table;
  copy->large_state_count = (uint32_t)states;
  return copy;
}

/* `language`'s entry, or NULL when it has none yet. Entries are only ever added, each before the count that shows it. */
static DenseLanguage *dense_entry(const TSLanguage *language) {
  int n = atomic_load(&dense_count);
  for (int i = 0; i < n; i++) if (dense_languages[i].original == language) return &dense_languages[i];
  return NULL;
}

/* `language`'s entry, added when it has none (under the lock, so that two threads add it once); NULL when full. */
static DenseLanguage *dense_entry_added(const TSLanguage *language) {
  DenseLanguage *entry = dense_entry(language);
  if (entry != NULL) return entry;
  while (atomic_flag_test_and_set(&dense_lock)) {
  }
  entry = dense_entry(language);
  int n = atomic_load(&dense_count);
  if (entry == NULL && n < DENSE_LANGUAGES) {
    entry = &dense_languages[n];
    entry->original = language;
    atomic_store(&entry->dense, NULL);
    atomic_store(&entry->parses, 0);
    atomic_store(&dense_count, n + 1);
  }
  atomic_flag_clear(&dense_lock);
  return entry;
}

/* The language a parse of `language` is given: its dense copy once made, else itself (counting the parse). */
static const TSLanguage *dense_language(const TSLanguage *language) {
  DenseLanguage *entry = dense_entry_added(language);
  if (entry == NULL) return language;
  const TSLanguage *dense = atomic_load(&entry->dense);
  if (dense != NULL) return dense;
  /* One thread counts the DENSE_AFTER-th parse: that one makes the copy, the others go on with the original. */
  if (atomic_fetch_add(&entry->parses, 1) + 1 != DENSE_AFTER) return language;
  dense = make_dense(language);
  if (dense == NULL) return language;
  atomic_store(&entry->dense, dense);
  return dense;
}

/* Whether this process has made `language`'s dense copy. */
static bool has_dense(const TSLanguage *language) {
  DenseLanguage *entry = dense_entry(language);
  return entry != NULL && atomic_load(&entry->dense) != NULL;
}
#else
/* (no C11 atomics with MSVC: the languages' own tables, searched) */
static const TSLanguage *dense_language(const TSLanguage *language) { return language; }
static bool has_dense(const TSLanguage *language) { (void)language; return false; }
#endif

#define THROW(msg) do { napi_throw_error(env, "COMITY_NATIVE_PARSE", msg); return NULL; } while (0)

/* The type tag tree-sitter's grammar packages put on their `language` external ("tree-sitter", "language" hashed
 * with BLAKE2, in each grammar's bindings/node/binding.cc): an external without it (another addon's handle, a
 * watch of this addon's) is never read as a grammar's tables. */
static const napi_type_tag LANGUAGE_TYPE_TAG = {0x8AF2E5212AD58ABFULL, 0xD5006CAD83ABBA16ULL};

static const TSLanguage *language_of(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &LANGUAGE_TYPE_TAG, &tagged) != napi_ok || !tagged) return NULL;
  void *ptr = NULL;
  if (napi_get_value_external(env, value, &ptr) != napi_ok) return NULL;
  return ptr;
}

/* The state's tree (s->count nodes) packed into an ArrayBuffer, in the layout of packFlatTreeData. */
static napi_value packed_tree(napi_env env, State *s) {
  size_t n = s->count;
  void *data = NULL;
  napi_value buffer;
  if (napi_create_arraybuffer(env, n * 17, &data, &buffer) != napi_ok) THROW("out of memory");
  char *out = data;
  memcpy(out, s->starts, n * 4);
  memcpy(out + 4 * n, s->ends, n * 4);
  memcpy(out + 8 * n, s->parents, n * 4);
  memcpy(out + 12 * n, s->types, n * 2);
  memcpy(out + 14 * n, s->fields, n * 2);
  memcpy(out + 16 * n, s->flags, n);
  return buffer;
}

/*
 * UTF-8 bytes into the state's text as UTF-16, as Buffer's toString("utf8") decodes them (the WHATWG decoder: each
 * maximal ill-formed subsequence is one U+FFFD; a byte order mark is kept); the number of units, or -1 when out of
 * memory.
 */
static ptrdiff_t decode_utf8(State *s, const uint8_t *bytes, size_t n) {
  /* At most one unit a byte. */
  if (!reserve_text(s, n + 1)) return -1;
  uint16_t *out = s->text;
  size_t k = 0;
  uint32_t cp = 0, needed = 0, seen = 0, lower = 0x80, upper = 0xbf;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = bytes[i];
    if (needed == 0) {
      if (b <= 0x7f) out[k++] = b;
      else if (b >= 0xc2 && b <= 0xdf) { needed = 1; cp = b & 0x1f; }
      else if (b >= 0xe0 && b <= 0xef) { if (b == 0xe0) lower = 0xa0; if (b == 0xed) upper = 0x9f; needed = 2; cp = b & 0xf; }
      else if (b >= 0xf0 && b <= 0xf4) { if (b == 0xf0) lower = 0x90; if (b == 0xf4) upper = 0x8f; needed = 3; cp = b & 0x7; }
      else out[k++] = 0xfffd;
      continue;
    }
    if (b < lower || b > upper) {
      /* The sequence so far is one U+FFFD, and this byte starts afresh. */
      cp = needed = seen = 0; lower = 0x80; upper = 0xbf;
      out[k++] = 0xfffd;
      i--;
      continue;
    }
    lower = 0x80; upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen < needed) continue;
    if (cp > 0xffff) { cp -= 0x10000; out[k++] = (uint16_t)(0xd800 + (cp >> 10)); out[k++] = (uint16_t)(0xdc00 + (cp & 0x3ff)); }
    else out[k++] = (uint16_t)cp;
    cp = needed = seen = 0;
  }
  if (needed != 0) out[k++] = 0xfffd;
  return (ptrdiff_t)k;
}

/* What one parse may spend: until `deadline` on the monotonic clock (none when `limited` is 0), and `max_bytes` of the
 * arena (0: no bound). tree-sitter asks `over_budget` every hundred or so operations of the parse; a parse that
 * never ends (a grammar's error recovery can loop on a few bytes of half-written code) is cancelled there. */
typedef struct {
  struct timespec deadline;
  int limited;
  size_t max_bytes;
  const Arena *arena;
  const int32_t *cancel; /* another thread sets it to stop this parse (a pool stopping a worker), or NULL */
  int exceeded; /* 1: the deadline passed (or the parse was cancelled); 2: the memory bound */
} Budget;

static bool over_budget(TSParseState *state) {
  Budget *b = state->payload;
  if (b->max_bytes != 0 && b->arena->allocated > b->max_bytes) { b->exceeded = 2; return true; }
  if (b->cancel != NULL && __atomic_load_n(b->cancel, __ATOMIC_RELAXED) != 0) { b->exceeded = 1; return true; }
  if (!b->limited) return false;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (now.tv_sec > b->deadline.tv_sec || (now.tv_sec == b->deadline.tv_sec && now.tv_nsec >= b->deadline.tv_nsec)) { b->exceeded = 1; return true; }
  return false;
}

/* The text to parse, as UTF-16LE bytes. */
typedef struct {
  const char *bytes;
  uint32_t length;
} Text;

static const char *read_text(void *payload, uint32_t byte_index, TSPoint position, uint32_t *bytes_read) {
  (void)position;
  const Text *t = payload;
  if (byte_index >= t->length) { *bytes_read = 0; return ""; }
  *bytes_read = t->length - byte_index;
  return t->bytes + byte_index;
}

/* Parses `text` with `language` into the state's arrays and returns the tree packed (an ArrayBuffer), or null when
 * tree-sitter made none; NULL when an exception is pending, which is COMITY_PARSE_TIMEOUT or COMITY_PARSE_MEMORY when
 * the parse went over its budget. */
static napi_value parse_text(napi_env env, State *s, napi_value lang, napi_value text, double deadline_ms, double max_bytes, const int32_t *cancel) {
  const TSLanguage *language = language_of(env, lang);
  if (language == NULL) THROW("not a tree-sitter language");
  size_t length = 0;
  bool typed = false;
  napi_is_typedarray(env, text, &typed);
  if (typed) {
    /* UTF-8 bytes (a Buffer): decoded here, with no JavaScript string made of them. */
    napi_typedarray_type kind;
    size_t n = 0;
    void *data = NULL;
    if (napi_get_typedarray_info(env, text, &kind, &n, &data, NULL, NULL) != napi_ok || kind != napi_uint8_array) THROW("the text is not a string nor UTF-8 bytes");
    ptrdiff_t units = decode_utf8(s, data, n);
    if (units < 0) THROW("out of memory");
    length = (size_t)units;
  } else {
    if (napi_get_value_string_utf16(env, text, NULL, 0, &length) != napi_ok) THROW("the text is not a string");
    if (!reserve_text(s, length + 1)) THROW("out of memory");
    napi_get_value_string_utf16(env, text, (char16_t *)s->text, length + 1, &length);
  }
  Budget budget = { { 0, 0 }, 0, max_bytes > 0 ? (size_t)max_bytes : 0, &s->arena, cancel, 0 };
  if (deadline_ms > 0) {
    clock_gettime(CLOCK_MONOTONIC, &budget.deadline);
    long long ns = (long long)budget.deadline.tv_nsec + (long long)(deadline_ms * 1e6);
    budget.deadline.tv_sec += (time_t)(ns / 1000000000LL);
    budget.deadline.tv_nsec = (long)(ns % 1000000000LL);
    budget.limited = 1;
  }
  arena_begin(&s->arena);
  TSParser *parser = ts_parser_new();
  comity_use_fast_lexer(parser);
  if (!ts_parser_set_language(parser, dense_language(language))) {
    ts_parser_delete(parser);
    arena_end(&s->arena);
    THROW("incompatible language version");
  }
  Text input_text = { (const char *)s->text, (uint32_t)(length * 2) };
  TSInput input = { &input_text, read_text, TSInputEncodingUTF16LE, NULL };
  TSParseOptions options = { &budget, over_budget };
  TSTree *tree = ts_parser_parse_with_options(parser, NULL, input, options);
  int ok = tree == NULL ? 1 : copy_tree(s, tree);
  /* The parser is deleted (its external scanner frees what it allocated); the tree goes with the arena. */
  ts_parser_delete(parser);
  arena_end(&s->arena);
  if (tree == NULL) {
    s->count = 0;
    if (budget.exceeded == 1) { napi_throw_error(env, "COMITY_PARSE_TIMEOUT", "the parse went past its deadline"); return NULL; }
    if (budget.exceeded == 2) { napi_throw_error(env, "COMITY_PARSE_MEMORY", "the parse went past its memory bound"); return NULL; }
    napi_value nul;
    napi_get_null(env, &nul);
    return nul;
  }
  if (!ok) THROW("out of memory");
  return packed_tree(env, s);
}

/* A number argument, or `otherwise` when it is missing or not a number. */
static double number_or(napi_env env, size_t argc, napi_value *argv, size_t i, double otherwise) {
  double v = otherwise;
  if (i < argc && napi_get_value_double(env, argv[i], &v) != napi_ok) v = otherwise;
  return v;
}

/* The first element of an Int32Array argument (over a SharedArrayBuffer: another thread writes it), or NULL. */
static const int32_t *flag_of(napi_env env, size_t argc, napi_value *argv, size_t i) {
  bool typed = false;
  if (i >= argc || napi_is_typedarray(env, argv[i], &typed) != napi_ok || !typed) return NULL;
  napi_typedarray_type kind;
  size_t n = 0;
  void *data = NULL;
  if (napi_get_typedarray_info(env, argv[i], &kind, &n, &data, NULL, NULL) != napi_ok || kind != napi_int32_array || n < 1) return NULL;
  return data;
}

/* parse(language, text, deadlineMs, maxBytes, cancel): ArrayBuffer (count = byteLength / 17), or null when tree-sitter
 * returned no tree. `deadlineMs` (0: none) and `maxBytes` (0: none) bound the parse, and `cancel` (an Int32Array whose
 * first element another thread may set; optional) stops it: past any, it throws, with the code COMITY_PARSE_TIMEOUT
 * or COMITY_PARSE_MEMORY. */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  State *s = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) THROW("parse(language, text, deadlineMs, maxBytes, cancel)");
  if (napi_get_instance_data(env, (void **)&s) != napi_ok || s == NULL) THROW("not initialised");
  return parse_text(env, s, argv[0], argv[1], number_or(env, argc, argv, 2, 0), number_or(env, argc, argv, 3, 0), flag_of(env, argc, argv, 4));
}

/* language(language): { names, kinds, fields, dense }: each symbol's name and kind (0 regular, 1 anonymous,
 * 2 auxiliary, 3 supertype), each field's name (index 0 is null), and whether its parses now read a dense table. */
static napi_value language_info(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) THROW("language(language)");
  const TSLanguage *language = language_of(env, argv[0]);
  if (language == NULL) THROW("not a tree-sitter language");
  uint32_t symbols = ts_language_symbol_count(language);
  uint32_t fields = ts_language_field_count(language);
  napi_value result, names, kinds, fieldNames, value;
  napi_create_object(env, &result);
  napi_create_array_with_length(env, symbols, &names);
  napi_create_array_with_length(env, symbols, &kinds);
  for (uint32_t i = 0; i < symbols; i++) {
    const char *name = ts_language_symbol_name(language, (TSSymbol)i);
    if (name) napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &value); else napi_get_null(env, &value);
    napi_set_element(env, names, i, value);
    napi_create_uint32(env, (uint32_t)ts_language_symbol_type(language, (TSSymbol)i), &value);
    napi_set_element(env, kinds, i, value);
  }
  napi_create_array_with_length(env, fields + 1, &fieldNames);
  napi_get_null(env, &value);
  napi_set_element(env, fieldNames, 0, value);
  for (uint32_t i = 1; i <= fields; i++) {
    const char *name = ts_language_field_name_for_id(language, (TSFieldId)i);
    if (name) napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &value); else napi_get_null(env, &value);
    napi_set_element(env, fieldNames, i, value);
  }
  napi_set_named_property(env, result, "names", names);
  napi_set_named_property(env, result, "kinds", kinds);
  napi_set_named_property(env, result, "fields", fieldNames);
  napi_get_boolean(env, has_dense(language), &value);
  napi_set_named_property(env, result, "dense", value);
  return result;
}

NAPI_MODULE_INIT() {
  State *s = calloc(1, sizeof(State));
  if (s == NULL) return NULL;
  /* Once for the addon's copy of the runtime, whichever thread loads it first: inside a parse, the thread's arena;
   * outside, malloc. */
#ifdef _WIN32
  set_allocator();
#else
  set_allocator_once();
#endif
  if (napi_set_instance_data(env, s, free_state, NULL) != napi_ok) { free(s); return NULL; }
  napi_value fn;
  napi_create_function(env, "parse", NAPI_AUTO_LENGTH, parse, NULL, &fn);
  napi_set_named_property(env, exports, "parse", fn);
  napi_create_function(env, "language", NAPI_AUTO_LENGTH, language_info, NULL, &fn);
  napi_set_named_property(env, exports, "language", fn);
#ifndef _WIN32
  napi_create_function(env, "statMany", NAPI_AUTO_LENGTH, comity_stat_many, NULL, &fn);
  napi_set_named_property(env, exports, "statMany", fn);
#endif
#ifdef __linux__
  comity_register_watch(env, exports);
#endif
#ifndef _WIN32
  comity_register_spawn(env, exports);
#endif
  return exports;
}
