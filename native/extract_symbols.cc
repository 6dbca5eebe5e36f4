/*
 * See extract_symbols.h. Each part names the TypeScript it ports; the port keeps that code's order of operations
 * wherever the output depends on it (insertion orders, stable sorts, first matches), and reads the flat tree as
 * src/symbols/flat-tree.ts's FlatNode does. Text is UTF-16, as JavaScript's strings are; it becomes UTF-8 only in
 * the output and for hashing (as TextEncoder encodes it: a lone surrogate is U+FFFD).
 *
 * What it does not port it refuses (`Unsupported`), and the caller extracts that file in JavaScript: a file whose
 * JavaScript extraction would throw (and report `extract_failed`), or deeper than the recursion allowed here.
 */
#include "extract_symbols.h"

#include <algorithm>
#include <type_traits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "unicode_words.h"

// The parts, in order (see each).
#include "extract/text.h"
#include "extract/program.h"
#include "extract/tree.h"
#include "extract/match_query.h"
#include "extract/normalize.h"
#include "extract/signature.h"
#include "extract/extract_typescript.h"
#include "extract/extract_python.h"
#include "extract/extract_references.h"
#include "extract/entry_text.h"
#include "extract/compile_program.h"

using namespace comity;

extern "C" napi_value comity_extract_program(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  if (napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr) != napi_ok || argc < 1) {
    napi_throw_error(env, "COMITY_NATIVE_PARSE", "extractProgram(spec)");
    return nullptr;
  }
  auto p = std::make_unique<ComityProgram>();
  // Type names: by type id; none (or undefined) is ERROR, as FlatTree.typeName says.
  std::vector<napi_value> typeNames = arrayProperty(env, arg, "typeNames");
  p->nameOfType.assign(0x10000, 0);
  auto nameIdOf = [&](const std::string &name) {
    auto it = p->nameIds.find(name);
    if (it != p->nameIds.end()) return it->second;
    int id = static_cast<int>(p->names.size());
    p->names.push_back(u(name.c_str()));
    p->nameIds.emplace(name, id);
    return id;
  };
  int error = nameIdOf("ERROR");
  for (size_t i = 0; i < 0x10000; i++) {
    std::optional<std::string> name = i < typeNames.size() && i != ERROR_TYPE ? stringOf(env, typeNames[i]) : std::nullopt;
    p->nameOfType[i] = name ? nameIdOf(*name) : error;
  }
  napi_value named;
  void *data = nullptr;
  size_t length = 0;
  napi_typedarray_type kind;
  napi_value buffer;
  size_t offset;
  if (!getProperty(env, arg, "named", &named) || napi_get_typedarray_info(env, named, &kind, &length, &data, &buffer, &offset) != napi_ok || kind != napi_uint8_array || length != 0x10000) {
    napi_throw_error(env, "COMITY_NATIVE_PARSE", "extractProgram: named must be a Uint8Array of 65536");
    return nullptr;
  }
  p->named.assign(static_cast<uint8_t *>(data), static_cast<uint8_t *>(data) + 0x10000);
  std::vector<napi_value> fieldNames = arrayProperty(env, arg, "fieldNames");
  for (size_t i = 1; i < fieldNames.size(); i++) {
    auto name = stringOf(env, fieldNames[i]);
    if (name && p->fieldIds.count(*name) == 0) {
      p->fieldNames.push_back(std::make_unique<std::string>(*name));
      p->fieldIds.emplace(std::string_view(*p->fieldNames.back()), static_cast<int>(i));
    }
  }
  napi_value flag;
  bool commonJs = false;
  if (getProperty(env, arg, "commonJs", &flag)) napi_get_value_bool(env, flag, &commonJs);
  p->commonJs = commonJs;
  p->language = stringProperty(env, arg, "language").value_or("");
  p->python = stringProperty(env, arg, "extractor").value_or("") == "python";
  for (napi_value pv : arrayProperty(env, arg, "patterns")) {
    Pattern pattern;
    napi_value root;
    if (!getProperty(env, pv, "root", &root)) continue;
    pattern.root = compileStep(env, root, *p);
    for (napi_value qv : arrayProperty(env, pv, "predicates")) {
      Predicate q;
      std::string k = stringProperty(env, qv, "kind").value_or("");
      q.capture = p->captureId(stringProperty(env, qv, "capture").value_or(""));
      if (k == "match") {
        q.match = true;
        napi_value regex;
        getProperty(env, qv, "regex", &regex);
        std::string source = stringProperty(env, regex, "source").value_or("");
        q.regex = std::regex(source, std::regex::ECMAScript);
        if (source == "^[A-Z]") q.form = Predicate::FirstUpper;
        else if (source.size() > 4 && source.rfind("^(", 0) == 0 && source.compare(source.size() - 2, 2, ")$") == 0) {
          std::string inner = source.substr(2, source.size() - 4);
          bool plain = !inner.empty() && inner.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_|") == std::string::npos && inner.front() != '|' && inner.back() != '|' && inner.find("||") == std::string::npos;
          if (plain) {
            q.form = Predicate::OneOf;
            size_t from = 0;
            for (size_t bar = inner.find('|'); ; bar = inner.find('|', from)) {
              q.words.push_back(u(inner.substr(from, bar == std::string::npos ? std::string::npos : bar - from).c_str()));
              if (bar == std::string::npos) break;
              from = bar + 1;
            }
          }
        }
      } else {
        napi_value other;
        getProperty(env, qv, "other", &other);
        auto capture = stringProperty(env, other, "capture");
        if (capture) q.otherCapture = p->captureId(*capture);
        else q.text = u(stringProperty(env, other, "text").value_or("").c_str());
      }
      pattern.predicates.push_back(std::move(q));
    }
    // match-query.ts leafCaptures: one named node of given (distinct) types, no children, field nor predicate.
    const Step &r = pattern.root;
    std::vector<const Step *> alternatives;
    if (r.kind == Step::Alt)
      for (const Step &a : r.alternatives) alternatives.push_back(&a);
    else alternatives.push_back(&r);
    bool leaf = pattern.predicates.empty() && !r.captures.empty();
    std::set<int> types;
    for (const Step *a : alternatives) {
      bool bare = a->kind == Step::Node && a->type != WILDCARD && a->children.empty() && !a->inField;
      leaf = leaf && bare && types.insert(a->type).second && (r.kind != Step::Alt || a->captures.empty());
    }
    pattern.leaf = leaf;
    if (leaf) pattern.leafCaptures = r.captures;
    for (size_t k = 0; k < pattern.predicates.size(); k++) {
      const Predicate &q = pattern.predicates[k];
      if (q.match || q.otherCapture < 0) pattern.early[q.capture].push_back(static_cast<int>(k));
    }
    p->patterns.push_back(std::move(pattern));
  }
  p->rootName.assign(p->names.size() + 1, 0);
  p->byType.assign(p->names.size() + 1, {});
  for (size_t i = 0; i < p->patterns.size(); i++) {
    std::vector<int> names;
    rootNames(p->patterns[i].root, names);
    for (int name : names) {
      if (name < 0) continue;
      auto &list = p->byType[static_cast<size_t>(name)];
      if (std::find(list.begin(), list.end(), static_cast<int>(i)) == list.end()) list.push_back(static_cast<int>(i));
      p->rootName[static_cast<size_t>(name)] = 1;
    }
  }
  napi_value external;
  ComityProgram *raw = p.release();
  if (napi_create_external(env, raw, deleteProgram, nullptr, &external) != napi_ok) {
    delete raw;
    return nullptr;
  }
  return external;
}

