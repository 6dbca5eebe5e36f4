/*
 * Parses a text with a tree-sitter grammar and returns its tree as one flat
 * copy, in the layout of src/symbols/flat-tree.ts's packFlatTreeData: for n
 * visible nodes in pre-order, starts (int32 x n), ends (int32 x n), parents
 * (int32 x n), types (uint16 x n), fields (uint16 x n), flags (uint8 x n).
 * Positions are UTF-16 code units, as the text is parsed as UTF-16 (the
 * JavaScript string's own units), exactly as web-tree-sitter parses it.
 *
 * The grammar is the `language` external of a tree-sitter grammar package's
 * node binding (a TSLanguage pointer). Nothing here keeps file contents.
 */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

typedef struct {
  TSParser *parser;
  uint16_t *text;
  size_t text_cap;
  int32_t *starts, *ends, *parents;
  uint16_t *types, *fields;
  uint8_t *flags;
  int32_t *stack;
  size_t cap, stack_cap;
} State;

static void free_state(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  State *s = data;
  if (s->parser) ts_parser_delete(s->parser);
  free(s->text); free(s->starts); free(s->ends); free(s->parents); free(s->types); free(s->fields); free(s->flags); free(s->stack);
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

static int push(State *s, size_t depth, int32_t value) {
  if (depth >= s->stack_cap) {
    size_t cap = s->stack_cap ? s->stack_cap * 2 : 256;
    while (cap <= depth) cap *= 2;
    int32_t *a = realloc(s->stack, cap * 4);
    if (!a) return 0;
    s->stack = a; s->stack_cap = cap;
  }
  s->stack[depth] = value;
  return 1;
}

#define THROW(msg) do { napi_throw_error(env, "COMITY_NATIVE_PARSE", msg); return NULL; } while (0)

static const TSLanguage *language_of(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  void *ptr = NULL;
  if (napi_get_value_external(env, value, &ptr) != napi_ok) return NULL;
  return ptr;
}

/* parse(language, text): ArrayBuffer (count = byteLength / 17), or null when tree-sitter returned no tree. */
static napi_value parse(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  State *s = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) THROW("parse(language, text)");
  if (napi_get_instance_data(env, (void **)&s) != napi_ok || s == NULL) THROW("not initialised");
  const TSLanguage *language = language_of(env, argv[0]);
  if (language == NULL) THROW("not a tree-sitter language");
  size_t length = 0;
  if (napi_get_value_string_utf16(env, argv[1], NULL, 0, &length) != napi_ok) THROW("the text is not a string");
  if (length + 1 > s->text_cap) {
    size_t cap = s->text_cap ? s->text_cap : 65536;
    while (cap < length + 1) cap *= 2;
    uint16_t *t = realloc(s->text, cap * 2);
    if (!t) THROW("out of memory");
    s->text = t; s->text_cap = cap;
  }
  napi_get_value_string_utf16(env, argv[1], (char16_t *)s->text, length + 1, &length);
  if (!ts_parser_set_language(s->parser, language)) THROW("incompatible language version");
  TSTree *tree = ts_parser_parse_string_encoding(s->parser, NULL, (const char *)s->text, (uint32_t)(length * 2), TSInputEncodingUTF16LE);
  if (tree == NULL) {
    napi_value nul;
    napi_get_null(env, &nul);
    return nul;
  }
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  size_t n = 0, depth = 0;
  int ok = 1;
  for (;;) {
    if (!grow(s, n + 1)) { ok = 0; break; }
    TSNode node = ts_tree_cursor_current_node(&cursor);
    s->types[n] = ts_node_symbol(node);
    s->fields[n] = ts_tree_cursor_current_field_id(&cursor);
    s->starts[n] = (int32_t)(ts_node_start_byte(node) >> 1);
    s->ends[n] = (int32_t)(ts_node_end_byte(node) >> 1);
    s->parents[n] = depth == 0 ? -1 : s->stack[depth - 1];
    s->flags[n] = ts_node_is_missing(node) ? 1 : 0;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      if (!push(s, depth, (int32_t)n)) { ok = 0; break; }
      depth++;
      n++;
      continue;
    }
    n++;
    int more = 0;
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) { more = 1; break; }
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
      depth--;
    }
    if (!more) break;
  }
  ts_tree_cursor_delete(&cursor);
  ts_tree_delete(tree);
  if (!ok) THROW("out of memory");
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

/* language(language): { names, kinds, fields }: each symbol's name and kind (0 regular, 1 anonymous, 2 auxiliary,
 * 3 supertype), and each field's name (index 0 is null). */
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
  return result;
}

NAPI_MODULE_INIT() {
  State *s = calloc(1, sizeof(State));
  if (s == NULL) return NULL;
  s->parser = ts_parser_new();
  if (s->parser == NULL || napi_set_instance_data(env, s, free_state, NULL) != napi_ok) { free(s); return NULL; }
  napi_value fn;
  napi_create_function(env, "parse", NAPI_AUTO_LENGTH, parse, NULL, &fn);
  napi_set_named_property(env, exports, "parse", fn);
  napi_create_function(env, "language", NAPI_AUTO_LENGTH, language_info, NULL, &fn);
  napi_set_named_property(env, exports, "language", fn);
  return exports;
}
