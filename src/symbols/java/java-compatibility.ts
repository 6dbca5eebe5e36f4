import { reason, type ChangeReason } from "../change-reason.js";
import { canonicalSignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind } from "../types.js";

/**
 * Why a change to an exported Java declaration breaks code compiled against it or not, after the Java Language
 * Specification's chapter on binary compatibility and japicmp's checks as far as syntax tells them: overloads (a
 * method's variants: one gone breaks its callers, one added does not), parameters and return type, checked
 * exceptions, visibility, `static`, `final`, `abstract` and an interface method's `default`, a type's supertypes, a
 * field's type and a constant's value. Types are compared as written (conservative). Pure.
 */
export function javaReasons(b: SignatureInfo, a: SignatureInfo): ChangeReason[] {
  if (b.kind !== a.kind) return [reason("KIND_CHANGED", "breaking", `${b.kind} became ${a.kind}`)];
  const out: ChangeReason[] = [];
  // (an overload only the class itself or its package can call is nobody else's to lose)
  const variants = (s: SignatureInfo): SignatureInfo[] =>
    (s.overloads.length > 0 ? [...s.overloads] : [s]).filter((v) => s.overloads.length === 0 || v.modifiers.includes("public") || v.modifiers.includes("protected"));
  const [bv, av] = [variants(b), variants(a)];
  // Only overloads nobody else can call changed: what others see is the one left on each side.
  if ((b.overloads.length > 0 || a.overloads.length > 0) && bv.length === 1 && av.length === 1) {
    const [one, other] = [bv[0] as SignatureInfo, av[0] as SignatureInfo];
    if (canonicalSignature({ ...one, overloads: [] }) === canonicalSignature({ ...other, overloads: [] }))
      return [reason("HIDDEN_OVERLOAD_CHANGED", "compatible", "only overloads the class or its package can call changed")];
    return javaReasons({ ...one, overloads: [] }, { ...other, overloads: [] });
  }
  if (bv.length > 1 || av.length > 1) {
    // Overloads matched by their parameter types; each one kept is compared as a method of its own.
    const key = (v: SignatureInfo): string => (v.params ?? []).map((p) => `${p.kind === "rest" ? "..." : ""}${p.type ?? ""}`).join(",");
    const after = new Map(av.map((v) => [key(v), v]));
    const before = new Map(bv.map((v) => [key(v), v]));
    for (const [k, v] of before) {
      const now = after.get(k);
      if (now === undefined) out.push(reason("OVERLOAD_REMOVED", "breaking", `${b.name}(${k}) was removed or changed: its callers break`));
      else if (canonicalSignature(v) !== canonicalSignature(now)) out.push(...javaReasons({ ...v, overloads: [] }, { ...now, overloads: [] }));
    }
    for (const k of after.keys()) if (!before.has(k)) out.push(reason("OVERLOAD_ADDED", "compatible", `${a.name}(${k}) added`));
    return out;
  }
  if (b.params !== null && a.params !== null) paramReasons(b.params, a.params, out);
  if (b.returns !== a.returns) out.push(reason("RETURN_TYPE_CHANGED", "breaking", `returns ${a.returns ?? "void"} instead of ${b.returns ?? "void"}`, true));
  const list = (s: SignatureInfo, prefix: string): string[] => s.modifiers.filter((m) => m.startsWith(prefix)).map((m) => m.slice(prefix.length));
  const [bThrows, aThrows] = [list(b, "throws:"), list(a, "throws:")];
  const addedThrows = aThrows.filter((t) => !bThrows.includes(t));
  const removedThrows = bThrows.filter((t) => !aThrows.includes(t));
  if (addedThrows.length > 0) out.push(reason("EXCEPTION_ADDED", "breaking", `now throws ${addedThrows.join(", ")}: callers must catch or declare it (a checked exception)`, true));
  if (removedThrows.length > 0) out.push(reason("EXCEPTION_REMOVED", "compatible", `no longer throws ${removedThrows.join(", ")}`));
  const has = (s: SignatureInfo, m: string): boolean => s.modifiers.includes(m);
  const visibility = (s: SignatureInfo): number => (has(s, "public") ? 2 : has(s, "protected") ? 1 : 0);
  if (visibility(a) < visibility(b) && visibility(b) === 2 && visibility(a) === 1) out.push(reason("VISIBILITY_NARROWED", "breaking", "public became protected: only subclasses see it now"));
  else if (visibility(a) > visibility(b) && visibility(b) === 1) out.push(reason("VISIBILITY_WIDENED", "compatible", "protected became public"));
  const flag = (m: string, added: [string, "breaking" | "compatible", string], removed: [string, "breaking" | "compatible", string]): void => {
    if (!has(b, m) && has(a, m)) out.push(reason(added[0], added[1], added[2]));
    else if (has(b, m) && !has(a, m)) out.push(reason(removed[0], removed[1], removed[2]));
  };
  flag("static", ["STATIC_CHANGED", "breaking", "became static"], ["STATIC_CHANGED", "breaking", "is no longer static"]);
  flag("final", ["FINAL_ADDED", "breaking", "became final: it can no longer be extended or overridden"], ["FINAL_REMOVED", "compatible", "is no longer final"]);
  flag(
    "abstract",
    ["BECAME_ABSTRACT", "breaking", "became abstract: subclasses must implement it, and it can no longer be instantiated or called as is"],
    ["NO_LONGER_ABSTRACT", "compatible", "is no longer abstract"],
  );
  flag("default", ["DEFAULT_ADDED", "compatible", "now has a default body"], ["DEFAULT_REMOVED", "breaking", "lost its default body: implementers must write it"]);
  const removedTypes = b.heritage.filter((h) => !a.heritage.includes(h));
  if (removedTypes.length > 0) out.push(reason("SUPERTYPE_CHANGED", "breaking", `no longer ${removedTypes.join(", ")}`, true));
  else if (a.heritage.length > b.heritage.length) out.push(reason("SUPERTYPE_ADDED", "compatible", "a supertype added"));
  const typeParams = (s: SignatureInfo): string => s.type_params.map((t) => `${t.name}${t.constraint === null ? "" : ` ${t.constraint}`}`).join(", ");
  if (typeParams(b) !== typeParams(a)) out.push(reason("TYPE_PARAMETERS_CHANGED", "breaking", `type parameters went from <${typeParams(b)}> to <${typeParams(a)}>`, true));
  if (b.type !== a.type) out.push(reason("FIELD_TYPE_CHANGED", "breaking", `type went from ${b.type ?? "?"} to ${a.type ?? "?"}`, true));
  if (b.value !== a.value)
    out.push(reason("CONSTANT_VALUE_CHANGED", "compatible", `value went from ${b.value ?? "none"} to ${a.value ?? "none"} (code compiled against the old one keeps it until it is compiled again)`));
  return out;
}

