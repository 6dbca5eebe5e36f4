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

namespace {

using U16 = std::u16string;
using V16 = std::u16string_view;
using Opt = std::optional<U16>;

/** Thrown where the JavaScript extraction would throw (or recurse without end): that file is extracted there. */
struct Unsupported {};

U16 u(const char *ascii) {
  U16 out;
  for (const char *p = ascii; *p; p++) out.push_back(static_cast<char16_t>(static_cast<unsigned char>(*p)));
  return out;
}

bool eqn(V16 a, const char *ascii, size_t n) {
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; i++)
    if (a[i] != static_cast<char16_t>(static_cast<unsigned char>(ascii[i]))) return false;
  return true;
}

/** `a` equals a C string (of any length). */
bool eqc(V16 a, const char *ascii) { return eqn(a, ascii, std::strlen(ascii)); }

/** A literal's length known when compiling: no strlen for the many type tests. */
template <size_t L>
inline bool eq(V16 a, const char (&ascii)[L]) {
  return eqn(a, ascii, L - 1);
}

bool startsWith(V16 a, const char *ascii) {
  size_t n = std::strlen(ascii);
  if (a.size() < n) return false;
  return eqn(a.substr(0, n), ascii, n);
}

// ---- JavaScript's character classes, on single UTF-16 units ------------------------------------------------

/** JavaScript's \s. */
bool jsSpace(char16_t c) {
  if (c == 32 || (c >= 9 && c <= 13)) return true;
  if (c < 128) return false;
  return c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

/** ts-signature.ts's GRAMMAR_SPACE: /[\s\p{Zs}\uFEFF\u2028\u2029\u2060\u200B]/u (\p{Zs} is inside \s). */
bool grammarSpace(char16_t c) { return jsSpace(c) || c == 0x2060 || c == 0x200b; }

/** JavaScript's \w (no u flag). */
bool jsWord(char16_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

bool unicodeWord(char16_t c) {
  size_t lo = 0, hi = sizeof(UNICODE_WORDS) / sizeof(UNICODE_WORDS[0]);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (UNICODE_WORDS[mid][1] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < sizeof(UNICODE_WORDS) / sizeof(UNICODE_WORDS[0]) && UNICODE_WORDS[lo][0] <= c;
}

/**
 * Whether `s` matches the regular expression `\bword\b`, or `word\b` for a word that starts with a non-word
 * character (`@deprecated\b`): JavaScript's ASCII word boundaries.
 */
bool hasWord(V16 s, const char *word) {
  size_t n = std::strlen(word);
  bool boundaryBefore = jsWord(static_cast<char16_t>(word[0]));
  for (size_t i = 0; i + n <= s.size(); i++) {
    if (!eqn(s.substr(i, n), word, n)) continue;
    if (boundaryBefore && i > 0 && jsWord(s[i - 1])) continue;
    if (i + n < s.size() && jsWord(s[i + n])) continue;
    return true;
  }
  return false;
}

bool contains(V16 s, char16_t c) { return s.find(c) != V16::npos; }

/** `s.replace(/\s+/g, "")`. */
U16 withoutSpaces(V16 s) {
  U16 out;
  for (char16_t c : s)
    if (!jsSpace(c)) out.push_back(c);
  return out;
}

/** `s.replace(/^re\s*​/, "")` for a literal prefix `re` (none when it is not there). */
U16 dropPrefix(const U16 &s, const char *prefix, bool spaceRequired) {
  if (!startsWith(s, prefix)) return s;
  size_t i = std::strlen(prefix);
  size_t j = i;
  while (j < s.size() && jsSpace(s[j])) j++;
  if (spaceRequired && j == i) return s;
  return s.substr(j);
}

/** JavaScript's `s.slice(1, -1)`. */
U16 innerText(V16 s) { return s.size() < 2 ? U16() : U16(s.substr(1, s.size() - 2)); }

// ---- UTF-8, JSON, xxhash64 ------------------------------------------------------------------------------------

void putUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) out.push_back(static_cast<char>(cp));
  else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

/** UTF-16 to UTF-8 as TextEncoder (and Buffer.from) encode it: a lone surrogate is U+FFFD. */
void appendUtf8(std::string &out, V16 s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    size_t j = i;
    while (j < n && s[j] < 0x80) j++;
    if (j > i) {
      size_t at = out.size();
      out.resize(at + (j - i));
      char *d = &out[at];
      for (size_t k = i; k < j; k++) *d++ = static_cast<char>(s[k]);
      i = j;
      if (i == n) break;
    }
    char16_t c = s[i];
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && s[i + 1] >= 0xdc00 && s[i + 1] <= 0xdfff) {
      putUtf8(out, 0x10000 + ((static_cast<uint32_t>(c) - 0xd800) << 10) + (s[i + 1] - 0xdc00));
      i += 2;
      continue;
    }
    putUtf8(out, (c >= 0xd800 && c <= 0xdfff) ? 0xfffd : c);
    i++;
  }
}

