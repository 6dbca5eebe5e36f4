import { compareStrings } from "../errors/diagnostic.js";
import { reason, type ChangeReason } from "./change-reason.js";
import { goAddedReasons, goReasons } from "./go/go-compatibility.js";
import { javaAddedReasons, javaReasons } from "./java/java-compatibility.js";
import { rustAddedReasons, rustReasons } from "./rust/rust-compatibility.js";
import { pythonReasons } from "./python/python-compatibility.js";
import { canonicalSignature } from "./signature.js";
import type { SymbolKind, SymbolRecord } from "./types.js";
import { typescriptReasons } from "./typescript/ts-compatibility.js";

export type SymbolChangeKind = "added" | "removed" | "renamed" | "signature_changed" | "body_changed";
export type Compatibility = "breaking" | "compatible" | "internal";

export interface SymbolChange {
  readonly qualified_name: string;
  readonly kind: SymbolKind;
  readonly change: SymbolChangeKind;
  /** For a rename, the old qualified name. */
  readonly renamed_from: string | null;
  readonly exported: boolean;
  readonly compatibility: Compatibility;
  readonly reasons: readonly ChangeReason[];
}

export type CompatLanguage = "typescript" | "python" | "go" | "rust" | "java";

/** Which rules a file's language is compared by: JavaScript's and TSX's are TypeScript's. */
export function compatLanguageOf(language: string | null): CompatLanguage {
  return language === "python" || language === "go" || language === "rust" || language === "java" ? language : "typescript";
}

/**
 * Compares a file's symbols before and after an edit: `added`, `removed`,
 * `renamed` (one removed and one added with the same kind, signature shape
 * and body), `signature_changed` and `body_changed`, each with a
 * compatibility verdict for callers. Non-exported symbols are `internal`;
 * for exported ones the language rules of
 * `docs/compatibility.md` say, with machine-readable
 * reasons. Pure; sorted by qualified name.
 *
 * @example
 * compareSymbols(before.symbols, after.symbols, "typescript");
 * // [{ qualified_name: "parseConfig", change: "signature_changed", compatibility: "breaking",
 * //    reasons: [{ code: "PARAMETER_ADDED_REQUIRED", ... }], ... }]
 */
export function compareSymbols(before: readonly SymbolRecord[], after: readonly SymbolRecord[], language: CompatLanguage): SymbolChange[] {
  const byName = (list: readonly SymbolRecord[]): Map<string, SymbolRecord[]> => {
    const m = new Map<string, SymbolRecord[]>();
    for (const s of list) m.set(s.qualified_name, [...(m.get(s.qualified_name) ?? []), s]);
    return m;
  };
  const bMap = byName(before);
  const aMap = byName(after);
  const pairs: Array<[SymbolRecord, SymbolRecord]> = [];
  const removed: SymbolRecord[] = [];
  const added: SymbolRecord[] = [];
  for (const name of new Set([...bMap.keys(), ...aMap.keys()])) {
    const bs = [...(bMap.get(name) ?? [])];
    const as = [...(aMap.get(name) ?? [])];
    // Same name and kind first (TypeScript merges a namespace with a class or function of one name).
    for (let i = bs.length - 1; i >= 0; i--) {
      const j = as.findIndex((a) => a.kind === bs[i]?.kind);
      if (j >= 0) {
        pairs.push([bs[i] as SymbolRecord, as[j] as SymbolRecord]);
        bs.splice(i, 1);
        as.splice(j, 1);
      }
    }
    // One left on each side: the same object changed kind.
    if (bs.length === 1 && as.length === 1) pairs.push([bs[0] as SymbolRecord, as[0] as SymbolRecord]);
    else {
      removed.push(...bs);
      added.push(...as);
    }
  }

  const changes: SymbolChange[] = [];
  const afterKinds = new Map(after.map((s) => [s.qualified_name, s.kind]));
  const beforeKinds = new Map(before.map((s) => [s.qualified_name, s.kind]));
  const afterDetails = new Map(after.map((s) => [s.qualified_name, s.detail]));

  // Renames: same kind, same signature but for the name, same body.
  const shape = (s: SymbolRecord): string => `${s.kind}\0${canonicalSignature(s.detail, false)}\0${s.body_hash}`;
  for (let i = removed.length - 1; i >= 0; i--) {
    const r = removed[i] as SymbolRecord;
    const j = added.findIndex((a) => shape(a) === shape(r) && parentOf(a.qualified_name) === parentOf(r.qualified_name));
    if (j < 0) continue;
    const a = added[j] as SymbolRecord;
    removed.splice(i, 1);
    added.splice(j, 1);
    const exported = r.exported || a.exported;
    changes.push({
      qualified_name: a.qualified_name,
      kind: a.kind,
      change: "renamed",
      renamed_from: r.qualified_name,
      exported,
      compatibility: r.exported ? "breaking" : "internal",
      reasons: r.exported ? [reason(language === "python" ? "OBJECT_REMOVED" : "EXPORT_RENAMED", "breaking", `renamed from ${r.qualified_name}: callers of the old name break`)] : [],
    });
  }

  for (const r of removed) {
    const code = language === "python" ? "OBJECT_REMOVED" : memberCode(beforeKinds.get(parentOf(r.qualified_name)), r.kind, "REMOVED");
    changes.push(verdictOf(r.qualified_name, r.kind, "removed", r.exported, r.exported ? [reason(code, "breaking", `${r.kind} ${r.qualified_name} was removed`)] : []));
  }
  for (const a of added) {
    const clash = a.exported && before.some((b) => b.exported && b.qualified_name === a.qualified_name);
    const reasons = !a.exported
      ? []
      : clash
        ? [reason("EXPORT_NAME_CLASH", "breaking", `a new ${a.kind} shares the name ${a.qualified_name} with an existing export`)]
        : language === "rust"
          ? rustAddedReasons(a.name, a.kind, afterKinds.get(parentOf(a.qualified_name)), afterDetails.get(parentOf(a.qualified_name)), a.detail, a.qualified_name)
          : language === "java"
            ? javaAddedReasons(a.name, a.kind, afterKinds.get(parentOf(a.qualified_name)), a.detail, a.qualified_name)
            : addedReasons(a, afterKinds.get(parentOf(a.qualified_name)), language);
    changes.push(verdictOf(a.qualified_name, a.kind, "added", a.exported, reasons));
  }
  for (const [b, a] of pairs) {
    const exported = b.exported || a.exported;
    if (b.signature_hash !== a.signature_hash || b.exported !== a.exported) {
      let reasons: ChangeReason[] = [];
      if (!b.exported) {
        // Nobody outside could call it before: at most it became public.
        if (a.exported) reasons = [reason(language === "python" ? "OBJECT_ADDED" : "EXPORT_ADDED", "compatible", `${a.qualified_name} is now public`)];
      } else {
        if (!a.exported) reasons.push(reason(language === "python" ? "OBJECT_REMOVED" : "EXPORT_REMOVED", "breaking", `${b.qualified_name} is no longer public`));
        if (b.signature_hash !== a.signature_hash) {
          const parentKind = afterKinds.get(parentOf(a.qualified_name));
          const found =
            language === "python"
              ? pythonReasons(b.detail, a.detail)
              : language === "go"
                ? goReasons(b.detail, a.detail, parentKind)
                : language === "rust"
                  ? rustReasons(b.detail, a.detail)
                  : language === "java"
                    ? javaReasons(b.detail, a.detail)
                    : typescriptReasons(b.detail, a.detail, parentKind);
          reasons.push(...(found.length > 0 ? found : [reason("SIGNATURE_CHANGED", "breaking", "the signature changed in a way syntax cannot classify", true)]));
        }
      }
      changes.push(verdictOf(a.qualified_name, a.kind, "signature_changed", exported, reasons));
    } else if (b.body_hash !== a.body_hash) {
      changes.push(verdictOf(a.qualified_name, a.kind, "body_changed", exported, []));
    }
  }
  return changes.sort((x, y) => compareStrings(x.qualified_name, y.qualified_name) || compareStrings(x.change, y.change));
}