/** What adding an exported Java declaration means: breaking where implementers or subclasses must now write it. */
export function javaAddedReasons(name: string, kind: SymbolKind, parentKind: SymbolKind | undefined, detail: SignatureInfo, qualifiedName: string): ChangeReason[] {
  if (kind === "method" && detail.modifiers.includes("abstract"))
    return [reason(parentKind === "interface" ? "INTERFACE_METHOD_ADDED" : "ABSTRACT_METHOD_ADDED", "breaking", `abstract method ${name} added: every implementer must now write it`)];
  if (kind === "method" && parentKind === "interface" && detail.modifiers.includes("default")) return [reason("DEFAULT_METHOD_ADDED", "compatible", `default method ${name} added`)];
  if (kind === "enum_member") return [reason("ENUM_CONSTANT_ADDED", "compatible", `constant ${name} added (an exhaustive switch over the enum now misses it)`)];
  return [reason(parentKind === undefined ? "EXPORT_ADDED" : kind === "method" ? "METHOD_ADDED" : "MEMBER_ADDED", "compatible", `new ${kind} ${qualifiedName}`)];
}

function paramReasons(b: readonly ParamInfo[], a: readonly ParamInfo[], out: ChangeReason[]): void {
  const types = (ps: readonly ParamInfo[]): string => ps.map((p) => `${p.kind === "rest" ? "..." : ""}${p.type ?? ""}`).join(", ");
  if (types(b) === types(a)) {
    if (b.map((p) => p.name).join(",") !== a.map((p) => p.name).join(",")) out.push(reason("PARAMETER_RENAMED", "compatible", "parameters renamed: Java calls by position"));
    return;
  }
  if (a.length > b.length) out.push(reason("PARAMETER_ADDED", "breaking", `parameters went from (${types(b)}) to (${types(a)}): calls pass too few`));
  else if (a.length < b.length) out.push(reason("PARAMETER_REMOVED", "breaking", `parameters went from (${types(b)}) to (${types(a)})`));
  else out.push(reason("PARAMETER_TYPE_CHANGED", "breaking", `parameters went from (${types(b)}) to (${types(a)})`, true));
}
