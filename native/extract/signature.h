/*
 * Signatures (signature.ts, types.ts): canonical JSON, the rendered form, and the symbol cache's detail.
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_SIGNATURE_H
#define COMITY_EXTRACT_SIGNATURE_H

namespace comity {

struct TypeParam {
  U16 name;
  Opt constraint, def;
  bool hasModifiers = false;
  std::vector<U16> modifiers;
};

struct Param {
  U16 name;
  const char *kind = "positional";
  bool optional = false;
  Opt def, type;
};

struct Sig {
  U16 name;
  std::string kind;
  std::vector<U16> modifiers;
  std::vector<TypeParam> typeParams;
  bool hasParams = false;
  std::vector<Param> params;
  Opt returns;
  std::vector<U16> heritage;
  Opt type, value;
  std::vector<Sig> overloads;
  // (moved, not copied, when a vector of them grows)
  Sig() = default;
  Sig(const Sig &) = default;
  Sig(Sig &&) noexcept = default;
  Sig &operator=(const Sig &) = default;
  Sig &operator=(Sig &&) noexcept = default;
};

Sig emptySignature(const U16 &name, const std::string &kind) {
  Sig s;
  s.name = name;
  s.kind = kind;
  return s;
}

void jsonStrings(std::string &out, const std::vector<U16> &a) {
  out.push_back('[');
  for (size_t i = 0; i < a.size(); i++) {
    if (i > 0) out.push_back(',');
    appendJson(out, V16(a[i]));
  }
  out.push_back(']');
}

/** Type parameters as the canonical form and the cache's detail both write them: [name, constraint, default(, modifiers)]. */
void typeParamsJson(std::string &out, const std::vector<TypeParam> &params) {
  out.push_back('[');
  for (size_t i = 0; i < params.size(); i++) {
    const TypeParam &t = params[i];
    if (i > 0) out.push_back(',');
    out.push_back('[');
    appendJson(out, V16(t.name));
    out.push_back(',');
    appendJson(out, t.constraint);
    out.push_back(',');
    appendJson(out, t.def);
    if (t.hasModifiers) {
      out.push_back(',');
      jsonStrings(out, t.modifiers);
    }
    out.push_back(']');
  }
  out.push_back(']');
}

void canonicalOne(std::string &out, const Sig &x) {
  out.push_back('[');
  appendJson(out, V16(x.name));
  out.push_back(',');
  appendJsonAscii(out, x.kind.c_str());
  out.push_back(',');
  std::vector<U16> mods = x.modifiers;
  if (mods.size() >= 2) std::stable_sort(mods.begin(), mods.end());
  jsonStrings(out, mods);
  out.push_back(',');
  typeParamsJson(out, x.typeParams);
  out.push_back(',');
  if (!x.hasParams) out += "null";
  else {
    out.push_back('[');
    for (size_t i = 0; i < x.params.size(); i++) {
      const Param &p = x.params[i];
      if (i > 0) out.push_back(',');
      out.push_back('[');
      appendJson(out, V16(p.name));
      out.push_back(',');
      appendJsonAscii(out, p.kind);
      out += p.optional ? ",true," : ",false,";
      appendJson(out, p.def);
      out.push_back(',');
      appendJson(out, p.type);
      out.push_back(']');
    }
    out.push_back(']');
  }
  out.push_back(',');
  appendJson(out, x.returns);
  out.push_back(',');
  jsonStrings(out, x.heritage);
  out.push_back(',');
  appendJson(out, x.type);
  out.push_back(',');
  appendJson(out, x.value);
  out.push_back(']');
}

/** canonicalSignature, as UTF-8 (what its hash hashes). */
std::string canonicalSignature(const Sig &s) {
  std::string out = "[";
  canonicalOne(out, s);
  out += ",[";
  for (size_t i = 0; i < s.overloads.size(); i++) {
    if (i > 0) out.push_back(',');
    canonicalOne(out, s.overloads[i]);
  }
  out += "]]";
  return out;
}

