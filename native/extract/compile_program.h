/*
 * The program, from JavaScript's data (what comity_extract_program reads).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_COMPILE_PROGRAM_H
#define COMITY_EXTRACT_COMPILE_PROGRAM_H

namespace comity {

bool getProperty(napi_env env, napi_value object, const char *name, napi_value *out) {
  bool has = false;
  if (napi_has_named_property(env, object, name, &has) != napi_ok || !has) return false;
  return napi_get_named_property(env, object, name, out) == napi_ok;
}

/** A string property, or nullopt for null, undefined or a missing one. */
std::optional<std::string> stringOf(napi_env env, napi_value value) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string) return std::nullopt;
  size_t length = 0;
  napi_get_value_string_utf8(env, value, nullptr, 0, &length);
  std::string out(length, '\0');
  napi_get_value_string_utf8(env, value, out.data(), length + 1, &length);
  return out;
}

std::optional<std::string> stringProperty(napi_env env, napi_value object, const char *name) {
  napi_value v;
  if (!getProperty(env, object, name, &v)) return std::nullopt;
  return stringOf(env, v);
}

std::vector<napi_value> arrayProperty(napi_env env, napi_value object, const char *name) {
  std::vector<napi_value> out;
  napi_value v;
  if (!getProperty(env, object, name, &v)) return out;
  uint32_t length = 0;
  if (napi_get_array_length(env, v, &length) != napi_ok) return out;
  for (uint32_t i = 0; i < length; i++) {
    napi_value e;
    napi_get_element(env, v, i, &e);
    out.push_back(e);
  }
  return out;
}

bool allNamed(const Step &s) {
  if (s.kind == Step::Anchor || s.kind == Step::Node) return true;
  if (s.kind == Step::Alt) {
    for (const Step &a : s.alternatives)
      if (!allNamed(a)) return false;
    return true;
  }
  return false;
}

Step compileStep(napi_env env, napi_value v, ComityProgram &p) {
  Step s;
  std::string kind = stringProperty(env, v, "kind").value_or("");
  if (kind == "anchor") {
    s.kind = Step::Anchor;
    return s;
  }
  auto field = stringProperty(env, v, "field");
  if (field) {
    s.inField = true;
    int id = p.fieldId(*field);
    s.field = id < 0 ? NO_NAME : id;
  }
  for (napi_value c : arrayProperty(env, v, "captures")) s.captures.push_back(p.captureId(stringOf(env, c).value_or("")));
  if (kind == "alternation") {
    s.kind = Step::Alt;
    for (napi_value a : arrayProperty(env, v, "alternatives")) s.alternatives.push_back(compileStep(env, a, p));
    return s;
  }
  if (kind == "token") {
    s.kind = Step::Token;
    auto text = stringProperty(env, v, "text");
    s.type = text ? p.nameId(*text) : WILDCARD;
    return s;
  }
  s.kind = Step::Node;
  auto type = stringProperty(env, v, "type");
  s.type = type ? p.nameId(*type) : WILDCARD;
  for (napi_value c : arrayProperty(env, v, "children")) s.children.push_back(compileStep(env, c, p));
  s.namedOnly = true;
  for (const Step &c : s.children) s.namedOnly = s.namedOnly && allNamed(c);
  return s;
}

void rootNames(const Step &s, std::vector<int> &out) {
  if (s.kind == Step::Alt) {
    for (const Step &a : s.alternatives) rootNames(a, out);
    return;
  }
  if (s.type != WILDCARD) out.push_back(s.type);
}

void deleteProgram(napi_env, void *data, void *) { delete static_cast<ComityProgram *>(data); }

}  // namespace comity

#endif