/** JSON.stringify of a string, as UTF-8 (lone surrogates escaped, as JSON.stringify does since ES2019). */
void appendJson(std::string &out, V16 s) {
  static const char hex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plain = 0;  // start of the run not yet written
  auto flush = [&](size_t to) {
    if (to > plain) appendUtf8(out, s.substr(plain, to - plain));
  };
  for (size_t i = 0; i < s.size(); i++) {
    char16_t c = s[i];
    const char *esc = nullptr;
    char buf[7];
    if (c == '"') esc = "\\\"";
    else if (c == '\\') esc = "\\\\";
    else if (c == '\b') esc = "\\b";
    else if (c == '\f') esc = "\\f";
    else if (c == '\n') esc = "\\n";
    else if (c == '\r') esc = "\\r";
    else if (c == '\t') esc = "\\t";
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
      bool paired = false;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.size() && s[i + 1] >= 0xdc00 && s[i + 1] <= 0xdfff) paired = true;
      if (c >= 0xdc00 && c <= 0xdfff && i > 0 && s[i - 1] >= 0xd800 && s[i - 1] <= 0xdbff) paired = true;
      if (!paired) {
        buf[0] = '\\';
        buf[1] = 'u';
        buf[2] = hex[(c >> 12) & 15];
        buf[3] = hex[(c >> 8) & 15];
        buf[4] = hex[(c >> 4) & 15];
        buf[5] = hex[c & 15];
        buf[6] = 0;
        esc = buf;
      }
    }
    if (esc == nullptr) continue;
    flush(i);
    out += esc;
    plain = i + 1;
  }
  flush(s.size());
  out.push_back('"');
}

void appendJson(std::string &out, const Opt &s) {
  if (s) appendJson(out, V16(*s));
  else out += "null";
}

void appendJsonAscii(std::string &out, const char *s) {
  out.push_back('"');
  out += s;
  out.push_back('"');
}