U16 renderSignature(const Sig &s) {
  if (!s.overloads.empty()) {
    U16 out;
    for (size_t i = 0; i < s.overloads.size(); i++) {
      if (i > 0) out.push_back(u'\n');
      out += renderSignature(s.overloads[i]);
    }
    return out;
  }
  U16 mods, head;
  for (const U16 &m : s.modifiers) {
    if (startsWith(m, "decorator:")) {
      head += m.substr(10);
      head.push_back(u'\n');
    } else {
      if (!mods.empty()) mods.push_back(u' ');
      mods += m;
    }
  }
  if (!mods.empty()) {
    head += mods;
    head.push_back(u' ');
  }
  head += u(s.kind.c_str());
  head.push_back(u' ');
  head += s.name;
  if (!s.typeParams.empty()) {
    head.push_back(u'<');
    for (size_t i = 0; i < s.typeParams.size(); i++) {
      const TypeParam &t = s.typeParams[i];
      if (i > 0) head += u", ";
      if (t.hasModifiers) {
        for (size_t k = 0; k < t.modifiers.size(); k++) {
          if (k > 0) head.push_back(u' ');
          head += t.modifiers[k];
        }
        head.push_back(u' ');
      }
      head += t.name;
      if (t.constraint) head += u" extends " + *t.constraint;
      if (t.def) head += u" = " + *t.def;
    }
    head.push_back(u'>');
  }
  if (s.hasParams) {
    head.push_back(u'(');
    for (size_t i = 0; i < s.params.size(); i++) {
      const Param &p = s.params[i];
      if (i > 0) head += u", ";
      bool rest = std::strcmp(p.kind, "rest") == 0, varKeyword = std::strcmp(p.kind, "var_keyword") == 0;
      if (rest) head += u"...";
      else if (varKeyword) head += u"**";
      head += p.name;
      if (p.optional && !p.def && !rest && !varKeyword) head.push_back(u'?');
      if (p.type) head += u": " + *p.type;
      if (p.def) head += u" = " + *p.def;
    }
    head.push_back(u')');
  }
  U16 out = head;
  if (s.returns) out += u": " + *s.returns;
  for (const U16 &h : s.heritage) out += u" " + h;
  if (s.type) out += u" : " + *s.type;
  if (s.value) out += u" = " + *s.value;
  return out;
}

/** The symbol cache's Detail (symbol-cache.ts encodeDetail), as JSON. */
void detailJson(std::string &out, const Sig &x, const U16 &name, const std::string &kind) {
  // The slots, trailing nulls left out (down to 3).
  std::vector<std::string> slots;
  std::string s;
  jsonStrings(s, x.modifiers);
  slots.push_back(s);
  s.clear();
  typeParamsJson(s, x.typeParams);
  slots.push_back(s);
  if (!x.hasParams) slots.push_back("0");
  else {
    s = "[";
    for (size_t i = 0; i < x.params.size(); i++) {
      const Param &p = x.params[i];
      if (i > 0) s.push_back(',');
      std::vector<std::string> ps;
      std::string v;
      appendJson(v, V16(p.name));
      ps.push_back(v);
      const char *k = p.kind;
      const char *letter = std::strcmp(k, "positional") == 0 ? "p" : std::strcmp(k, "positional_only") == 0 ? "o" : std::strcmp(k, "positional_or_keyword") == 0 ? "k" : std::strcmp(k, "keyword_only") == 0 ? "w" : std::strcmp(k, "rest") == 0 ? "r" : "v";
      ps.push_back(std::string("\"") + letter + "\"");
      ps.push_back(p.optional ? "1" : "0");
      v.clear();
      appendJson(v, p.def);
      ps.push_back(v);
      v.clear();
      appendJson(v, p.type);
      ps.push_back(v);
      while (ps.size() > 3 && ps.back() == "null") ps.pop_back();
      s.push_back('[');
      for (size_t k2 = 0; k2 < ps.size(); k2++) {
        if (k2 > 0) s.push_back(',');
        s += ps[k2];
      }
      s.push_back(']');
    }
    s.push_back(']');
    slots.push_back(s);
  }
  s.clear();
  appendJson(s, x.returns);
  slots.push_back(s);
  s.clear();
  if (x.heritage.empty()) s = "null";
  else jsonStrings(s, x.heritage);
  slots.push_back(s);
  s.clear();
  appendJson(s, x.type);
  slots.push_back(s);
  s.clear();
  appendJson(s, x.value);
  slots.push_back(s);
  s.clear();
  if (x.overloads.empty()) s = "null";
  else {
    s = "[";
    for (size_t i = 0; i < x.overloads.size(); i++) {
      if (i > 0) s.push_back(',');
      detailJson(s, x.overloads[i], name, kind);
    }
    s.push_back(']');
  }
  slots.push_back(s);
  s.clear();
  if (x.name == name) s = "null";
  else appendJson(s, V16(x.name));
  slots.push_back(s);
  s.clear();
  if (x.kind == kind) s = "null";
  else appendJsonAscii(s, x.kind.c_str());
  slots.push_back(s);
  while (slots.size() > 3 && slots.back() == "null") slots.pop_back();
  out.push_back('[');
  for (size_t i = 0; i < slots.size(); i++) {
    if (i > 0) out.push_back(',');
    out += slots[i];
  }
  out.push_back(']');
}

}  // namespace comity

#endif
