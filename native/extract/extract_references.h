/*
 * References (extract-references.ts).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_EXTRACT_REFERENCES_H
#define COMITY_EXTRACT_EXTRACT_REFERENCES_H

namespace comity {

struct Reference {
  std::string kind;
  U16 name;
  Opt module;
};

struct References {
  Tree &t;
  const ComityProgram &p;
  References(Tree &tree, const ComityProgram &program) : t(tree), p(program) {}
  std::vector<Reference> out;
  std::map<std::pair<std::string, Opt>, std::set<U16>> seen;
  std::set<U16> seenTypes, typeParams;
  std::unordered_set<N> notReferences;
  int depth = 0;

  void add(const std::string &kind, const U16 &name, const Opt &module = std::nullopt) {
    if (name.empty()) return;
    auto &names = seen[{kind, module}];
    if (!names.insert(name).second) return;
    out.push_back({kind, name, module});
  }

  U16 memberName(N node) {
    if (++depth > 2000) throw Unsupported{};
    U16 result;
    if (t.is(node, "member_expression") || t.is(node, "attribute")) {
      N object = t.childForField(node, "object");
      N property = t.childForField(node, "property");
      if (property < 0) property = t.childForField(node, "attribute");
      U16 left;
      if (object >= 0 && oneOf(t.type(object), {"identifier", "this", "super", "member_expression", "attribute"})) left = memberName(object);
      result = left + u(".") + (property >= 0 ? U16(t.text(property)) : U16());
    } else if (t.is(node, "nested_type_identifier")) {
      result = withoutSpaces(t.text(node));
    } else if (t.is(node, "generic_type")) {
      N first = t.firstNamedChild(node);
      if (first < 0) throw Unsupported{};  // JavaScript recurses on the node itself, without end
      result = memberName(first);
    } else {
      result = U16(t.text(node));
    }
    depth--;
    return result;
  }

  static U16 unquote(V16 s) {
    auto quote = [](char16_t c) { return c == u'\'' || c == u'"' || c == u'`'; };
    size_t b = 0, e = s.size();
    if (e > 0 && quote(s[0])) b = 1;
    if (e >= 1 && e - 1 >= b && e - 1 >= 1 && quote(s[e - 1])) e--;
    return b >= e ? U16() : U16(s.substr(b, e - b));
  }

  void type(N node) {
    if (notReferences.count(node) > 0) return;
    if (t.is(node, "type_identifier")) {
      U16 text(t.text(node));
      if (!seenTypes.insert(text).second) return;
      if (typeParams.count(text) == 0) add("type", text);
      return;
    }
    if (typeParams.count(U16(t.text(node))) > 0) return;
    add("type", memberName(node));
  }

  void importsOf(N stmt) {
    N source = t.childForField(stmt, "source");
    if (source < 0) return;
    U16 module = unquote(t.text(source));
    N clause = t.findNamedChild(stmt, "import_clause");
    if (clause < 0) {
      add("import", u("*"), module);
      return;
    }
    for (N part : t.namedChildren(clause)) {
      if (t.is(part, "identifier")) add("import", u("default"), module);
      else if (t.is(part, "namespace_import")) add("import", u("*"), module);
      else if (t.is(part, "named_imports")) {
        for (N spec : t.namedChildren(part)) {
          N name = t.childForField(spec, "name");
          if (name >= 0) add("import", U16(t.text(name)), module);
        }
      }
    }
  }

  void reexportsOf(N stmt) {
    N source = t.childForField(stmt, "source");
    if (source < 0) return;
    U16 module = unquote(t.text(source));
    N clause = t.findNamedChild(stmt, "export_clause");
    if (clause < 0) {
      add("export", u("*"), module);
      return;
    }
    for (N spec : t.namedChildren(clause)) {
      N name = t.childForField(spec, "name");
      if (name >= 0) add("export", U16(t.text(name)), module);
    }
  }

  void capture(const Match &m, const Capture &c) {
    switch (p.roles[static_cast<size_t>(c.name)]) {
      case REF_CALL:
        return add("call", memberName(c.node));
      case REF_NEW:
        return add("new", memberName(c.node));
      case REF_DECORATOR:
        return add("decorator", memberName(c.node));
      case REF_BASE:
        return add("base", memberName(c.node));
      case REF_TYPE:
        return type(c.node);
      case REF_IMPORT:
        return importsOf(c.node);
      case REF_EXPORT:
        return reexportsOf(c.node);
      case REF_IMPORT_DYNAMIC:
        return add("import", u("*"), unquote(t.text(c.node)));
      case REF_IMPORT_MODULE:
        return add("import", u("*"), U16(t.text(c.node)));
      case REF_IMPORT_NAME: {
        Opt source;
        for (const Capture &x : m.captures)
          if (p.roles[static_cast<size_t>(x.name)] == REF_IMPORT_SOURCE) {
            source = U16(t.text(x.node));
            break;
          }
        return add("import", U16(t.text(c.node)), source);
      }
      default:
        return;
    }
  }

  std::vector<Reference> extract(const std::vector<const Match *> &matches) {
    for (const Match *m : matches)
      for (const Capture &c : m->captures) {
        Role role = p.roles[static_cast<size_t>(c.name)];
        if (role == LOCAL_TYPE_PARAMETER) typeParams.insert(U16(t.text(c.node)));
        else if (role == LOCAL_DECLARATION) notReferences.insert(c.node);
      }
    for (const Match *m : matches)
      for (const Capture &c : m->captures) capture(*m, c);
    // (through indices: moving the references themselves cost more than comparing them)
    std::vector<size_t> order(out.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    static const U16 none;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      const Reference &a = out[x], &b = out[y];
      if (a.kind != b.kind) return a.kind < b.kind;
      if (a.name != b.name) return a.name < b.name;
      return (a.module ? *a.module : none) < (b.module ? *b.module : none);
    });
    std::vector<Reference> sorted;
    sorted.reserve(out.size());
    for (size_t i : order) sorted.push_back(std::move(out[i]));
    return sorted;
  }
};

}  // namespace comity

#endif
