import { reason, type ChangeReason } from "../change-reason.js";
import type { ParamInfo, SignatureInfo, SymbolKind } from "../types.js";

/**
 * Why a change to an exported Go declaration breaks the code of other packages or not, after the rules of
 * `golang.org/x/exp/apidiff` as far as syntax can tell them: a function's or method's parameters and results are its
 * type (any change to their types or number breaks a caller or a function value; a name alone does not); a method
 * whose receiver becomes a pointer leaves the value type's method set; a type's underlying type, a field's type, a
 * variable's type and a constant's value changing break; an interface that embeds more now asks more of its
 * implementers. Types are compared as written: a change between two spellings of one type reads as a change
 * (conservative). Pure.
 */
export function goReasons(b: SignatureInfo, a: SignatureInfo, parentKind: SymbolKind | undefined): ChangeReason[] {
  if (b.kind !== a.kind) return [reason("KIND_CHANGED", "breaking", `${b.kind} became ${a.kind}`)];
  const out: ChangeReason[] = [];
  const typeParams = (s: SignatureInfo): string => s.type_params.map((t) => `${t.name} ${t.constraint ?? ""}`.trim()).join(", ");
  if (typeParams(b) !== typeParams(a)) out.push(reason("TYPE_PARAMETERS_CHANGED", "breaking", `type parameters changed from [${typeParams(b)}] to [${typeParams(a)}]`, true));
  if (b.params !== null && a.params !== null) paramReasons(b.params, a.params, out);
  if (b.returns !== a.returns) {
    const was = b.returns ?? "nothing";
    const now = a.returns ?? "nothing";
    out.push(reason("RESULT_CHANGED", "breaking", `results changed from ${was} to ${now}`));
  }
  const pointer = (s: SignatureInfo): boolean => s.modifiers.includes("pointer_receiver");
  if (!pointer(b) && pointer(a))
    out.push(reason("RECEIVER_BECAME_POINTER", "breaking", "the receiver became a pointer: the method left the value type's method set (a value no longer satisfies interfaces that need it)"));
  else if (pointer(b) && !pointer(a)) out.push(reason("RECEIVER_BECAME_VALUE", "compatible", "the receiver became a value: the method is in both method sets now"));
  if (b.kind === "interface") {
    const added = a.heritage.filter((h) => !b.heritage.includes(h));
    const removed = b.heritage.filter((h) => !a.heritage.includes(h));
    if (added.length > 0) out.push(reason("INTERFACE_EMBED_ADDED", "breaking", `now embeds ${added.join(", ")}: implementers must provide its methods`));
    if (removed.length > 0) out.push(reason("INTERFACE_EMBED_REMOVED", "breaking", `no longer embeds ${removed.join(", ")}: callers of its methods through this interface break`));
  }
  if (b.type !== a.type) {
    const what = b.kind === "property" ? (b.modifiers.includes("embedded") ? "EMBEDDED_TYPE_CHANGED" : "FIELD_TYPE_CHANGED") : b.kind === "variable" ? "VARIABLE_TYPE_CHANGED" : "TYPE_CHANGED";
    out.push(reason(what, "breaking", `type changed from ${b.type ?? "(inferred)"} to ${a.type ?? "(inferred)"}`, true));
  }
  if (b.modifiers.includes("alias") !== a.modifiers.includes("alias"))
    out.push(reason("ALIAS_CHANGED", "breaking", a.modifiers.includes("alias") ? "became an alias" : "is no longer an alias: a new defined type"));
  if (b.modifiers.includes("const") !== a.modifiers.includes("const")) out.push(reason("CONST_CHANGED", "breaking", a.modifiers.includes("const") ? "became a constant" : "is no longer a constant"));
  else if (b.value !== a.value) out.push(reason("CONST_VALUE_CHANGED", "breaking", `value changed from ${b.value ?? "(unset)"} to ${a.value ?? "(unset)"}`));
  void parentKind;
  return out;
}

/** What adding an exported Go declaration means: compatible, except a method of an interface, which implementers must now provide. */
export function goAddedReasons(name: string, kind: SymbolKind, parentKind: SymbolKind | undefined, qualifiedName: string): ChangeReason[] {
  if (parentKind === "interface" && kind === "method") return [reason("INTERFACE_METHOD_ADDED", "breaking", `method ${name} added to the interface: every implementer must now provide it`)];
  if (parentKind === "class" && kind === "property") return [reason("FIELD_ADDED", "compatible", `field ${name} added (a composite literal without field names no longer compiles)`)];
  return [reason(parentKind === undefined ? "EXPORT_ADDED" : kind === "method" ? "METHOD_ADDED" : "MEMBER_ADDED", "compatible", `new ${kind} ${qualifiedName}`)];
}

function paramReasons(b: readonly ParamInfo[], a: readonly ParamInfo[], out: ChangeReason[]): void {
  const types = (ps: readonly ParamInfo[]): string => ps.map((p) => `${p.kind === "rest" ? "..." : ""}${p.type ?? ""}`).join(", ");
  if (types(b) === types(a)) {
    if (b.map((p) => p.name).join(",") !== a.map((p) => p.name).join(",")) out.push(reason("PARAMETER_RENAMED", "compatible", "parameters renamed: Go calls by position"));
    return;
  }
  if (a.length > b.length && types(a.slice(0, b.length)) === types(b)) {
    const added = a.slice(b.length);
    const variadicOnly = added.length === 1 && added[0]?.kind === "rest";
    out.push(
      reason(
        variadicOnly ? "VARIADIC_PARAMETER_ADDED" : "PARAMETER_ADDED",
        "breaking",
        variadicOnly
          ? `variadic parameter ${added[0]?.name ?? ""} added: calls still compile, a function value of the old type does not`
          : `parameter${added.length > 1 ? "s" : ""} ${added.map((p) => p.name || p.type).join(", ")} added: every call must pass ${added.length > 1 ? "them" : "it"}`,
      ),
    );
    return;
  }
  if (a.length < b.length) {
    out.push(reason("PARAMETER_REMOVED", "breaking", `parameters went from (${types(b)}) to (${types(a)}): calls pass too many`));
    return;
  }
  out.push(reason("PARAMETER_TYPE_CHANGED", "breaking", `parameters went from (${types(b)}) to (${types(a)})`));
}
