/*
 * The lexical index and normalised text (normalize.ts).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_NORMALIZE_H
#define COMITY_EXTRACT_NORMALIZE_H

namespace comity {

struct Lexical {
  std::vector<int32_t> comments;  // flat [start, end) pairs, sorted
  std::vector<int32_t> strings;   // outermost literals only
};

Lexical indexLexical(Tree &t, const std::vector<Capture> &captures) {
  std::vector<std::pair<int32_t, int32_t>> comments, literals;
  for (const Capture &c : captures) (t.p.roles[static_cast<size_t>(c.name)] == COMMENT ? comments : literals).push_back({t.start(c.node), t.end(c.node)});
  auto byStart = [](const std::pair<int32_t, int32_t> &a, const std::pair<int32_t, int32_t> &b) { return a.first < b.first || (a.first == b.first && a.second > b.second); };
  std::stable_sort(comments.begin(), comments.end(), byStart);
  std::stable_sort(literals.begin(), literals.end(), byStart);
  Lexical out;
  for (auto &c : comments) {
    out.comments.push_back(c.first);
    out.comments.push_back(c.second);
  }
  for (auto &l : literals) {
    if (!out.strings.empty() && l.first < out.strings.back()) continue;
    out.strings.push_back(l.first);
    out.strings.push_back(l.second);
  }
  return out;
}

constexpr int WORD = 1, OPERATOR = 2, SPACE = 4, RUN_END = 8, CLOSER = 16;

int asciiClass(char16_t c) {
  int k = 0;
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '"' || c == '\'' || c == '`') k |= WORD;
  if (c != 0 && std::strchr("+-*/%<>=!&|^~?:.", static_cast<char>(c)) != nullptr) k |= OPERATOR;
  if (c == 32 || (c >= 9 && c <= 13)) k |= SPACE | RUN_END;
  if (c == ',' || c == ';' || c == '=') k |= RUN_END;
  if (c != 0 && std::strchr(")]}>", static_cast<char>(c)) != nullptr) k |= CLOSER;
  return k;
}

struct Classes {
  int ascii[128];
  Classes() {
    for (int c = 0; c < 128; c++) ascii[c] = asciiClass(static_cast<char16_t>(c));
  }
};
const Classes CLASSES;

inline int classOf(char16_t code) {
  if (code < 128) return CLASSES.ascii[code];
  if (code == 0xa0 || code == 0xfeff) return SPACE | RUN_END;
  return unicodeWord(code) ? WORD : 0;
}

inline bool spaced(char16_t last, char16_t first) { return (classOf(last) & classOf(first) & (WORD | OPERATOR)) != 0; }

size_t lowerBound(const std::vector<int32_t> &pairs, int32_t pos) {
  size_t lo = 0, hi = pairs.size() / 2;
  while (lo < hi) {
    size_t mid = (lo + hi) >> 1;
    if (pairs[mid * 2 + 1] <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo * 2;
}

using Ranges = std::vector<std::pair<int32_t, int32_t>>;

std::vector<int32_t> holesIn(const std::vector<int32_t> &comments, const Ranges &skip, int32_t start, int32_t end) {
  Ranges pairs;
  for (size_t k = lowerBound(comments, start); k < comments.size() && comments[k] < end; k += 2) pairs.push_back({comments[k], comments[k + 1]});
  for (auto &r : skip)
    if (r.first >= start && r.second <= end && r.second > r.first) pairs.push_back(r);
  std::stable_sort(pairs.begin(), pairs.end(), [](auto &a, auto &b) { return a.first < b.first; });
  std::vector<int32_t> flat;
  for (auto &r : pairs) {
    if (!flat.empty() && r.first <= flat.back()) flat.back() = std::max(flat.back(), r.second);
    else {
      flat.push_back(r.first);
      flat.push_back(r.second);
    }
  }
  return flat;
}

const Ranges NO_RANGES;

/** normalizeRange: source[start, end) with formatting removed. */
U16 normalizeRange(const Tree &t, const Lexical &index, int32_t start, int32_t end, const Ranges &skip = NO_RANGES, bool drop = false) {
  const char16_t *src = t.src;
  const int32_t length = t.length;
  auto at = [&](int32_t i) -> int32_t { return i >= 0 && i < length ? src[i] : -1; };  // charCodeAt (NaN as -1)
  std::vector<int32_t> holes = holesIn(index.comments, skip, start, end);
  const std::vector<int32_t> &strings = index.strings;
  size_t si = lowerBound(strings, start);
  size_t hi = 0;
  U16 out;
  int32_t spanStart = 0, spanEnd = -1;
  bool empty = true, pending = false, force = false;
  int32_t last = 0;
  // classOf of a charCodeAt that may be NaN: NaN < 128 is false, so it is neither space nor a word (class 0).
  auto cls = [&](int32_t code) -> int { return code < 0 ? 0 : classOf(static_cast<char16_t>(code)); };
  auto put = [&](int32_t a, int32_t b) {
    bool space = !empty && (force || (pending && ((cls(last) & cls(at(a)) & (WORD | OPERATOR)) != 0)));
    if (spanEnd >= 0 && (space ? a == spanEnd + 1 && at(spanEnd) == 32 : a == spanEnd)) {
      spanEnd = b;
    } else {
      if (spanEnd >= 0) out.append(src + spanStart, static_cast<size_t>(spanEnd - spanStart));
      if (space) out.push_back(u' ');
      spanStart = a;
      spanEnd = b;
    }
    empty = false;
    last = at(b - 1);
    pending = false;
    force = false;
  };
  auto nextCode = [&](int32_t from) -> int32_t {
    int32_t j = from;
    size_t h = hi;
    while (j < end) {
      while (h < holes.size() && holes[h + 1] <= j) h += 2;
      if (h < holes.size() && holes[h] <= j) {
        j = holes[h + 1];
        continue;
      }
      if ((cls(at(j)) & SPACE) == 0) return j;
      j++;
    }
    return -1;
  };
  int32_t i = start;
  while (i < end) {
    while (hi < holes.size() && holes[hi + 1] <= i) hi += 2;
    if (hi < holes.size() && holes[hi] <= i) {
      i = holes[hi + 1];
      pending = true;
      continue;
    }
    while (si < strings.size() && strings[si + 1] <= i) si += 2;
    if (si < strings.size() && strings[si] <= i) {
      int32_t e = std::min(strings[si + 1], end);
      put(i, e);
      i = e;
      continue;
    }
    int32_t limit = end;
    if (hi < holes.size() && holes[hi] < limit) limit = holes[hi];
    if (si < strings.size() && strings[si] < limit) limit = strings[si];
    int32_t code = at(i);
    int c = cls(code);
    if ((c & SPACE) != 0) {
      pending = true;
      i++;
      while (i < limit && (cls(at(i)) & SPACE) != 0) i++;
      continue;
    }
    if (code == 44 || (code == 59 && drop)) {
      int32_t j = nextCode(i + 1);
      if (drop || (code == 44 && (j < 0 || (cls(at(j)) & CLOSER) != 0))) {
        pending = true;
        i++;
        continue;
      }
      put(i, i + 1);
      force = true;
      i++;
      continue;
    }
    if (code == 61 && at(i + 1) == 62) {
      force = !empty;
      put(i, i + 2);
      force = true;
      i += 2;
      continue;
    }
    int32_t j = i + 1;
    while (j < limit && (cls(at(j)) & RUN_END) == 0) j++;
    put(i, j);
    i = j;
  }
  if (spanEnd >= 0) out.append(src + spanStart, static_cast<size_t>(spanEnd - spanStart));
  return out;
}

}  // namespace comity

#endif
