/*
 * Records (raw-symbol.ts finalizeSymbols) and the entry's text (symbol-cache.ts entryText).
 *
 * A part of native/extract_symbols.cc, which includes the parts in order (one translation unit: each part reads
 * what the ones before it define, in namespace comity).
 */
#ifndef COMITY_EXTRACT_ENTRY_TEXT_H
#define COMITY_EXTRACT_ENTRY_TEXT_H

namespace comity {

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

}  // namespace comity

#endif
