/*
 * A flat tree as flat-tree.ts's FlatTree and FlatNode read it, with per-node tables reused from file to file.
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_TREE_H
#define COMITY_EXTRACT_TREE_H

namespace comity {

using N = int32_t;  // a node: its pre-order index; -1 for none
constexpr N NONE = -1;

/**
 * Per-node tables, reused from one file to the next in a thread (sized to each file in turn): fresh ones for each
 * file were mostly first touches of memory, a fifth of the extraction.
 */
struct Scratch {
  std::vector<int32_t> after, previous, last, lines;
  std::vector<uint8_t> errors;
};
thread_local Scratch scratch;

struct Tree {
  const ComityProgram &p;
  const char16_t *src;
  int32_t length;
  const ComityFlatTree &t;
  std::vector<int32_t> &after;
  std::vector<int32_t> &lines;
  mutable bool linesMade = false, previousMade = false;

  Tree(const ComityProgram &program, const char16_t *text, int32_t len, const ComityFlatTree &tree)
      : p(program), src(text), length(len), t(tree), after(scratch.after), lines(scratch.lines) {
    int32_t n = static_cast<int32_t>(t.count);
    after.resize(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; i++) after[i] = i + 1;
    for (int32_t i = n - 1; i > 0; i--) {
      int32_t q = t.parents[i];
      if (after[i] > after[q]) after[q] = after[i];
    }
  }

  int32_t count() const { return static_cast<int32_t>(t.count); }
  int name(N i) const { return p.nameOfType[t.types[i]]; }
  V16 type(N i) const { return p.names[name(i)]; }
  template <size_t L>
  bool is(N i, const char (&typeName)[L]) const {
    return i >= 0 && eqn(type(i), typeName, L - 1);
  }
  bool named(N i) const { return p.named[t.types[i]] != 0; }
  bool missing(N i) const { return (t.flags[i] & 1) != 0; }
  int32_t start(N i) const { return t.starts[i]; }
  int32_t end(N i) const { return t.ends[i]; }
  V16 slice(int32_t a, int32_t b) const {
    // JavaScript's slice: clamped, and empty when reversed.
    if (a < 0) a = 0;
    if (b > length) b = length;
    return b <= a ? V16() : V16(src + a, static_cast<size_t>(b - a));
  }
  V16 text(N i) const { return slice(start(i), end(i)); }
  N parent(N i) const { return i < 0 ? NONE : t.parents[i]; }
  uint16_t field(N i) const { return t.fields[i]; }

  std::vector<N> children(N i, bool namedOnly = false, int fieldId = 0) const {
    std::vector<N> out;
    for (N c = i + 1; c < after[i]; c = after[c])
      if ((!namedOnly || named(c)) && (fieldId == 0 || t.fields[c] == fieldId)) out.push_back(c);
    return out;
  }
  std::vector<N> namedChildren(N i) const { return children(i, true); }
  int namedChildCount(N i) const {
    int k = 0;
    for (N c = i + 1; c < after[i]; c = after[c])
      if (named(c)) k++;
    return k;
  }
  N firstNamedChild(N i) const {
    for (N c = i + 1; c < after[i]; c = after[c])
      if (named(c)) return c;
    return NONE;
  }
  /** Each node's previous sibling (made on first use: walking a parent's children for each was quadratic). */
  N previousSibling(N i) const {
    std::vector<N> &previous = scratch.previous;
    if (!previousMade) {
      previousMade = true;
      int32_t n = count();
      previous.assign(static_cast<size_t>(n), NONE);
      std::vector<N> &last = scratch.last;
      last.assign(static_cast<size_t>(n), NONE);
      for (N c = 1; c < n; c++) {
        N q = t.parents[c];
        previous[static_cast<size_t>(c)] = last[static_cast<size_t>(q)];
        last[static_cast<size_t>(q)] = c;
      }
    }
    return previous[static_cast<size_t>(i)];
  }
  N childForField(N i, const char *fieldName) const {
    if (i < 0) return NONE;
    int id = p.fieldId(fieldName);
    if (id < 0 || t.types[i] == ERROR_TYPE) return NONE;
    for (N c = i + 1; c < after[i]; c = after[c])
      if (t.fields[c] == id) return c;
    return NONE;
  }
  bool hasAnyChild(N i, const char *typeName) const {
    for (N c = i + 1; c < after[i]; c = after[c])
      if (eqc(type(c), typeName)) return true;
    return false;
  }
  N findNamedChild(N i, const char *typeName) const {
    for (N c = i + 1; c < after[i]; c = after[c])
      if (named(c) && eqc(type(c), typeName)) return c;
    return NONE;
  }
  /** Row and column of a text index (FlatTree.point). */
  std::pair<int32_t, int32_t> point(int32_t index) {
    if (!linesMade) {
      linesMade = true;
      lines.clear();
      lines.push_back(0);
      for (int32_t i = 0; i < length; i++)
        if (src[i] == u'\n') lines.push_back(i + 1);
    }
    size_t lo = 0, hi = lines.size() - 1;
    while (lo < hi) {
      size_t mid = (lo + hi + 1) >> 1;
      if (lines[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return {static_cast<int32_t>(lo), index - lines[lo]};
  }
};

}  // namespace comity

#endif
