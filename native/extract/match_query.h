/*
 * The query matcher (query/match-query.ts), over a flat tree.
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_MATCH_QUERY_H
#define COMITY_EXTRACT_MATCH_QUERY_H

namespace comity {

struct Capture {
  int name;
  N node;
};
/** A match's captures, in place (a pattern captures a few nodes: the matcher makes millions of these). */
struct Captures {
  static constexpr int MAX = 8;
  Capture items[MAX];
  int n = 0;
  void push_back(Capture c) {
    if (n == MAX) throw Unsupported{};
    items[n++] = c;
  }
  bool empty() const { return n == 0; }
  size_t size() const { return static_cast<size_t>(n); }
  const Capture &operator[](size_t i) const { return items[i]; }
  const Capture *begin() const { return items; }
  const Capture *end() const { return items + n; }
};
/** A match's captures: a range of its file's capture pool (matchTree). */
struct CaptureSpan {
  const Capture *b = nullptr, *e = nullptr;
  bool empty() const { return b == e; }
  size_t size() const { return static_cast<size_t>(e - b); }
  const Capture &operator[](size_t i) const { return b[i]; }
  const Capture *begin() const { return b; }
  const Capture *end() const { return e; }
};
struct Match {
  CaptureSpan captures;
};

/** A callable reference that allocates nothing (the matcher's continuations). */
template <typename F>
class Ref;
template <typename R, typename... A>
class Ref<R(A...)> {
  void *obj;
  R (*call)(void *, A...);

 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Ref>>>
  Ref(F &f) : obj(&f), call([](void *o, A... a) -> R { return (*static_cast<F *>(o))(a...); }) {}
  R operator()(A... a) const { return call(obj, a...); }
};
using Found = Ref<void(const Captures &)>;

struct Matcher {
  Tree &t;
  const Pattern *pattern = nullptr;

  explicit Matcher(Tree &tree) : t(tree) {}

  V16 captureText(const Captures &cs, int name) const {
    for (const Capture &c : cs)
      if (c.name == name) return t.text(c.node);
    return V16(nullptr, 0);
  }
  bool has(const Captures &cs, int name) const {
    for (const Capture &c : cs)
      if (c.name == name) return true;
    return false;
  }

  bool holds(const Predicate &q, const Captures &cs) const {
    if (!has(cs, q.capture)) return true;
    V16 value = captureText(cs, q.capture);
    if (q.match) {
      if (q.form == Predicate::FirstUpper) return !value.empty() && value[0] >= u'A' && value[0] <= u'Z';
      if (q.form == Predicate::OneOf) {
        for (const U16 &w : q.words)
          if (value == V16(w)) return true;
        return false;
      }
      std::string utf8;
      appendUtf8(utf8, value);
      return std::regex_search(utf8, q.regex);
    }
    if (q.otherCapture >= 0) {
      if (!has(cs, q.otherCapture)) return true;
      return value == captureText(cs, q.otherCapture);
    }
    return value == V16(q.text);
  }

  bool typeIs(N node, int nameId) const { return nameId == WILDCARD || t.name(node) == nameId; }

  bool mayMatch(const Step &s, N node) const {
    if (s.kind == Step::Alt) return true;
    if (s.kind == Step::Token) return s.type == WILDCARD || (!t.named(node) && t.name(node) == s.type);
    return typeIs(node, s.type) && t.named(node);
  }

  /** `captures` with this node's; false when an early predicate fails (withCaptures). */
  bool withCaptures(const Captures &captures, const std::vector<int> &names, N node, Captures &out) const {
    out = captures;
    for (int name : names) out.push_back({name, node});
    if (pattern->early.empty()) return true;
    for (int name : names) {
      auto it = pattern->early.find(name);
      if (it == pattern->early.end() || has(captures, name)) continue;
      for (int k : it->second)
        if (!holds(pattern->predicates[static_cast<size_t>(k)], out)) return false;
    }
    return true;
  }

