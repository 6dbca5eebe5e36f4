/*
 * The program: a language's tables and its combined query (query/parse-query.ts's patterns, as data from
 * JavaScript), and what each capture name means to the extraction.
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_PROGRAM_H
#define COMITY_EXTRACT_PROGRAM_H

namespace comity {

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

}  // namespace comity

struct ComityProgram {
  /** Each type id's name id (ERROR for ERROR_TYPE and for ids without a name). */
  std::vector<int> nameOfType;
  std::vector<comity::U16> names;
  std::unordered_map<std::string, int> nameIds;
  std::vector<uint8_t> named;  // by type id, 65536
  /** Field ids by name (the keys are views of fieldNames, which the program owns). */
  std::vector<std::unique_ptr<std::string>> fieldNames;
  std::unordered_map<std::string_view, int> fieldIds;
  std::vector<std::string> captureNames;
  std::vector<comity::Role> roles;  // by capture id
  std::unordered_map<std::string, int> captureIds;
  std::vector<comity::Pattern> patterns;
  /** Pattern indices by the name id of the root's type, and the names any root can have. */
  std::vector<std::vector<int>> byType;  // by name id
  std::vector<uint8_t> rootName;  // by name id
  bool commonJs = false;
  /** Python's extractor (python/extract-python.ts), not TypeScript's. */
  bool python = false;
  /** The language's id in the output (typescript, tsx, javascript). */
  std::string language;

  int nameId(const std::string &name) const {
    auto it = nameIds.find(name);
    return it == nameIds.end() ? comity::NO_NAME : it->second;
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
    roles.push_back(comity::roleOf(name));
    captureIds.emplace(name, id);
    return id;
  }
};

#endif
