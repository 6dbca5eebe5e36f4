import { reason, type ChangeReason } from "../change-reason.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

/**
 * Why a change to a public Rust item breaks dependent crates or not, after cargo-semver-checks' lints as far as
 * syntax tells them: parameters (by position: Rust has no named arguments), the return type, the receiver, generic
 * parameters and their bounds, `unsafe`, `async` and `const`, a trait's supertraits and its methods' defaults, an
 * enum's `#[non_exhaustive]`, a type's, field's or constant's type. Types are compared as written (conservative).
 * Pure.
 */
export function rustReasons(b: SignatureInfo, a: SignatureInfo): ChangeReason[] {
  if (b.kind !== a.kind) return [reason("KIND_CHANGED", "breaking", `${b.kind} became ${a.kind}`)];
  const out: ChangeReason[] = [];
  genericReasons(b.type_params, a.type_params, out);
  if (b.params !== null && a.params !== null) paramReasons(b.params, a.params, out);
  if (b.returns !== a.returns) out.push(reason("RETURN_TYPE_CHANGED", "breaking", `returns ${a.returns ?? "()"} instead of ${b.returns ?? "()"}`, true));
  const mod = (s: SignatureInfo, prefix: string): string | undefined => s.modifiers.find((m) => m.startsWith(prefix));
  const [bSelf, aSelf] = [mod(b, "self:"), mod(a, "self:")];
  if (bSelf !== aSelf) {
    const loosened = bSelf === "self:&mutself" && aSelf === "self:&self";
    out.push(
      reason(
        loosened ? "RECEIVER_LOOSENED" : "RECEIVER_CHANGED",
        loosened ? "compatible" : "breaking",
        `the receiver went from ${bSelf?.slice(5) ?? "none (an associated function)"} to ${aSelf?.slice(5) ?? "none (an associated function)"}`,
      ),
    );
  }
  const has = (s: SignatureInfo, m: string): boolean => s.modifiers.includes(m);
  const flag = (m: string, added: [string, "breaking" | "compatible"], removed: [string, "breaking" | "compatible"]): void => {
    if (!has(b, m) && has(a, m)) out.push(reason(added[0], added[1], `now ${m}`));
    else if (has(b, m) && !has(a, m)) out.push(reason(removed[0], removed[1], `no longer ${m}`));
  };
  flag("unsafe", ["UNSAFE_ADDED", "breaking"], ["UNSAFE_REMOVED", "compatible"]);
  flag("async", ["ASYNC_CHANGED", "breaking"], ["ASYNC_CHANGED", "breaking"]);
  flag("const", ["CONST_FN_ADDED", "compatible"], ["CONST_FN_REMOVED", "breaking"]);
  flag("default", ["TRAIT_METHOD_DEFAULT_ADDED", "compatible"], ["TRAIT_METHOD_DEFAULT_REMOVED", "breaking"]);
  flag("non_exhaustive", ["NON_EXHAUSTIVE_ADDED", "breaking"], ["NON_EXHAUSTIVE_REMOVED", "compatible"]);
  flag("mut", ["STATIC_BECAME_MUT", "breaking"], ["STATIC_NO_LONGER_MUT", "breaking"]);
  if (b.heritage.join(",") !== a.heritage.join(","))
    out.push(reason("SUPERTRAITS_CHANGED", "breaking", `bounds went from ${b.heritage.join(", ") || "none"} to ${a.heritage.join(", ") || "none"}`, true));
  if (b.type !== a.type) {
    const code = b.kind === "property" ? "FIELD_TYPE_CHANGED" : b.kind === "enum_member" ? "VARIANT_FIELDS_CHANGED" : b.kind === "class" ? "TUPLE_FIELDS_CHANGED" : "TYPE_CHANGED";
    out.push(reason(code, "breaking", `type went from ${b.type ?? "none"} to ${a.type ?? "none"}`, true));
  }
  if (b.value !== a.value)
    out.push(
      reason(
        b.kind === "enum_member" ? "DISCRIMINANT_CHANGED" : "CONST_VALUE_CHANGED",
        b.kind === "enum_member" ? "breaking" : "compatible",
        `value went from ${b.value ?? "none"} to ${a.value ?? "none"}`,
      ),
    );
  return out;
}