/** JSON text (UTF-8, as JSON.stringify writes it: no control character, no lone surrogate) as a JSON string. */
void appendJsonOfJson(std::string &out, const std::string &json) {
  out.push_back('"');
  for (char c : json) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

constexpr uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL, P3 = 1609587929392839161ULL, P4 = 9650029242287828579ULL,
                   P5 = 2870177450012600261ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t read64(const unsigned char *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian machines (x86, arm64)
}
inline uint32_t read32(const unsigned char *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t round64(uint64_t acc, uint64_t input) { return rotl(acc + input * P2, 31) * P1; }
inline uint64_t merge64(uint64_t acc, uint64_t val) { return (acc ^ round64(0, val)) * P1 + P4; }

/** xxhash64, seed 0 (content-hasher.ts's xxh64). */
uint64_t xxh64(const unsigned char *p, size_t len) {
  const unsigned char *end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
    const unsigned char *limit = end - 32;
    do {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge64(h, v1);
    h = merge64(h, v2);
    h = merge64(h, v3);
    h = merge64(h, v4);
  } else {
    h = P5;
  }
  h += static_cast<uint64_t>(len);
  while (p + 8 <= end) {
    h ^= round64(0, read64(p));
    h = rotl(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= static_cast<uint64_t>(read32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= (*p) * P5;
    h = rotl(h, 11) * P1;
    p++;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

std::string hashOf(V16 text) {
  thread_local std::string bytes;
  bytes.clear();
  appendUtf8(bytes, text);
  uint64_t h = xxh64(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size());
  static const char hex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; i--) {
    out[i] = hex[h & 15];
    h >>= 4;
  }
  return out;
}

}  // namespace

// ---- The program: a language's tables and its combined query (query/parse-query.ts, as data from JavaScript) ----

namespace {

constexpr uint16_t ERROR_TYPE = 0xffff;
constexpr int NO_NAME = -2;   // a type or field name the language does not have: matches nothing
constexpr int WILDCARD = -1;  // `(_)` and `_`

struct Step {
  enum Kind { Node, Token, Alt, Anchor } kind = Node;
  /** Field id when in a field (`name: ...`); 0 for none; NO_NAME for a field the language does not have. */
  int field = 0;
  bool inField = false;
  std::vector<int> captures;
  /** Node: the type's name id (WILDCARD, NO_NAME); Token: the text's name id (WILDCARD for `_`). */
  int type = WILDCARD;
  std::vector<Step> children;      // Node
  std::vector<Step> alternatives;  // Alt
  bool namedOnly = false;          // Node: every child step matches named nodes only (match-query.ts namedOnly)
};

struct Predicate {
  bool match = false;
  int capture = -1;
  int otherCapture = -1;  // eq with a capture
  U16 text;               // eq with a text
  /** match: the forms the engine's queries use, tested directly (`^[A-Z]`, `^(a|b)$`); any other with std::regex. */
  enum Form { Regex, FirstUpper, OneOf } form = Regex;
  std::vector<U16> words;
  std::regex regex;
};

/** What a capture name means to the extraction (its name, read once per program rather than per capture). */
enum Role : uint8_t {
  OTHER,
  DEFINITION,  // definition.<kind>
  SCOPE_FUNCTION,
  SCOPE_GLOBAL,
  SCOPE_OTHER,  // any other scope.*
  NAME,
  COMMENT,
  STRING,
  REF_CALL,
  REF_NEW,
  REF_DECORATOR,
  REF_BASE,
  REF_TYPE,
  REF_IMPORT,
  REF_EXPORT,
  REF_IMPORT_DYNAMIC,
  REF_IMPORT_MODULE,
  REF_IMPORT_NAME,
  REF_IMPORT_SOURCE,
  LOCAL_TYPE_PARAMETER,
  LOCAL_DECLARATION,
};

Role roleOf(const std::string &name) {
  if (name.rfind("definition.", 0) == 0) return DEFINITION;
  if (name == "scope.function") return SCOPE_FUNCTION;
  if (name == "scope.global") return SCOPE_GLOBAL;
  if (name.rfind("scope.", 0) == 0) return SCOPE_OTHER;
  static const std::pair<const char *, Role> named[] = {{"name", NAME},
                                                        {"comment", COMMENT},
                                                        {"string", STRING},
                                                        {"reference.call", REF_CALL},
                                                        {"reference.new", REF_NEW},
                                                        {"reference.decorator", REF_DECORATOR},
                                                        {"reference.base", REF_BASE},
                                                        {"reference.type", REF_TYPE},
                                                        {"reference.import", REF_IMPORT},
                                                        {"reference.export", REF_EXPORT},
                                                        {"reference.import.dynamic", REF_IMPORT_DYNAMIC},
                                                        {"reference.import.module", REF_IMPORT_MODULE},
                                                        {"reference.import.name", REF_IMPORT_NAME},
                                                        {"reference.import.source", REF_IMPORT_SOURCE},
                                                        {"local.type_parameter", LOCAL_TYPE_PARAMETER},
                                                        {"local.declaration", LOCAL_DECLARATION}};
  for (auto &n : named)
    if (name == n.first) return n.second;
  return OTHER;
}

struct Pattern {
  Step root;
  std::vector<Predicate> predicates;
  bool leaf = false;
  std::vector<int> leafCaptures;
  /** Predicates on one capture's text, by capture id (match-query.ts earlyPredicates). */
  std::map<int, std::vector<int>> early;
};

}  // namespace

struct ComityProgram {
  /** Each type id's name id (ERROR for ERROR_TYPE and for ids without a name). */
  std::vector<int> nameOfType;
  std::vector<U16> names;
  std::unordered_map<std::string, int> nameIds;
  std::vector<uint8_t> named;  // by type id, 65536
  /** Field ids by name (the keys are views of fieldNames, which the program owns). */
  std::vector<std::unique_ptr<std::string>> fieldNames;
  std::unordered_map<std::string_view, int> fieldIds;
  std::vector<std::string> captureNames;
  std::vector<Role> roles;  // by capture id
  std::unordered_map<std::string, int> captureIds;
  std::vector<Pattern> patterns;
  /** Pattern indices by the name id of the root's type, and the names any root can have. */
  std::vector<std::vector<int>> byType;  // by name id
  std::vector<uint8_t> rootName;  // by name id
  bool commonJs = false;
  /** The language's id in the output (typescript, tsx, javascript). */
  std::string language;

  int nameId(const std::string &name) const {
    auto it = nameIds.find(name);
    return it == nameIds.end() ? NO_NAME : it->second;
  }
  int fieldId(std::string_view name) const {
    auto it = fieldIds.find(name);
    return it == fieldIds.end() ? -1 : it->second;
  }
  int captureId(const std::string &name) {
    auto it = captureIds.find(name);
    if (it != captureIds.end()) return it->second;
    int id = static_cast<int>(captureNames.size());
    captureNames.push_back(name);
    roles.push_back(roleOf(name));
    captureIds.emplace(name, id);
    return id;
  }
};

namespace {

// ---- The tree (flat-tree.ts's FlatTree and FlatNode) ------------------------------------------------------------

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

// ---- The query matcher (query/match-query.ts, over a flat tree) ---------------------------------------------------

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

}  // namespace

// ---- The lexical index and normalised text (normalize.ts) ---------------------------------------------------------

namespace {

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

}  // namespace

// ---- Signatures (signature.ts, types.ts) --------------------------------------------------------------------------

namespace {

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

void canonicalOne(std::string &out, const Sig &x) {
  out.push_back('[');
  appendJson(out, V16(x.name));
  out.push_back(',');
  appendJsonAscii(out, x.kind.c_str());
  out.push_back(',');
  std::vector<U16> mods = x.modifiers;
  if (mods.size() >= 2) std::stable_sort(mods.begin(), mods.end());
  jsonStrings(out, mods);
  out += ",[";
  for (size_t i = 0; i < x.typeParams.size(); i++) {
    const TypeParam &t = x.typeParams[i];
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
  out += "],";
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
  s = "[";
  for (size_t i = 0; i < x.typeParams.size(); i++) {
    const TypeParam &t = x.typeParams[i];
    if (i > 0) s.push_back(',');
    s.push_back('[');
    appendJson(s, V16(t.name));
    s.push_back(',');
    appendJson(s, t.constraint);
    s.push_back(',');
    appendJson(s, t.def);
    if (t.hasModifiers) {
      s.push_back(',');
      jsonStrings(s, t.modifiers);
    }
    s.push_back(']');
  }
  s.push_back(']');
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

}  // namespace

// ---- The TypeScript extractor (typescript/extract-typescript.ts, ts-signature.ts, common-js-exports.ts) ----------

namespace {

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

  void defaultExports(N root, std::vector<Raw> &out) {
    for (N s : t.namedChildren(root)) {
      if (!t.is(s, "export_statement") || !t.hasAnyChild(s, "default")) continue;
      N value = t.childForField(s, "value");
      if (value < 0 || t.is(value, "identifier")) continue;
      std::string kind = t.is(value, "class") ? "class" : isFunctionValue(t, value) ? "function" : "variable";
      Raw r;
      U16 name = u("default");
      if (kind == "function") r.sig = functionSignature(name, kind, s, value);
      else if (kind == "class") {
        r.sig = emptySignature(name, kind);
        r.sig.typeParams = typeParamsOf(t.childForField(value, "type_parameters"));
        r.sig.heritage = heritageOf(value);
      } else r.sig = emptySignature(name, kind);
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
    if (kind == "function") r.sig = functionSignature(name, kind, value, value);
    else if (kind == "class") {
      r.sig = emptySignature(name, kind);
      r.sig.typeParams = typeParamsOf(t.childForField(value, "type_parameters"));
      r.sig.heritage = heritageOf(value);
    } else r.sig = emptySignature(name, kind);
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

}  // namespace

// ---- References (extract-references.ts) ---------------------------------------------------------------------------

namespace {

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

// ---- Records (raw-symbol.ts finalizeSymbols) and the entry's text (symbol-cache.ts entryText) --------------------

struct Record {
  U16 name, qualified;
  std::string kind;
  bool exported;
  int32_t range[4];
  std::string signatureHash, bodyHash;
  U16 rendered;
  Sig detail;
};
static_assert(std::is_nothrow_move_constructible_v<Record>, "records move when their vector grows");

std::vector<Record> finalizeSymbols(Tree &t, std::vector<Raw> &raw) {
  std::vector<std::vector<Raw *>> groups;
  std::map<std::pair<U16, std::string>, size_t> at;
  for (Raw &r : raw) {
    auto key = std::make_pair(r.qualified, r.kind);
    auto it = at.find(key);
    if (it == at.end()) {
      at[key] = groups.size();
      groups.push_back({&r});
    } else groups[it->second].push_back(&r);
  }
  std::vector<Record> out;
  out.reserve(groups.size());
  for (auto &group : groups) {
    std::stable_sort(group.begin(), group.end(), [&](const Raw *a, const Raw *b) { return t.start(a->node) < t.start(b->node); });
    Raw &first = *group.front();
    const Raw &last = *group.back();
    U16 body = first.body;
    for (size_t i = 1; i < group.size(); i++) body += u("\n") + group[i]->body;
    bool exported = false;
    for (const Raw *g : group) exported = exported || g->exported;
    std::vector<Sig> overloads;
    if (group.size() > 1) {
      bool overloadsOnly = false;
      for (const Raw *g : group) overloadsOnly = overloadsOnly || g->overloadSignature;
      for (const Raw *g : group)
        if (!overloadsOnly || g->overloadSignature) overloads.push_back(g->sig);
    }
    // (the raw symbols are not read again: the first one's signature is taken, not copied)
    Sig signature = std::move(first.sig);
    if (group.size() > 1) signature.overloads = std::move(overloads);
    auto s = t.point(t.start(first.node));
    auto e = t.point(t.end(last.node));
    std::string canonical = canonicalSignature(signature);
    uint64_t h = xxh64(reinterpret_cast<const unsigned char *>(canonical.data()), canonical.size());
    static const char hex[] = "0123456789abcdef";
    std::string sh(16, '0');
    for (int i = 15; i >= 0; i--) {
      sh[static_cast<size_t>(i)] = hex[h & 15];
      h >>= 4;
    }
    U16 rendered = renderSignature(signature);
    out.push_back(Record{std::move(first.name), std::move(first.qualified), first.kind, exported, {s.first + 1, s.second, e.first + 1, e.second}, std::move(sh), hashOf(body), std::move(rendered), std::move(signature)});
  }
  // Sorted by qualified name, then kind (through indices: records are large to move).
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (out[a].qualified != out[b].qualified) return out[a].qualified < out[b].qualified;
    return out[a].kind < out[b].kind;
  });
  std::vector<Record> sorted;
  sorted.reserve(out.size());
  for (size_t i : order) sorted.push_back(std::move(out[i]));
  return sorted;
}

/** The first syntax error's line (symbol-extractor.ts parseErrorDiagnostic); 0 when the tree has none. */
int parseErrorLine(Tree &t) {
  int32_t n = t.count();
  // (most files have no error at all: one look at each node says so)
  bool any = false;
  for (int32_t i = 0; i < n && !any; i++) any = t.t.types[i] == ERROR_TYPE || t.missing(i);
  if (!any) return 0;
  std::vector<uint8_t> &errors = scratch.errors;
  errors.assign(static_cast<size_t>(n), 0);
  for (int32_t i = n - 1; i >= 0; i--) {
    if (t.t.types[i] == ERROR_TYPE || t.missing(i)) errors[static_cast<size_t>(i)] = 1;
    if (errors[static_cast<size_t>(i)] && i > 0) errors[static_cast<size_t>(t.parent(i))] = 1;
  }
  if (n == 0 || !errors[0]) return 0;
  // find(): depth first, into subtrees that hold an error, to the first ERROR or missing node.
  std::vector<N> stack{0};
  while (!stack.empty()) {
    N i = stack.back();
    stack.pop_back();
    if (!errors[static_cast<size_t>(i)]) continue;
    if (eq(t.type(i), "ERROR") || t.missing(i)) return t.point(t.start(i)).first + 1;
    std::vector<N> kids = t.children(i);
    for (size_t k = kids.size(); k-- > 0;) stack.push_back(kids[k]);
  }
  return -1;  // an error somewhere, none found: the message has no line
}

void appendRecordShown(std::string &out, const Record &r) {
  out += "{\"name\":";
  appendJson(out, V16(r.name));
  out += ",\"qualified_name\":";
  appendJson(out, V16(r.qualified));
  out += ",\"kind\":";
  appendJsonAscii(out, r.kind.c_str());
  out += r.exported ? ",\"exported\":true" : ",\"exported\":false";
  out += ",\"range\":{\"start_line\":" + std::to_string(r.range[0]) + ",\"start_column\":" + std::to_string(r.range[1]) + ",\"end_line\":" + std::to_string(r.range[2]) + ",\"end_column\":" + std::to_string(r.range[3]) + "}";
  out += ",\"signature_hash\":\"" + r.signatureHash + "\",\"body_hash\":\"" + r.bodyHash + "\",\"signature\":";
  appendJson(out, V16(r.rendered));
  out.push_back('}');
}

/** The entry's first line: its JSON (symbol-cache.ts encodeEntry), without its newline. */
void entryLine(std::string &out, const std::string &language, const std::vector<Record> &records, const std::vector<Reference> &refs, const std::string &diagnostics) {
  out += "{\"v\":6,\"l\":";
  appendJsonAscii(out, language.c_str());
  out += ",\"s\":[";
  std::string detail;
  for (size_t i = 0; i < records.size(); i++) {
    const Record &r = records[i];
    if (i > 0) out.push_back(',');
    appendJson(out, V16(r.name));
    out.push_back(',');
    if (r.qualified == r.name) out.push_back('0');
    else appendJson(out, V16(r.qualified));
    out.push_back(',');
    appendJsonAscii(out, r.kind.c_str());
    out += r.exported ? ",1," : ",0,";
    out += std::to_string(r.range[0]) + "," + std::to_string(r.range[1]) + "," + std::to_string(r.range[2]) + "," + std::to_string(r.range[3]) + ",";
    out += "\"" + r.signatureHash + "\",\"" + r.bodyHash + "\",";
    appendJson(out, V16(r.rendered));
    out.push_back(',');
    detail.clear();
    detailJson(detail, r.detail, r.name, r.kind);
    appendJsonOfJson(out, detail);
  }
  out += "],\"r\":[";
  for (size_t i = 0; i < refs.size(); i++) {
    if (i > 0) out.push_back(',');
    appendJsonAscii(out, refs[i].kind.c_str());
    out.push_back(',');
    appendJson(out, V16(refs[i].name));
    out.push_back(',');
    appendJson(out, refs[i].module);
  }
  out += "],\"d\":" + diagnostics + "}";
}

/**
 * The entry text (symbol-cache.ts entryText): its JSON, its printed form and its diagnostics' JSON, a line each.
 * `printedOnly`: the first line left empty, as entryText's option does (nothing will store it).
 */
std::string entryText(const std::string &language, const std::vector<Record> &records, const std::vector<Reference> &refs, const std::string &diagnostics, bool printedOnly) {
  std::string out;
  if (!printedOnly) entryLine(out, language, records, refs, diagnostics);
  out.push_back('\n');
  out += "\"language\":";
  appendJsonAscii(out, language.c_str());
  out += ",\"symbols\":[";
  for (size_t i = 0; i < records.size(); i++) {
    if (i > 0) out.push_back(',');
    appendRecordShown(out, records[i]);
  }
  out += "],\"references\":[";
  for (size_t i = 0; i < refs.size(); i++) {
    if (i > 0) out.push_back(',');
    out += "{\"kind\":";
    appendJsonAscii(out, refs[i].kind.c_str());
    out += ",\"name\":";
    appendJson(out, V16(refs[i].name));
    out += ",\"module\":";
    appendJson(out, refs[i].module);
    out.push_back('}');
  }
  out += "]\n" + diagnostics + "\n";
  return out;
}

}  // namespace

// ---- The program, from JavaScript's data, and the extraction's entry point -----------------------------------------

namespace {

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

}  // namespace

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
    std::vector<Raw> raw = x.extract(definitions, p, declaration != 0);
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