extern "C" const ComityProgram *comity_program_of(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return nullptr;
  void *ptr = nullptr;
  if (napi_get_value_external(env, value, &ptr) != napi_ok) return nullptr;
  return static_cast<const ComityProgram *>(ptr);
}

extern "C" char *comity_extract(const ComityProgram *program, const uint16_t *text, size_t length, const ComityFlatTree *flat, const uint16_t *path, size_t path_length, int declaration, int printed_only, size_t *out_length) {
  try {
    const ComityProgram &p = *program;
    Tree t(p, reinterpret_cast<const char16_t *>(text), static_cast<int32_t>(length), *flat);
    if (t.count() == 0) return nullptr;
    const std::vector<Match> &matches = matchTree(t);
    // combined-query.ts splitMatches
    std::vector<const Match *> definitions, references;
    std::vector<Capture> lexical;
    for (const Match &m : matches) {
      if (m.captures.empty()) continue;
      Role first = p.roles[static_cast<size_t>(m.captures[0].name)];
      bool definition = first == SCOPE_FUNCTION || first == SCOPE_GLOBAL || first == SCOPE_OTHER;
      for (const Capture &c : m.captures) definition = definition || p.roles[static_cast<size_t>(c.name)] == DEFINITION;
      if (definition) definitions.push_back(&m);
      else if (first == COMMENT || first == STRING) lexical.push_back(m.captures[0]);
      else references.push_back(&m);
    }
    std::string diagnostics = "[]";
    int line = parseErrorLine(t);
    if (line != 0) {
      diagnostics = "[{\"code\":\"parse_error\",\"severity\":\"warning\",\"path\":";
      appendJson(diagnostics, V16(reinterpret_cast<const char16_t *>(path), path_length));
      diagnostics += ",\"message\":\"syntax error" + (line > 0 ? " at line " + std::to_string(line) : std::string()) + ": symbols come from the parts that parse\"}]";
    }
    Extractor x(t, indexLexical(t, lexical));
    std::vector<Raw> raw;
    if (p.python) {
      PyExtractor py(t, x);
      raw = py.extract(definitions, p);
    } else {
      raw = x.extract(definitions, p, declaration != 0);
    }
    std::vector<Record> records = finalizeSymbols(t, raw);
    References refs(t, p);
    std::vector<Reference> found = refs.extract(references);
    std::string out = entryText(p.language, records, found, diagnostics, printed_only != 0);
    char *bytes = static_cast<char *>(std::malloc(out.size() + 1));
    if (bytes == nullptr) return nullptr;
    std::memcpy(bytes, out.data(), out.size());
    bytes[out.size()] = 0;
    *out_length = out.size();
    return bytes;
  } catch (...) {
    return nullptr;
  }
}