/** Internal when nothing public changed; else breaking when any reason breaks callers, compatible otherwise. */
function verdictOf(qualified_name: string, kind: SymbolKind, change: SymbolChangeKind, exported: boolean, reasons: readonly ChangeReason[]): SymbolChange {
  const compatibility: Compatibility = !exported || reasons.length === 0 ? "internal" : reasons.some((r) => r.verdict === "breaking") ? "breaking" : "compatible";
  return { qualified_name, kind, change, renamed_from: null, exported, compatibility, reasons };
}

/** `Class.method` → `Class`; a top-level name → "". */
export function parentOf(qualifiedName: string): string {
  const i = qualifiedName.lastIndexOf(".");
  return i < 0 ? "" : qualifiedName.slice(0, i);
}

function memberCode(parentKind: SymbolKind | undefined, kind: SymbolKind, what: string): string {
  if (parentKind === undefined) return `EXPORT_${what}`;
  if (kind === "enum_member") return `ENUM_MEMBER_${what}`;
  if (kind === "method") return `METHOD_${what}`;
  if (kind === "property") return `PROPERTY_${what}`;
  return `MEMBER_${what}`;
}

/** What adding a public symbol means for callers: compatible, except where implementers must now provide it. */
function addedReasons(a: SymbolRecord, parentKind: SymbolKind | undefined, language: CompatLanguage): ChangeReason[] {
  if (language === "python") return [reason("OBJECT_ADDED", "compatible", `new public ${a.kind} ${a.qualified_name}`)];
  if (language === "go") return goAddedReasons(a.name, a.kind, parentKind, a.qualified_name);
  const optional = a.detail.modifiers.includes("optional");
  if (parentKind === "interface" && a.kind === "property") {
    return optional
      ? [reason("PROPERTY_ADDED_OPTIONAL", "compatible", `optional property ${a.name} added`)]
      : [reason("PROPERTY_ADDED_REQUIRED", "breaking", `required property ${a.name} added: every object of this type must now have it`)];
  }
  if (parentKind === "interface" && a.kind === "method") {
    return optional
      ? [reason("METHOD_ADDED_OPTIONAL", "compatible", `optional method ${a.name} added`)]
      : [reason("INTERFACE_METHOD_ADDED_REQUIRED", "breaking", `required method ${a.name} added: implementers must now provide it`)];
  }
  if (a.kind === "method" && parentKind === "class" && a.detail.modifiers.includes("abstract")) {
    return [reason("ABSTRACT_METHOD_ADDED", "breaking", `abstract method ${a.name} added: subclasses must now implement it`)];
  }
  if (a.kind === "enum_member") return [reason("ENUM_MEMBER_ADDED", "compatible", `enum member ${a.name} added (an exhaustive switch over the enum now misses it)`)];
  return [reason(parentKind === undefined ? "EXPORT_ADDED" : memberCode(parentKind, a.kind, "ADDED"), "compatible", `new ${a.kind} ${a.qualified_name}`)];
}
