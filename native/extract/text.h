/*
 * JavaScript's strings as the extraction meets them: UTF-16 helpers, JavaScript's character classes on single units,
 * UTF-8 as TextEncoder writes it, JSON.stringify's strings, and xxhash64 (content-hasher.ts's).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_TEXT_H
#define COMITY_EXTRACT_TEXT_H

namespace comity {

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

}  // namespace comity

#endif
