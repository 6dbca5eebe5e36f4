/*
 * The Python extractor (python/extract-python.ts): functions and classes anywhere, qualified by what encloses them,
 * methods, module variables, class attributes and `self.x` in `__init__` as properties, `type X = ...`, and the names
 * `__all__` lists that the module does not define as re-exports; public as griffe says.
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_EXTRACT_PYTHON_H
#define COMITY_EXTRACT_EXTRACT_PYTHON_H

namespace comity {

struct PyScope {
  std::string kind;  // class, function
  N node, nameNode;
  int32_t end;
};

struct PyFound {
  N node, nameNode;
  std::string kind;
  int32_t start;
  bool isScope;
  std::vector<size_t> enclosing;  // indices of the found scopes around it, outermost first
};

struct PyExtractor {
  Tree &t;
  Extractor &x;  // its normalisation and lexical index
  PyExtractor(Tree &tree, Extractor &ts) : t(tree), x(ts) {}

  U16 normalized(N n, const Ranges &skip = NO_RANGES) const { return x.normalized(n, skip); }

  N outerNode(N node) const {
    N parent = t.parent(node);
    return t.is(parent, "decorated_definition") ? parent : node;
  }

  bool isSelfAttribute(N nameNode) const { return t.is(t.parent(nameNode), "attribute"); }

  static bool isPrivateName(const U16 &n) { return startsWith(n, "_") && !(startsWith(n, "__") && n.size() >= 2 && n[n.size() - 1] == u'_' && n[n.size() - 2] == u'_'); }

  struct All {
    std::vector<U16> names;  // in the order first listed
    std::set<U16> has;
    N node = NONE;
  };

  /** `__all__ = [...]`, `+= [...]`, `.extend([...])`, `.append("x")` at module level (dunderAll). */
  std::optional<All> dunderAll(N root) const {
    std::optional<All> result;
    auto stringsOf = [&](N items) {
      std::vector<U16> out;
      std::vector<N> strings;
      if (t.is(items, "string")) strings.push_back(items);
      else
        for (N c : t.namedChildren(items))
          if (t.is(c, "string")) strings.push_back(c);
      for (N s : strings) {
        U16 text;
        for (N part : t.namedChildren(s))
          if (t.is(part, "string_content")) text += t.text(part);
        out.push_back(text);
      }
      return out;
    };
    for (N stmt : t.namedChildren(root)) {
      N a = t.is(stmt, "expression_statement") ? t.firstNamedChild(stmt) : NONE;
      if (a < 0) continue;
      N items = NONE;
      bool replaces = false;
      if (t.is(a, "assignment") || t.is(a, "augmented_assignment")) {
        N left = t.childForField(a, "left");
        if (left < 0 || !eq(t.text(left), "__all__")) continue;
        items = t.childForField(a, "right");
        if (items < 0 || (!t.is(items, "list") && !t.is(items, "tuple"))) continue;
        replaces = t.is(a, "assignment");
      } else if (t.is(a, "call")) {
        N callee = t.childForField(a, "function");
        std::optional<U16> method;
        if (t.is(callee, "attribute")) {
          N object = t.childForField(callee, "object");
          N attribute = t.childForField(callee, "attribute");
          if (object >= 0 && eq(t.text(object), "__all__") && attribute >= 0) method = U16(t.text(attribute));
        }
        N args = t.childForField(a, "arguments");
        N arg = args < 0 ? NONE : t.firstNamedChild(args);
        if (arg < 0 || !method || !((eq(*method, "extend") && (t.is(arg, "list") || t.is(arg, "tuple"))) || (eq(*method, "append") && t.is(arg, "string")))) continue;
        items = arg;
      } else {
        continue;
      }
      if (!result || replaces) result = All{{}, {}, stmt};
      for (U16 &n : stringsOf(items))
        if (result->has.insert(n).second) result->names.push_back(n);
    }
    return result;
  }

  std::vector<TypeParam> typeParamsOf(N list) const {
    std::vector<TypeParam> out;
    if (list < 0) return out;
    for (N tp : t.namedChildren(list)) {
      if (!t.is(tp, "type")) continue;
      N first = t.firstNamedChild(tp);
      N inner = first >= 0 ? first : tp;
      TypeParam p;
      if (t.is(inner, "constrained_type")) {
        std::vector<N> parts = t.namedChildren(inner);
        p.name = normalized(parts.empty() ? NONE : parts[0]);
        if (parts.size() >= 2) p.constraint = normalized(parts[1]);
      } else {
        p.name = normalized(inner);
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  std::vector<TypeParam> typeParamsAfter(N node, N nameNode) const {
    // /^\s*\[/ on the 64 units after the name
    V16 after = t.slice(t.end(nameNode), t.end(nameNode) + 64);
    size_t i = 0;
    while (i < after.size() && jsSpace(after[i])) i++;
    if (i >= after.size() || after[i] != u'[') return {};
    return typeParamsOf(t.childForField(node, "type_parameters"));
  }

  std::vector<Param> paramsOf(N list) const {
    std::vector<Param> out;
    if (list < 0) return out;
    bool keywordOnly = false;
    for (N p : t.namedChildren(list)) {
      if (t.is(p, "comment")) continue;
      if (t.is(p, "positional_separator")) {
        for (Param &q : out)
          if (std::strcmp(q.kind, "positional_or_keyword") == 0) q.kind = "positional_only";
        continue;
      }
      if (t.is(p, "keyword_separator")) {
        keywordOnly = true;
        continue;
      }
      N inner = p;
      if (t.is(p, "typed_parameter")) {
        for (N c : t.namedChildren(p))
          if (!t.is(c, "type")) {
            inner = c;
            break;
          }
      }
      if (t.is(inner, "list_splat_pattern") || t.is(inner, "dictionary_splat_pattern")) {
        Param q;
        q.name = normalized(t.firstNamedChild(inner));
        q.kind = t.is(inner, "list_splat_pattern") ? "rest" : "var_keyword";
        q.optional = true;
        q.type = x.typeText(t.childForField(p, "type"));
        if (t.is(inner, "list_splat_pattern")) keywordOnly = true;
        out.push_back(std::move(q));
        continue;
      }
      Param q;
      q.kind = keywordOnly ? "keyword_only" : "positional_or_keyword";
      if (t.is(p, "identifier")) {
        q.name = U16(t.text(p));
        out.push_back(std::move(q));
        continue;
      }
      N value = t.childForField(p, "value");
      N name = t.childForField(p, "name");
      q.name = U16(t.text(name >= 0 ? name : inner));
      q.optional = value >= 0;
      if (value >= 0) q.def = normalized(value);
      q.type = x.typeText(t.childForField(p, "type"));
      out.push_back(std::move(q));
    }
    return out;
  }

  Sig signatureOf(N node, N nameNode, const U16 &name, const std::string &kind) const {
    Sig s = emptySignature(name, kind);
    N wrapper = t.parent(node);
    std::vector<U16> decorators;
    if (t.is(wrapper, "decorated_definition"))
      for (N c : t.namedChildren(wrapper))
        if (t.is(c, "decorator")) decorators.push_back(u("decorator:") + normalized(c));
    if (t.is(node, "function_definition")) {
      // /^async\b/ on the node's first 6 units
      V16 head = t.slice(t.start(node), t.start(node) + 6);
      if (startsWith(head, "async") && (head.size() == 5 || !jsWord(head[5]))) decorators.push_back(u("async"));
      std::sort(decorators.begin(), decorators.end());
      s.modifiers = decorators;
      s.typeParams = typeParamsAfter(node, nameNode);
      s.hasParams = true;
      s.params = paramsOf(t.childForField(node, "parameters"));
      s.returns = x.typeText(t.childForField(node, "return_type"));
      return s;
    }
    if (t.is(node, "class_definition")) {
      std::sort(decorators.begin(), decorators.end());
      s.modifiers = decorators;
      s.typeParams = typeParamsAfter(node, nameNode);
      N bases = t.childForField(node, "superclasses");
      if (bases >= 0)
        for (N b : t.namedChildren(bases)) s.heritage.push_back(normalized(b));
      return s;
    }
    if (t.is(node, "type_alias_statement")) {
      N left = t.childForField(node, "left");
      N generic = left < 0 ? NONE : t.findNamedChild(left, "generic_type");
      N params = generic < 0 ? NONE : t.findNamedChild(generic, "type_parameter");
      s.typeParams = typeParamsOf(params);
      s.type = normalized(t.childForField(node, "right"));
      return s;
    }
    s.type = x.typeText(t.childForField(node, "type"));
    N left = t.childForField(node, "left");
    N right = t.childForField(node, "right");
    Opt value;
    if (right >= 0) value = normalized(right);
    if ((t.is(left, "pattern_list") || t.is(left, "tuple_pattern")) && (t.is(right, "expression_list") || t.is(right, "tuple"))) {
      std::vector<N> items = t.namedChildren(left);
      std::vector<N> values = t.namedChildren(right);
      for (size_t i = 0; i < items.size(); i++) {
        if (t.start(items[i]) <= t.start(nameNode) && t.end(nameNode) <= t.end(items[i])) {
          if (i < values.size()) value = normalized(values[i]);
          break;
        }
      }
    }
    if (!isSelfAttribute(nameNode)) s.value = value;
    return s;
  }

  U16 bodyOf(N node, N nameNode, const std::string &kind, const Ranges &memberRanges) const {
    if (kind == "class") return normalized(t.childForField(node, "body"), memberRanges);
    if (t.is(node, "function_definition")) return normalized(t.childForField(node, "body"));
    if (t.is(node, "assignment") && isSelfAttribute(nameNode)) return normalized(t.childForField(node, "right"));
    return U16();
  }

  std::vector<Raw> extract(const std::vector<const Match *> &matches, const ComityProgram &p) {
    std::optional<All> all = dunderAll(0);
    Ranges memberRanges;
    std::vector<PyFound> found;
    std::set<std::pair<N, N>> seen;
    for (const Match *m : matches) {
      const Capture *def = nullptr, *name = nullptr;
      for (const Capture &c : m->captures) {
        if (def == nullptr && p.roles[static_cast<size_t>(c.name)] == DEFINITION) def = &c;
        if (name == nullptr && p.roles[static_cast<size_t>(c.name)] == NAME) name = &c;
      }
      if (def == nullptr || name == nullptr) continue;
      if (!seen.insert({def->node, name->node}).second) continue;
      std::string kind = p.captureNames[static_cast<size_t>(def->name)].substr(11);
      found.push_back({def->node, name->node, kind, t.start(def->node), kind == "class" || kind == "function", {}});
      N statement = t.is(def->node, "assignment") ? t.parent(def->node) : NONE;
      N outer = t.is(statement, "expression_statement") ? statement : outerNode(def->node);
      memberRanges.push_back({t.start(outer), t.end(outer)});
    }
    // openScopes: in document order, the scopes open at each definition's start.
    std::vector<size_t> order(found.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return found[a].start < found[b].start; });
    std::vector<size_t> open;
    for (size_t i : order) {
      PyFound &f = found[i];
      while (!open.empty() && t.end(found[open.back()].node) <= f.start) open.pop_back();
      f.enclosing = open;
      if (f.isScope) open.push_back(i);
    }
    std::vector<Raw> out;
    out.reserve(found.size() + 8);
    std::set<U16> defined;
    for (PyFound &f : found) {
      std::string kind = f.kind == "function" && !f.enclosing.empty() && found[f.enclosing.back()].kind == "class" ? "method" : f.kind;
      // scopesOf: `self.x` belongs to the class of its `__init__`.
      std::vector<size_t> chain = f.enclosing;
      if (f.kind == "property" && t.is(f.node, "assignment")) {
        long init = -1;
        for (size_t k = chain.size(); k-- > 0;)
          if (found[chain[k]].kind == "function") {
            init = static_cast<long>(k);
            break;
          }
        long cls = init > 0 && found[chain[static_cast<size_t>(init - 1)]].kind == "class" ? init - 1 : -1;
        if (cls >= 0 && isSelfAttribute(f.nameNode)) chain.resize(static_cast<size_t>(cls + 1));
      }
      U16 name(t.text(f.nameNode));
      if (chain.empty()) defined.insert(name);
      U16 qualified;
      for (size_t s : chain) {
        qualified += t.text(found[s].nameNode);
        qualified.push_back(u'.');
      }
      // isPublic
      bool exported = true;
      for (size_t s : chain)
        if (found[s].kind == "function") exported = false;
      if (exported) {
        U16 top = chain.empty() ? name : U16(t.text(found[chain[0]].nameNode));
        if (all) exported = all->has.count(top) > 0;
        else exported = !isPrivateName(top);
        for (size_t k = 1; exported && k < chain.size(); k++) exported = !isPrivateName(U16(t.text(found[chain[k]].nameNode)));
        if (exported && !chain.empty()) exported = !isPrivateName(name);
      }
      Raw r;
      r.name = name;
      r.qualified = qualified + name;
      r.kind = kind;
      r.exported = exported;
      r.node = outerNode(f.node);
      r.sig = signatureOf(f.node, f.nameNode, name, kind);
      r.body = bodyOf(f.node, f.nameNode, kind, memberRanges);
      out.push_back(std::move(r));
    }
    if (all) {
      for (const U16 &name : all->names) {
        if (defined.count(name) > 0) continue;
        Raw r;
        r.name = name;
        r.qualified = name;
        r.kind = "reexport";
        r.exported = true;
        r.node = all->node >= 0 ? all->node : 0;
        r.sig = emptySignature(name, "reexport");
        r.sig.type = u("__all__");
        out.push_back(std::move(r));
      }
    }
    return out;
  }
};

}  // namespace comity

#endif
