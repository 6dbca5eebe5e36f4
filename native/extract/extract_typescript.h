/*
 * The TypeScript extractor (typescript/extract-typescript.ts, ts-signature.ts, common-js-exports.ts).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_EXTRACT_TYPESCRIPT_H
#define COMITY_EXTRACT_EXTRACT_TYPESCRIPT_H

namespace comity {

struct Raw {
  U16 name, qualified;
  std::string kind;
  bool exported = false;
  N node = NONE;
  Sig sig;
  U16 body;
  bool overloadSignature = false;
  Raw() = default;
  Raw(const Raw &) = default;
  Raw(Raw &&) noexcept = default;
  Raw &operator=(const Raw &) = default;
  Raw &operator=(Raw &&) noexcept = default;
};

struct Def {
  N node, nameNode;
  std::string kind;
  int32_t start, end;
};

struct Container {
  U16 name;
  N node, nameNode;
  int32_t start;
};

using Range = std::pair<int32_t, int32_t>;

bool isFunctionValue(const Tree &t, N n) { return t.is(n, "arrow_function") || t.is(n, "function_expression") || t.is(n, "generator_function"); }

bool oneOf(V16 s, std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (eqc(s, n)) return true;
  return false;
}

const std::initializer_list<const char *> MODIFIER_TOKENS = {"static", "async", "get", "set", "*", "abstract", "readonly", "declare", "override", "?", "!", "const", "accessor"};

U16 modifierName(V16 token) {
  if (eq(token, "?")) return u("optional");
  if (eq(token, "*")) return u("generator");
  if (eq(token, "!")) return u("definite");
  return U16(token);
}

struct Owner {
  N declarator = NONE, name = NONE;
};

struct Extractor {
  Tree &t;
  Lexical lex;
  int depth = 0;
  Extractor(Tree &tree, Lexical index) : t(tree), lex(std::move(index)) {}

  U16 normalized(N n, const Ranges &skip = NO_RANGES, bool drop = false) const {
    if (n < 0) return U16();
    return normalizeRange(t, lex, t.start(n), t.end(n), skip, drop);
  }

  Opt typeText(N n) const {
    if (n < 0) return std::nullopt;
    U16 s = normalized(n);
    if (startsWith(s, ":")) return dropPrefix(s, ":", false);
    if (startsWith(s, "->")) return dropPrefix(s, "->", false);
    return s;
  }

  bool textMayMatchWord(int32_t a, int32_t b, const char *word) const { return hasWord(t.slice(a, b), word); }

  // -- ts-signature.ts --

  std::vector<U16> modifiersOf(N node, N nameNode = NONE) {
    std::set<U16> out;
    if (nameNode < 0 || nameNode == node || !modifiersFromText(node, nameNode, out)) {
      for (N c : t.children(node)) {
        V16 type = t.type(c);
        if (oneOf(type, MODIFIER_TOKENS)) {
          if (!t.named(c)) out.insert(modifierName(type));
        } else if (eq(type, "accessibility_modifier")) out.insert(U16(t.text(c)));
        else if (eq(type, "override_modifier")) out.insert(u("override"));
        else if (eq(type, "decorator")) out.insert(u("decorator:") + normalized(c));
      }
    }
    if (decoratedBefore(node)) {
      for (N s = t.previousSibling(node); s >= 0; s = t.previousSibling(s)) {
        if (t.is(s, "decorator")) out.insert(u("decorator:") + normalized(s));
        else if (!t.is(s, "comment")) break;
      }
    }
    if (t.is(node, "generator_function_declaration") || t.is(node, "generator_function")) out.insert(u("generator"));
    if (hasWord(docComment(node), "@deprecated")) out.insert(u("deprecated"));
    for (N child = node, p = t.parent(node); p >= 0; child = p, p = t.parent(p)) {
      if (t.is(p, "ambient_declaration")) out.insert(u("declare"));
      else if (t.is(p, "export_statement")) {
        if (textMayMatchWord(t.start(p), t.start(child), "default") && t.hasAnyChild(p, "default")) out.insert(u("default"));
        if (contains(t.slice(t.start(p), t.start(child)), u'@')) {
          for (N c : t.children(p))
            if (t.is(c, "decorator")) out.insert(u("decorator:") + normalized(c));
        }
      } else break;
    }
    return std::vector<U16>(out.begin(), out.end());
  }

  bool decoratedBefore(N node) const {
    N parent = t.parent(node);
    if (!t.is(parent, "class_body")) return false;
    int32_t i = t.start(node) - 1;
    while (i > t.start(parent) && grammarSpace(t.src[i])) i--;
    if (i < 0 || i >= t.length) return true;
    char16_t c = t.src[i];
    return !(c == u';' || c == u'{' || c == u'}');
  }

  bool modifiersFromText(N node, N nameNode, std::set<U16> &out) const {
    std::vector<U16> found;
    V16 s = t.slice(t.start(node), t.start(nameNode));
    for (size_t k = 0; k < s.size();) {
      char16_t c = s[k];
      size_t from = k;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$') {
        k++;
        while (k < s.size() && (jsWord(s[k]) || s[k] == '$')) k++;
      } else if (!jsSpace(c)) {
        k++;
      } else {
        k++;
        continue;
      }
      V16 token = s.substr(from, k - from);
      if (oneOf(token, {"public", "private", "protected"})) found.push_back(U16(token));
      else if (oneOf(token, MODIFIER_TOKENS) && !eq(token, "?") && !eq(token, "!")) found.push_back(modifierName(token));
      else if (!oneOf(token, {"function", "class", "interface", "enum", "type", "namespace", "module"})) return false;
    }
    int32_t i = t.end(nameNode);
    while (i < t.length && grammarSpace(t.src[i])) i++;
    if (i < t.length) {
      char16_t next = t.src[i];
      if (next == u'/') return false;
      if ((next == u'?' || next == u'!') && i < t.end(node)) found.push_back(modifierName(V16(&t.src[i], 1)));
    }
    for (U16 &m : found) out.insert(m);
    return true;
  }

  static bool typeParamModifier(V16 w) { return eq(w, "const") || eq(w, "in") || eq(w, "out"); }

  std::vector<TypeParam> typeParamsOf(N node) {
    std::vector<TypeParam> out;
    if (node < 0) return out;
    std::vector<N> children = t.children(node);
    for (size_t i = 0; i < children.size(); i++) {
      N c = children[i];
      if (!t.is(c, "type_parameter")) continue;
      N nameNode = t.childForField(c, "name");
      std::vector<U16> words;
      bool have = modifierWords(children, i, nameNode, words);
      TypeParam tp;
      if (!have) {
        tp.name = nameNode >= 0 ? U16(t.text(nameNode)) : normalized(c);
        std::vector<N> own = t.children(c);
        if (!own.empty() && t.is(own[0], "const")) tp.modifiers.push_back(u("const"));
      } else {
        tp.name = words.back();
        tp.modifiers.assign(words.begin(), words.end() - 1);
      }
      tp.hasModifiers = !tp.modifiers.empty();
      Opt constraint = typeText(t.childForField(c, "constraint"));
      if (constraint) constraint = dropPrefix(*constraint, "extends", true);
      Opt def = typeText(t.childForField(c, "value"));
      if (def) def = dropPrefix(*def, "=", false);
      tp.constraint = constraint;
      tp.def = def;
      out.push_back(std::move(tp));
    }
    return out;
  }

  bool errorWords(N error, std::vector<U16> &words) const {
    if (!t.is(error, "ERROR")) return false;
    size_t before = words.size();
    for (N w : t.children(error)) {
      if (t.is(w, "comment")) continue;
      if (!t.is(w, "identifier")) {
        words.resize(before);
        return false;
      }
      words.push_back(U16(t.text(w)));
    }
    if (words.size() == before) return false;
    return true;
  }

  bool modifierWords(const std::vector<N> &siblings, size_t i, N nameNode, std::vector<U16> &words) const {
    N param = siblings[i];
    for (size_t k = i; k-- > 0;) {
      N x = siblings[k];
      if (t.is(x, "comment")) continue;
      std::vector<U16> before;
      if (!errorWords(x, before)) break;
      bool all = true;
      for (auto &w : before) all = all && typeParamModifier(w);
      if (!all) break;
      words.insert(words.begin(), before.begin(), before.end());
    }
    for (N x : t.children(param)) {
      if (t.is(x, "comment")) continue;
      if (t.is(x, "ERROR")) {
        std::vector<U16> inner;
        if (!errorWords(x, inner)) return false;
        words.insert(words.end(), inner.begin(), inner.end());
      } else if (t.is(x, "const") || (nameNode >= 0 && x == nameNode)) {
        words.push_back(U16(t.text(x)));
      } else {
        break;
      }
    }
    for (size_t k = i + 1; k < siblings.size() && typeParamModifier(words.empty() ? V16() : V16(words.back())); k++) {
      N x = siblings[k];
      if (t.is(x, "comment")) continue;
      std::vector<U16> after;
      if (!errorWords(x, after)) break;
      words.insert(words.end(), after.begin(), after.end());
    }
    if (words.empty() || words.size() == 1 || typeParamModifier(words.back())) return false;
    for (size_t k = 0; k + 1 < words.size(); k++)
      if (!typeParamModifier(words[k])) return false;
    return true;
  }

  std::vector<Param> paramsOf(N fn) {
    std::vector<Param> out;
    N single = t.childForField(fn, "parameter");
    if (single >= 0) {
      Param p;
      p.name = U16(t.text(single));
      out.push_back(p);
      return out;
    }
    N list = t.childForField(fn, "parameters");
    if (list < 0) return out;
    for (N p : t.namedChildren(list)) {
      if (t.is(p, "comment")) continue;
      out.push_back(paramOf(p));
    }
    return out;
  }

  N firstNamed(N n) const { return n < 0 ? NONE : t.firstNamedChild(n); }

  Param paramOf(N p) {
    Param out;
    if (t.is(p, "required_parameter") || t.is(p, "optional_parameter")) {
      N pattern = t.childForField(p, "pattern");
      N value = t.childForField(p, "value");
      std::vector<U16> access;
      bool readonly = false;
      if (pattern < 0 || t.start(pattern) > t.start(p)) {
        for (N c : t.children(p)) {
          if (t.is(c, "accessibility_modifier") || t.is(c, "override_modifier")) access.push_back(U16(t.text(c)));
          else if (t.is(c, "readonly")) readonly = true;
        }
      }
      if (readonly) access.push_back(u("readonly"));
      bool rest = t.is(pattern, "rest_pattern");
      U16 name = rest ? normalized(firstNamed(pattern)) : normalized(pattern);
      U16 joined;
      for (auto &a : access) {
        joined += a;
        joined.push_back(u' ');
      }
      out.name = joined + name;
      out.kind = rest ? "rest" : "positional";
      out.optional = t.is(p, "optional_parameter") || value >= 0;
      if (value >= 0) out.def = normalized(value);
      out.type = typeText(t.childForField(p, "type"));
      return out;
    }
    if (t.is(p, "assignment_pattern")) {
      out.name = normalized(t.childForField(p, "left"));
      out.optional = true;
      out.def = normalized(t.childForField(p, "right"));
      return out;
    }
    if (t.is(p, "rest_pattern")) {
      out.name = normalized(firstNamed(p));
      out.kind = "rest";
      out.optional = true;
      return out;
    }
    out.name = normalized(p);
    return out;
  }

  Sig functionSignature(const U16 &name, const std::string &kind, N decl, N fn, std::initializer_list<U16> extra = {}, N nameNode = NONE) {
    Sig s = emptySignature(name, kind);
    std::set<U16> mods;
    for (auto &m : modifiersOf(decl, fn == decl ? nameNode : NONE)) mods.insert(m);
    if (fn != decl)
      for (auto &m : modifiersOf(fn)) mods.insert(m);
    for (auto &m : extra) mods.insert(m);
    s.modifiers.assign(mods.begin(), mods.end());
    s.typeParams = typeParamsOf(t.childForField(fn, "type_parameters"));
    s.hasParams = true;
    s.params = paramsOf(fn);
    s.returns = typeText(t.childForField(fn, "return_type"));
    return s;
  }

  std::vector<U16> heritageOf(N node) {
    std::vector<U16> out;
    for (N c : t.namedChildren(node)) {
      if (t.is(c, "class_heritage")) {
        std::vector<N> hs = t.namedChildren(c);
        for (N h : hs) out.push_back(normalized(h));
        if (hs.size() == 1 && !t.is(hs[0], "extends_clause") && !t.is(hs[0], "implements_clause")) out.back() = u("extends ") + out.back();
      }
      if (t.is(c, "extends_type_clause")) out.push_back(normalized(c));
    }
    return out;
  }

  mutable std::unordered_map<N, U16> docs;
  const U16 &docComment(N node) const {
    auto known = docs.find(node);
    if (known != docs.end()) return known->second;
    return docs.emplace(node, findDocComment(node)).first->second;
  }

  U16 findDocComment(N node) const {
    N n = node;
    for (N p = t.parent(n); p >= 0 && (t.is(p, "export_statement") || t.is(p, "ambient_declaration") || t.is(p, "lexical_declaration") || t.is(p, "variable_declaration")) && t.firstNamedChild(p) == n; p = t.parent(n)) n = p;
    N list = t.is(node, "variable_declarator") ? t.parent(node) : NONE;
    if (list >= 0) {
      N outer = t.parent(list);
      n = t.is(outer, "export_statement") ? outer : list;
    }
    int32_t end = t.start(n);
    while (end > 0 && grammarSpace(t.src[end - 1])) end--;
    int32_t at = std::max(0, end - 2);
    if (!(at + 2 <= t.length && t.src[at] == u'*' && t.src[at + 1] == u'/')) return U16();
    N prev = t.previousSibling(n);
    if (prev >= 0 && t.is(prev, "comment") && startsWith(t.text(prev), "/**")) return U16(t.text(prev));
    return U16();
  }

  // -- extract-typescript.ts --

  U16 nameOf(N n) {
    if (n < 0) return u("default");
    if (t.is(n, "call_signature")) return u("__call");
    if (t.is(n, "construct_signature")) return u("__new");
    if (t.is(n, "index_signature")) return u("__index");
    if (t.is(n, "string")) return innerText(t.text(n));
    if (t.is(n, "computed_property_name")) return u("[") + normalized(t.firstNamedChild(n)) + u("]");
    return U16(t.text(n));
  }

  bool hasExportDeclarations(N scope) const {
    for (N c : t.namedChildren(scope))
      if (t.is(c, "export_statement") && t.childForField(c, "declaration") < 0) return true;
    return false;
  }

  std::set<U16> collectLocalExports(N root) {
    std::set<U16> names;
    for (N s : t.namedChildren(root)) {
      if (!t.is(s, "export_statement") || t.childForField(s, "source") >= 0) continue;
      for (N clause : t.namedChildren(s)) {
        if (!t.is(clause, "export_clause")) continue;
        for (N spec : t.namedChildren(clause)) {
          N n = t.childForField(spec, "name");
          if (n >= 0) names.insert(U16(t.text(n)));
        }
      }
      N value = t.childForField(s, "value");
      if (t.is(value, "identifier")) names.insert(U16(t.text(value)));
      N bare = t.findNamedChild(s, "identifier");
      if (bare >= 0 && value < 0) names.insert(U16(t.text(bare)));
    }
    return names;
  }

  bool isNamespaceBody(N block) const {
    N owner = t.parent(block);
    return owner >= 0 && (t.is(owner, "internal_module") || t.is(owner, "module") || (t.is(owner, "ambient_declaration") && t.hasAnyChild(owner, "global")));
  }

  bool isKept(N node, const std::string &kind) {
    N parent = t.parent(node);
    if (t.is(node, "method_definition") || t.is(node, "pair")) {
      if (t.is(parent, "object")) return objectOwner(node).declarator >= 0;
      if (!t.is(parent, "class_body")) return false;
    }
    if ((t.is(node, "method_signature") || t.is(node, "property_signature") || t.is(node, "call_signature") || t.is(node, "construct_signature") || t.is(node, "index_signature")) && t.is(parent, "object_type")) return false;
    N classBody = t.is(parent, "class_body") ? parent : NONE;
    N classNode = classBody >= 0 ? t.parent(classBody) : NONE;
    if (classBody >= 0 && !t.is(classNode, "class_declaration") && !t.is(classNode, "abstract_class_declaration")) return false;
    if (kind == "variable" || t.is(node, "variable_declarator")) {
      N where = parent >= 0 ? t.parent(parent) : NONE;
      while (where >= 0 && (t.is(where, "export_statement") || t.is(where, "ambient_declaration"))) where = t.parent(where);
      if (where < 0) return false;
      if (!t.is(where, "program") && !(t.is(where, "statement_block") && isNamespaceBody(where))) return false;
    }
    return true;
  }

  Owner objectOwner(N member) {
    N object = t.parent(member);
    N declarator = object >= 0 ? t.parent(object) : NONE;
    if (!t.is(object, "object") || !t.is(declarator, "variable_declarator")) return {};
    N name = t.childForField(declarator, "name");
    if (!t.is(name, "identifier") || t.childForField(declarator, "value") != object || !isKept(declarator, "variable")) return {};
    return {declarator, name};
  }

  bool isPrivateMember(N node, N nameNode) const {
    if (nameNode < 0) {
      if (t.is(t.childForField(node, "name"), "private_property_identifier") || t.is(t.childForField(node, "property"), "private_property_identifier")) return true;
    } else {
      if (startsWith(t.text(nameNode), "#") && t.is(nameNode, "private_property_identifier")) return true;
      if (!textMayMatchWord(t.start(node), t.start(nameNode), "private")) return false;
    }
    for (N c : t.namedChildren(node))
      if (t.is(c, "accessibility_modifier") && eq(t.text(c), "private")) return true;
    return false;
  }

  struct Exports {
    std::set<U16> locals;
    bool implicit = false;
    std::map<N, bool> memo;
  };

  bool isExported(N node, N nameNode, const std::string &kind, const U16 &name, const std::vector<Container> &containers, size_t depthOf, Exports &ex) {
    // (recursion as deep as the containers nest: past this, the JavaScript extraction answers)
    if (depthOf > 1000) throw Unsupported{};
    N decl = t.is(node, "variable_declarator") ? (t.parent(node) >= 0 ? t.parent(node) : node) : node;
    N wrapper = t.parent(decl);
    bool hasExport = t.is(wrapper, "export_statement") || (t.is(wrapper, "ambient_declaration") && t.is(t.parent(wrapper), "export_statement"));
    if (depthOf == 0) {
      if (hasExport || ex.locals.count(name) > 0) return true;
      if (t.is(node, "module") && t.is(t.childForField(node, "name"), "string")) return true;
      return ex.implicit;
    }
    const Container &container = containers[depthOf - 1];
    if (container.node < 0) return true;
    N cnode = container.node;
    bool containerExported;
    auto it = ex.memo.find(cnode);
    if (it != ex.memo.end()) containerExported = it->second;
    else {
      containerExported = isExported(cnode, container.nameNode, "namespace", container.name, containers, depthOf - 1, ex);
      ex.memo[cnode] = containerExported;
    }
    if (t.is(cnode, "class_declaration") || t.is(cnode, "abstract_class_declaration")) return containerExported && !isPrivateMember(node, nameNode);
    if (t.is(cnode, "interface_declaration") || t.is(cnode, "enum_declaration")) return containerExported;
    N body = t.childForField(cnode, "body");
    bool ambient = (t.is(t.childForField(cnode, "name"), "string") || ex.implicit) && (body < 0 || !hasExportDeclarations(body));
    return containerExported && (hasExport || ambient) && kind != "reexport";
  }

  Sig signatureOf(N node, N nameNode, const U16 &name, const std::string &kind) {
    V16 type = t.type(node);
    if (eq(type, "variable_declarator")) {
      N value = t.childForField(node, "value");
      N decl = t.parent(node) >= 0 ? t.parent(node) : node;
      N kindNode = t.childForField(decl, "kind");
      U16 declKind = kindNode >= 0 ? U16(t.text(kindNode)) : t.is(decl, "variable_declaration") ? u("var") : u("const");
      if (value >= 0 && isFunctionValue(t, value)) {
        Sig s = functionSignature(name, kind, decl, value, {t.is(value, "arrow_function") ? u("arrow") : u("expression"), declKind});
        s.type = typeText(t.childForField(node, "type"));
        return s;
      }
      Sig s = emptySignature(name, kind);
      std::set<U16> mods;
      for (auto &m : modifiersOf(decl)) mods.insert(m);
      mods.insert(declKind);
      s.modifiers.assign(mods.begin(), mods.end());
      s.type = typeText(t.childForField(node, "type"));
      return s;
    }
    if (oneOf(type, {"class_declaration", "abstract_class_declaration", "interface_declaration"})) {
      Sig s = emptySignature(name, kind);
      std::set<U16> mods;
      for (auto &m : modifiersOf(node, nameNode)) mods.insert(m);
      if (eq(type, "abstract_class_declaration")) mods.insert(u("abstract"));
      s.modifiers.assign(mods.begin(), mods.end());
      s.typeParams = typeParamsOf(t.childForField(node, "type_parameters"));
      s.heritage = heritageOf(node);
      return s;
    }
    if (eq(type, "type_alias_declaration")) {
      Sig s = emptySignature(name, kind);
      s.modifiers = modifiersOf(node, nameNode);
      s.typeParams = typeParamsOf(t.childForField(node, "type_parameters"));
      s.type = normalized(t.childForField(node, "value"));
      return s;
    }
    if (eq(type, "enum_declaration") || eq(type, "internal_module") || eq(type, "module")) {
      Sig s = emptySignature(name, kind);
      s.modifiers = modifiersOf(node, nameNode);
      return s;
    }
    if (eq(type, "enum_assignment")) {
      Sig s = emptySignature(name, kind);
      s.value = normalized(t.childForField(node, "value"));
      return s;
    }
    if (oneOf(type, {"public_field_definition", "field_definition", "property_signature"})) {
      N value = t.childForField(node, "value");
      Sig base = emptySignature(name, kind);
      base.modifiers = modifiersOf(node, nameNode);
      base.type = typeText(t.childForField(node, "type"));
      if (value >= 0 && isFunctionValue(t, value) && !base.type) {
        Sig s = functionSignature(name, kind, node, value);
        s.modifiers = base.modifiers;
        return s;
      }
      return base;
    }
    if (eq(type, "pair")) {
      N value = t.childForField(node, "value");
      if (value < 0) return emptySignature(name, kind);
      return functionSignature(name, kind, value, value, {t.is(value, "arrow_function") ? u("arrow") : u("expression")});
    }
    if (eq(type, "construct_signature")) {
      Sig s = functionSignature(name, kind, node, node);
      s.returns = typeText(t.childForField(node, "type"));
      return s;
    }
    if (eq(type, "index_signature")) {
      Sig s = emptySignature(name, kind);
      s.type = normalized(node);
      return s;
    }
    if (t.childForField(node, "parameters") >= 0 || t.childForField(node, "parameter") >= 0) return functionSignature(name, kind, node, node, {}, nameNode);
    Sig s = emptySignature(name, kind);
    s.modifiers = modifiersOf(node, nameNode);
    return s;
  }

  U16 bodyOf(N node, const std::string &kind, const Ranges &memberRanges) {
    if (kind == "class" || kind == "interface" || kind == "enum" || kind == "namespace" || kind == "module") return normalized(t.childForField(node, "body"), memberRanges, true);
    if (kind == "variable" || kind == "property") return normalized(t.childForField(node, "value"));
    if (kind == "function" || kind == "method") {
      N fn = t.is(node, "variable_declarator") || t.is(node, "pair") ? t.childForField(node, "value") : node;
      return normalized(fn < 0 ? NONE : t.childForField(fn, "body"));
    }
    return U16();
  }

  Range outerRange(N node) const {
    N n = node;
    N list = t.is(n, "variable_declarator") ? t.parent(n) : NONE;
    if (list >= 0 && t.namedChildCount(list) == 1) n = list;
    for (N p = t.parent(n); p >= 0 && (t.is(p, "export_statement") || t.is(p, "ambient_declaration")); p = t.parent(n)) n = p;
    return {t.start(n), t.end(n)};
  }

  static U16 qualify(const std::vector<Container> &containers, const U16 &name) {
    U16 out;
    for (auto &c : containers) {
      out += c.name;
      out.push_back(u'.');
    }
    return out + name;
  }

  struct Site {
    N node;
    std::string kind;
    std::vector<Container> containers;
    Owner owner;
    Exports *ex;
    const Ranges *memberRanges;
  };

  Raw symbolOf(Site &site, N bound) {
    U16 name = nameOf(bound);
    U16 qualified = qualify(site.containers, site.owner.declarator < 0 ? name : U16(t.text(site.owner.name)) + u(".") + name);
    bool exported = (site.owner.declarator < 0 ? isExported(site.node, bound, site.kind, name, site.containers, site.containers.size(), *site.ex)
                                               : isExported(site.owner.declarator, site.owner.name, "variable", U16(t.text(site.owner.name)), site.containers, site.containers.size(), *site.ex)) &&
                    !hasWord(docComment(site.node), "@internal");
    Raw r;
    r.name = name;
    r.qualified = qualified;
    r.kind = site.kind;
    r.exported = exported;
    r.node = site.node;
    r.sig = signatureOf(site.node, bound, name, site.kind);
    r.body = bodyOf(site.node, site.kind, *site.memberRanges);
    r.overloadSignature = t.is(site.node, "function_signature") || (t.is(site.node, "method_signature") && t.is(t.parent(site.node), "class_body"));
    return r;
  }

  void parameterProperties(Site &site, std::vector<Raw> &out) {
    N params = t.childForField(site.node, "parameters");
    if (params < 0) return;
    for (N p : t.namedChildren(params)) {
      N name = t.childForField(p, "pattern");
      if (!t.is(name, "identifier") || t.start(name) == t.start(p)) continue;
      bool any = false;
      for (N c : t.children(p))
        if (t.is(c, "accessibility_modifier") || t.is(c, "override_modifier") || (t.is(c, "readonly") && !t.named(c))) any = true;
      if (!any) continue;
      U16 text(t.text(name));
      Raw r;
      r.exported = isExported(p, name, "property", text, site.containers, site.containers.size(), *site.ex);
      r.sig = emptySignature(text, "property");
      r.sig.modifiers = modifiersOf(p, name);
      r.sig.type = typeText(t.childForField(p, "type"));
      r.name = text;
      r.qualified = qualify(site.containers, text);
      r.kind = "property";
      r.node = p;
      out.push_back(std::move(r));
    }
  }

  void boundNames(N pattern, std::vector<N> &out) {
    if (++depth > 2000) throw Unsupported{};
    V16 type = t.type(pattern);
    if (eq(type, "identifier") || eq(type, "shorthand_property_identifier_pattern")) {
      if (!t.text(pattern).empty()) out.push_back(pattern);
    } else if (eq(type, "pair_pattern")) {
      N value = t.childForField(pattern, "value");
      if (value >= 0) boundNames(value, out);
    } else if (eq(type, "assignment_pattern") || eq(type, "object_assignment_pattern")) {
      N left = t.childForField(pattern, "left");
      if (left >= 0) boundNames(left, out);
    } else if (eq(type, "object_pattern") || eq(type, "array_pattern") || eq(type, "rest_pattern")) {
      for (N c : t.namedChildren(pattern)) boundNames(c, out);
    }
    depth--;
  }

  /** A class expression's signature (`export default class ...`, `module.exports = class ...`): type parameters and heritage. */
  Sig classValueSignature(const U16 &name, N value) {
    Sig s = emptySignature(name, "class");
    s.typeParams = typeParamsOf(t.childForField(value, "type_parameters"));
    s.heritage = heritageOf(value);
    return s;
  }

  void defaultExports(N root, std::vector<Raw> &out) {
    for (N s : t.namedChildren(root)) {
      if (!t.is(s, "export_statement") || !t.hasAnyChild(s, "default")) continue;
      N value = t.childForField(s, "value");
      if (value < 0 || t.is(value, "identifier")) continue;
      std::string kind = t.is(value, "class") ? "class" : isFunctionValue(t, value) ? "function" : "variable";
      Raw r;
      U16 name = u("default");
      r.sig = kind == "function" ? functionSignature(name, kind, s, value) : kind == "class" ? classValueSignature(name, value) : emptySignature(name, kind);
      r.body = kind == "function" ? normalized(t.childForField(value, "body")) : normalized(value);
      r.name = name;
      r.qualified = name;
      r.kind = kind;
      r.exported = true;
      r.node = s;
      out.push_back(std::move(r));
    }
  }

  static bool exportTypeText(V16 s) {
    // /^export\s+type\b/
    if (!startsWith(s, "export")) return false;
    size_t i = 6;
    if (i >= s.size() || !jsSpace(s[i])) return false;
    while (i < s.size() && jsSpace(s[i])) i++;
    if (!startsWith(s.substr(i), "type")) return false;
    return i + 4 >= s.size() || !jsWord(s[i + 4]);
  }

  void reexports(N root, std::vector<Raw> &out) {
    for (N s : t.namedChildren(root)) {
      if (!t.is(s, "export_statement")) continue;
      N source = t.childForField(s, "source");
      if (source < 0) continue;
      U16 module = innerText(t.text(source));
      bool typeOnly = t.hasAnyChild(s, "type") || exportTypeText(t.text(s));
      auto add = [&](const U16 &name, const U16 &from) {
        Raw r;
        r.sig = emptySignature(name, "reexport");
        if (typeOnly) r.sig.modifiers.push_back(u("type"));
        r.sig.type = from + u(" from ") + module;
        r.name = name;
        r.qualified = eq(name, "*") ? u("*:") + module : name;
        r.kind = "reexport";
        r.exported = true;
        r.node = s;
        out.push_back(std::move(r));
      };
      N clause = t.findNamedChild(s, "export_clause");
      N ns = t.findNamedChild(s, "namespace_export");
      if (clause >= 0) {
        for (N spec : t.namedChildren(clause)) {
          N orig = t.childForField(spec, "name");
          if (orig < 0) continue;
          N alias = t.childForField(spec, "alias");
          add(U16(t.text(alias >= 0 ? alias : orig)), U16(t.text(orig)));
        }
      } else if (ns >= 0) {
        add(nameOf(t.firstNamedChild(ns)), u("*"));
      } else {
        add(u("*"), u("*"));
      }
    }
  }

  // -- common-js-exports.ts --

  U16 keyName(N key) const {
    if (key < 0) return U16();
    if (t.is(key, "string")) return innerText(t.text(key));
    return U16(t.text(key));
  }

  Raw cjsSymbol(const U16 &name, N value, N at) {
    bool isFunction = isFunctionValue(t, value) || t.is(value, "method_definition");
    std::string kind = isFunction ? "function" : t.is(value, "class") ? "class" : "variable";
    Raw r;
    r.sig = kind == "function" ? functionSignature(name, kind, value, value) : kind == "class" ? classValueSignature(name, value) : emptySignature(name, kind);
    r.body = normalized(kind == "function" || kind == "class" ? t.childForField(value, "body") : value);
    r.name = name;
    r.qualified = name;
    r.kind = kind;
    r.exported = true;
    r.node = at;
    return r;
  }

  void commonJsExports(N root, std::set<U16> &locals, std::vector<Raw> &symbols) {
    auto exportValue = [&](const U16 &name, N value, N at) {
      if (t.is(value, "identifier")) locals.insert(U16(t.text(value)));
      else symbols.push_back(cjsSymbol(name, value, at));
    };
    for (N stmt : t.namedChildren(root)) {
      N assignment = t.is(stmt, "expression_statement") ? t.firstNamedChild(stmt) : NONE;
      if (!t.is(assignment, "assignment_expression")) continue;
      N left = t.childForField(assignment, "left");
      N right = t.childForField(assignment, "right");
      if (!t.is(left, "member_expression") || right < 0) continue;
      U16 target = withoutSpaces(t.text(left));
      if (eq(target, "module.exports")) {
        if (!t.is(right, "object")) {
          exportValue(u("default"), right, stmt);
          continue;
        }
        for (N entry : t.namedChildren(right)) {
          if (t.is(entry, "shorthand_property_identifier")) locals.insert(U16(t.text(entry)));
          else if (t.is(entry, "method_definition")) symbols.push_back(cjsSymbol(keyName(t.childForField(entry, "name")), entry, entry));
          else if (t.is(entry, "pair")) {
            N value = t.childForField(entry, "value");
            if (value >= 0) exportValue(keyName(t.childForField(entry, "key")), value, entry);
          }
        }
        continue;
      }
      // /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/
      V16 rest(target);
      if (startsWith(rest, "module.")) rest = rest.substr(7);
      if (!startsWith(rest, "exports.")) continue;
      rest = rest.substr(8);
      if (rest.empty()) continue;
      char16_t c0 = rest[0];
      if (!((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z') || c0 == '_' || c0 == '$')) continue;
      bool ok = true;
      for (char16_t c : rest) ok = ok && (jsWord(c) || c == '$');
      if (ok) exportValue(U16(rest), right, stmt);
    }
  }

  // -- extractTypeScript --

  std::vector<Raw> extract(const std::vector<const Match *> &matches, const ComityProgram &p, bool isDeclarationFile) {
    auto role = [&](const Capture &c) { return p.roles[static_cast<size_t>(c.name)]; };
    std::vector<Def> chosen;
    std::unordered_map<N, size_t> chosenAt;
    std::vector<Range> functionScopes, globals;
    for (const Match *m : matches) {
      if (!m->captures.empty()) {
        const Capture &scope = m->captures[0];
        if (role(scope) == SCOPE_FUNCTION) {
          functionScopes.push_back({t.start(scope.node), t.end(scope.node)});
          continue;
        }
        if (role(scope) == SCOPE_GLOBAL) {
          globals.push_back({t.start(scope.node), t.end(scope.node)});
          continue;
        }
      }
      const Capture *def = nullptr, *name = nullptr;
      for (const Capture &c : m->captures)
        if (def == nullptr && role(c) == DEFINITION) def = &c;
      for (const Capture &c : m->captures)
        if (name == nullptr && role(c) == NAME) name = &c;
      if (def == nullptr || name == nullptr) continue;
      std::string kind = p.captureNames[static_cast<size_t>(def->name)].substr(11);
      auto priority = [](const std::string &k) { return k == "variable" ? 0 : 1; };
      auto it = chosenAt.find(def->node);
      if (it == chosenAt.end()) {
        chosenAt[def->node] = chosen.size();
        chosen.push_back({def->node, name->node, kind, t.start(def->node), t.end(def->node)});
      } else if (priority(chosen[it->second].kind) < priority(kind)) {
        chosen[it->second] = {def->node, name->node, kind, t.start(def->node), t.end(def->node)};
      }
    }
    std::vector<Def> defs = chosen;
    std::stable_sort(defs.begin(), defs.end(), [](const Def &a, const Def &b) { return a.start < b.start || (a.start == b.start && a.end > b.end); });
    Ranges memberRanges;
    for (const Def &d : defs) memberRanges.push_back(outerRange(d.node));
    Exports ex;
    ex.locals = collectLocalExports(0);
    std::vector<Raw> cjsSymbols;
    bool commonJs = p.commonJs;
    if (commonJs) commonJsExports(0, ex.locals, cjsSymbols);
    ex.implicit = isDeclarationFile && !hasExportDeclarations(0);
    auto encloses = [](const Range &outer, const Def &d) { return outer.first <= d.start && d.end <= outer.second && (outer.first < d.start || d.end < outer.second); };
    std::stable_sort(functionScopes.begin(), functionScopes.end(), [](const Range &a, const Range &b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
    std::vector<Range> openScopes;
    std::vector<const Def *> openContainers;
    size_t nextScope = 0;
    std::vector<Raw> out;
    out.reserve(defs.size() + 8);
    for (const Def &d : defs) {
      while (nextScope < functionScopes.size() && functionScopes[nextScope].first <= d.start) {
        const Range &scope = functionScopes[nextScope++];
        while (!openScopes.empty() && openScopes.back().second <= scope.first) openScopes.pop_back();
        openScopes.push_back(scope);
      }
      while (!openScopes.empty() && openScopes.back().second <= d.start) openScopes.pop_back();
      while (!openContainers.empty() && openContainers.back()->end <= d.start) openContainers.pop_back();
      std::vector<const Def *> enclosing;
      for (const Def *c : openContainers)
        if (encloses({c->start, c->end}, d)) enclosing.push_back(c);
      if (d.kind == "class" || d.kind == "interface" || d.kind == "enum" || d.kind == "namespace" || d.kind == "module") openContainers.push_back(&d);
      if ((!openScopes.empty() && encloses(openScopes[0], d)) || !isKept(d.node, d.kind)) continue;
      std::vector<Container> containers;
      for (const Range &g : globals)
        if (encloses(g, d)) containers.push_back({u("global"), NONE, NONE, g.first});
      for (const Def *c : enclosing) containers.push_back({nameOf(c->nameNode), c->node, c->nameNode, c->start});
      std::stable_sort(containers.begin(), containers.end(), [](const Container &a, const Container &b) { return a.start < b.start; });
      Owner owner = t.is(t.parent(d.node), "object") ? objectOwner(d.node) : Owner{};
      Site site{d.node, d.kind, containers, owner, &ex, &memberRanges};
      if (t.is(d.nameNode, "object_pattern") || t.is(d.nameNode, "array_pattern")) {
        std::vector<N> names;
        boundNames(d.nameNode, names);
        for (N name : names) out.push_back(symbolOf(site, name));
      } else {
        out.push_back(symbolOf(site, d.nameNode));
      }
      if (t.is(d.node, "method_definition") && d.kind == "method" && eq(nameOf(d.nameNode), "constructor")) parameterProperties(site, out);
    }
    defaultExports(0, out);
    reexports(0, out);
    for (Raw &r : cjsSymbols) out.push_back(std::move(r));
    return out;
  }
};

}  // namespace comity

#endif
