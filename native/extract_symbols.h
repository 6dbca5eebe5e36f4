/*
 * The symbol extraction of TypeScript, TSX, JavaScript and Python files, in C++: a port of src/symbols/ (the query
 * matcher, the lexical index and normalisation, the TypeScript and Python extractors, references, grouping, signatures, hashes and the
 * cache entry's text), run on the flat copy flat_parse.c makes of a tree. Its output is the symbol cache's entry
 * text (src/symbols/symbol-cache.ts, entryText) of the JavaScript extraction of the same text, byte for byte;
 * test/symbols/native-extract.test.ts holds the two equal.
 */
#ifndef COMITY_EXTRACT_SYMBOLS_H
#define COMITY_EXTRACT_SYMBOLS_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A tree as flat_parse.c copies it: n visible nodes in pre-order. */
typedef struct {
  size_t count;
  const int32_t *starts, *ends, *parents;
  const uint16_t *types, *fields;
  const uint8_t *flags;
} ComityFlatTree;

typedef struct ComityProgram ComityProgram;

/* extractProgram({ typeNames, named, fieldNames, patterns, commonJs }): an external holding a compiled program. */
napi_value comity_extract_program(napi_env env, napi_callback_info info);

/* The program an external holds; NULL when it is not one. */
const ComityProgram *comity_program_of(napi_env env, napi_value value);

/*
 * The entry text of one file's extraction (UTF-8, malloc'd, *length bytes), or NULL when this port does not handle
 * the file (the caller then extracts it in JavaScript). `path`: UTF-16, for the diagnostics; `declaration`: a .d.ts;
 * `printed_only`: the entry's first line left empty (nothing will store it).
 */
char *comity_extract(const ComityProgram *program, const uint16_t *text, size_t length, const ComityFlatTree *tree, const uint16_t *path, size_t path_length, int declaration, int printed_only, size_t *out_length);

#ifdef __cplusplus
}
#endif
#endif