  void step(const Step &s, N node, const Captures &captures, Found found) {
    if (s.kind == Step::Alt) {
      Captures own;
      if (!withCaptures(captures, s.captures, node, own)) return;
      for (const Step &alternative : s.alternatives) step(alternative, node, own, found);
      return;
    }
    if (s.kind == Step::Token) {
      if (s.type != WILDCARD && (t.named(node) || t.name(node) != s.type)) return;
      Captures own;
      if (withCaptures(captures, s.captures, node, own)) found(own);
      return;
    }
    if (!typeIs(node, s.type) || !t.named(node)) return;
    Captures own;
    if (!withCaptures(captures, s.captures, node, own)) return;
    if (s.children.empty()) {
      found(own);
      return;
    }
    const Step &only = s.children[0];
    if (s.children.size() == 1 && only.kind != Step::Anchor && only.inField) {
      if (only.field == NO_NAME) return;
      for (N child : t.children(node, false, only.field)) step(only, child, own, found);
      return;
    }
    std::vector<N> kids = t.children(node, s.namedOnly);
    children(s.children, 0, node, kids, 0, false, own, found);
  }

  void children(const std::vector<Step> &steps, size_t si, N parent, const std::vector<N> &kids, size_t from, bool anchored, const Captures &captures, Found found) {
    if (si == steps.size()) {
      if (anchored)
        for (size_t k = from; k < kids.size(); k++)
          if (t.named(kids[k])) return;
      found(captures);
      return;
    }
    const Step &s = steps[si];
    if (s.kind == Step::Anchor) {
      children(steps, si + 1, parent, kids, from, true, captures, found);
      return;
    }
    for (size_t i = from; i < kids.size(); i++) {
      N child = kids[i];
      if (mayMatch(s, child) && (!s.inField || (s.field != NO_NAME && t.field(child) == s.field))) {
        auto more = [&](const Captures &m) { children(steps, si + 1, parent, kids, i + 1, false, m, found); };
        step(s, child, captures, Found(more));
      }
      if (anchored && t.named(child)) break;
    }
  }
};

/**
 * The matches of the program's patterns in document order of their root, then pattern order (matchTree). Their
 * captures are in one pool, reused from file to file in this thread (a vector of matches each owning its captures
 * was a fifth of the extraction, most of it first touches of fresh memory): valid until the next call.
 */
const std::vector<Match> &matchTree(Tree &t) {
  thread_local std::vector<Capture> pool;
  thread_local std::vector<std::pair<uint32_t, uint32_t>> ranges;
  thread_local std::vector<Match> out;
  pool.clear();
  ranges.clear();
  out.clear();
  const ComityProgram &p = t.p;
  Matcher m(t);
  const Captures none{};
  int32_t n = t.count();
  for (N node = 0; node < n; node++) {
    int name = t.name(node);
    if (!p.rootName[static_cast<size_t>(name)]) continue;
    for (int index : p.byType[static_cast<size_t>(name)]) {
      const Pattern &pattern = p.patterns[static_cast<size_t>(index)];
      if (pattern.leaf) {
        if (!t.named(node)) continue;
        ranges.push_back({static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(pattern.leafCaptures.size())});
        for (int c : pattern.leafCaptures) pool.push_back({c, node});
        continue;
      }
      m.pattern = &pattern;
      auto found = [&](const Captures &cs) {
        for (const Predicate &q : pattern.predicates)
          if (!m.holds(q, cs)) return;
        ranges.push_back({static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(cs.size())});
        for (const Capture &c : cs) pool.push_back(c);
      };
      m.step(pattern.root, node, none, Found(found));
    }
  }
  out.reserve(ranges.size());
  for (auto &r : ranges) out.push_back({{pool.data() + r.first, pool.data() + r.first + r.second}});
  return out;
}

}  // namespace comity

#endif