/**
 * What adding a public Rust item means: breaking where implementers or exhaustive matches must change (a trait's
 * method without a default or an associated type, a variant of an enum that is not `#[non_exhaustive]`), else
 * compatible.
 */
export function rustAddedReasons(name: string, kind: SymbolKind, parentKind: SymbolKind | undefined, parent: SignatureInfo | undefined, detail: SignatureInfo, qualifiedName: string): ChangeReason[] {
  if (parentKind === "interface" && kind === "method" && parent !== undefined)
    return detail.modifiers.includes("default")
      ? [reason("TRAIT_METHOD_ADDED_WITH_DEFAULT", "compatible", `method ${name} added with a default body`)]
      : [reason("TRAIT_METHOD_ADDED", "breaking", `method ${name} added without a default: every implementer must now write it`)];
  if (parentKind === "interface" && kind === "type" && parent !== undefined)
    return detail.modifiers.includes("default")
      ? [reason("TRAIT_ASSOCIATED_TYPE_ADDED_WITH_DEFAULT", "compatible", `associated type ${name} added with a default`)]
      : [reason("TRAIT_ASSOCIATED_TYPE_ADDED", "breaking", `associated type ${name} added: every implementer must now name it`)];
  if (parentKind === "enum" && kind === "enum_member")
    return parent?.modifiers.includes("non_exhaustive") === true
      ? [reason("VARIANT_ADDED", "compatible", `variant ${name} added to a #[non_exhaustive] enum`)]
      : [reason("VARIANT_ADDED", "breaking", `variant ${name} added: an exhaustive match on the enum no longer compiles`)];
  return [reason(parentKind === undefined ? "EXPORT_ADDED" : kind === "method" ? "METHOD_ADDED" : "MEMBER_ADDED", "compatible", `new ${kind} ${qualifiedName}`)];
}

function genericReasons(b: readonly TypeParamInfo[], a: readonly TypeParamInfo[], out: ChangeReason[]): void {
  const key = (t: TypeParamInfo): string => `${t.name}:${t.constraint ?? ""}=${t.default ?? ""}`;
  if (b.map(key).join(",") === a.map(key).join(",")) return;
  const before = new Map(b.map((t) => [t.name, t]));
  for (const t of a) {
    const was = before.get(t.name);
    if (was === undefined)
      out.push(
        reason(
          t.default === null ? "GENERIC_PARAM_ADDED" : "GENERIC_PARAM_ADDED_WITH_DEFAULT",
          t.default === null ? "breaking" : "compatible",
          `${t.name === "where" ? "a where clause" : `type parameter ${t.name}`} added`,
        ),
      );
    else if ((was.constraint ?? "") !== (t.constraint ?? ""))
      out.push(
        reason("GENERIC_BOUND_CHANGED", "breaking", `${t.name === "where" ? "the where clause" : `the bounds of ${t.name}`} went from ${was.constraint ?? "none"} to ${t.constraint ?? "none"}`, true),
      );
  }
  const after = new Set(a.map((t) => t.name));
  for (const t of b) if (!after.has(t.name)) out.push(reason("GENERIC_PARAM_REMOVED", "breaking", `${t.name === "where" ? "the where clause" : `type parameter ${t.name}`} removed`));
}

function paramReasons(b: readonly ParamInfo[], a: readonly ParamInfo[], out: ChangeReason[]): void {
  const types = (ps: readonly ParamInfo[]): string => ps.map((p) => p.type ?? "").join(", ");
  if (types(b) === types(a)) {
    if (b.map((p) => p.name).join(",") !== a.map((p) => p.name).join(",")) out.push(reason("PARAMETER_RENAMED", "compatible", "parameters renamed: Rust calls by position"));
    return;
  }
  if (a.length > b.length && types(a.slice(0, b.length)) === types(b))
    out.push(
      reason(
        "PARAMETER_ADDED",
        "breaking",
        `parameter${a.length - b.length > 1 ? "s" : ""} ${a
          .slice(b.length)
          .map((p) => p.name)
          .join(", ")} added: every call must pass ${a.length - b.length > 1 ? "them" : "it"}`,
      ),
    );
  else if (a.length < b.length) out.push(reason("PARAMETER_REMOVED", "breaking", `parameters went from (${types(b)}) to (${types(a)})`));
  else out.push(reason("PARAMETER_TYPE_CHANGED", "breaking", `parameters went from (${types(b)}) to (${types(a)})`, true));
}
