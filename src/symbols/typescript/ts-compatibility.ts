import { reason, type ChangeReason } from "../change-reason.js";
import { canonicalSignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind } from "../types.js";

const CONSERVATIVE = true;

/**
 * Why a public TypeScript symbol's signature change breaks callers or not,
 * following the TypeScript rules of `docs/compatibility.md`.
 * Where only a type's text changed, syntax cannot tell widening from
 * narrowing: the verdict is `breaking`, marked conservative. Pure.
 */
export function typescriptReasons(b: SignatureInfo, a: SignatureInfo, parentKind: SymbolKind | undefined): ChangeReason[] {
  const out: ChangeReason[] = [];
  if (b.kind !== a.kind) {
    if (b.kind === "interface" && a.kind === "type") return [reason("INTERFACE_TO_TYPE", "breaking", "interface became a type alias: declaration merging is lost")];
    return [reason("OBJECT_CHANGED_KIND", "breaking", `${b.kind} became ${a.kind}`)];
  }
  modifierReasons(b, a, parentKind, out);
  if (b.overloads.length > 0 || a.overloads.length > 0) {
    overloadReasons(b, a, out);
  } else if (b.params !== null && a.params !== null) {
    paramReasons(b.params, a.params, out);
    returnReasons(b.returns, a.returns, out);
  } else if ((b.params === null) !== (a.params === null)) {
    out.push(reason("OBJECT_CHANGED_KIND", "breaking", a.params === null ? "no longer callable" : "became callable"));
  }
  typeParamReasons(b, a, out);
  heritageReasons(b.heritage, a.heritage, out);
  if (b.type !== a.type) {
    const code = a.kind === "type" ? "TYPE_ALIAS_CHANGED" : a.kind === "property" ? "PROPERTY_CHANGED_TYPE" : a.kind === "reexport" ? "REEXPORT_CHANGED" : "VARIABLE_TYPE_CHANGED";
    out.push(reason(code, "breaking", `type changed from ${b.type ?? "(inferred)"} to ${a.type ?? "(inferred)"}: widening or narrowing cannot be told apart without a type checker`, CONSERVATIVE));
  }
  if (b.value !== a.value) out.push(reason("ENUM_MEMBER_VALUE_CHANGED", "breaking", `value changed from ${b.value ?? "(auto)"} to ${a.value ?? "(auto)"}`));
  return out;
}

function has(s: SignatureInfo, m: string): boolean {
  return s.modifiers.includes(m);
}

function modifierReasons(b: SignatureInfo, a: SignatureInfo, parentKind: SymbolKind | undefined, out: ChangeReason[]): void {
  const flip = (m: string): "added" | "removed" | null => (has(b, m) === has(a, m) ? null : has(a, m) ? "added" : "removed");
  if (flip("arrow") === "added" || (flip("expression") === "added" && !has(b, "arrow"))) {
    out.push(reason("FUNCTION_TO_ARROW", "breaking", "function declaration became a function-valued const (no hoisting, not a constructor)"));
  } else if (flip("arrow") === "removed" || flip("expression") === "removed") {
    out.push(reason("ARROW_TO_FUNCTION", "compatible", "function-valued const became a function declaration"));
  }
  if (flip("static") !== null) out.push(reason("STATIC_CHANGED", "breaking", `member became ${has(a, "static") ? "static" : "an instance member"}`));
  // `export { A } from` <-> `export type { A } from`: a type-only export has no value to call or construct.
  const typeOnly = flip("type");
  if (typeOnly === "added") out.push(reason("EXPORT_BECAME_TYPE_ONLY", "breaking", "now exported as a type only: its value can no longer be used"));
  if (typeOnly === "removed") out.push(reason("EXPORT_BECAME_VALUE", "compatible", "now exported as a value too"));
  const readonly = flip("readonly");
  if (readonly === "added") out.push(reason("PROPERTY_BECAME_READONLY", "breaking", "property became readonly"));
  if (readonly === "removed") out.push(reason("PROPERTY_BECAME_MUTABLE", "compatible", "property is no longer readonly"));
  const optional = flip("optional");
  if (optional === "removed") out.push(reason(a.params === null ? "PROPERTY_BECAME_REQUIRED" : "METHOD_BECAME_REQUIRED", "breaking", "became required"));
  if (optional === "added") {
    // Writers may now omit it (fine); readers of a mutable property must now handle undefined.
    const breaksReaders = !has(a, "readonly") && parentKind !== undefined;
    out.push(reason(a.params === null ? "PROPERTY_BECAME_OPTIONAL" : "METHOD_BECAME_OPTIONAL", breaksReaders ? "breaking" : "compatible", "became optional"));
  }
  const narrowed = ["private", "protected"].some((m) => flip(m) === "added") || (has(b, "private") === false && has(b, "protected") && has(a, "private"));
  if (narrowed) out.push(reason("VISIBILITY_NARROWED", "breaking", "visibility narrowed"));
  else if (["private", "protected"].some((m) => flip(m) === "removed")) out.push(reason("VISIBILITY_WIDENED", "compatible", "visibility widened"));
  if (flip("abstract") === "added") out.push(reason("BECAME_ABSTRACT", "breaking", "became abstract"));
  if (flip("abstract") === "removed") out.push(reason("NO_LONGER_ABSTRACT", "compatible", "no longer abstract"));
  if (flip("async") !== null) out.push(reason("RETURN_CHANGED_TYPE", "breaking", `${has(a, "async") ? "became async: it returns a Promise" : "no longer async"}`));
  if (flip("generator") !== null) out.push(reason("RETURN_CHANGED_TYPE", "breaking", "generator-ness changed"));
  if (flip("default") !== null) out.push(reason("EXPORT_CHANGED_DEFAULT", "breaking", has(a, "default") ? "became the default export" : "no longer the default export"));
  if (flip("deprecated") === "added") out.push(reason("DEPRECATED_ADDED", "compatible", "marked @deprecated"));
  if (flip("deprecated") === "removed") out.push(reason("DEPRECATED_REMOVED", "compatible", "no longer @deprecated"));
  if (flip("get") !== null || flip("set") !== null) out.push(reason("ACCESSOR_CHANGED", "breaking", "getter/setter changed"));
  const decorators = (s: SignatureInfo): string => s.modifiers.filter((m) => m.startsWith("decorator:")).join("\n");
  if (decorators(b) !== decorators(a)) out.push(reason("DECORATOR_CHANGED", "compatible", "decorators changed (not checked further)"));
  if ((has(b, "const") && has(a, "let")) || (has(b, "let") && has(a, "const"))) out.push(reason("BINDING_CHANGED", "compatible", "const/let changed (exports are read-only bindings outside)"));
}

/**
 * Parameters are matched by name first, then by position: an insertion, a removal or a reorder is reported as what it
 * is, not as the type and name changes of every parameter after it. A parameter present on one side only, at a
 * position where the other side also has one present only there, was renamed (positional: callers do not see names).
 * With no name in common, positions are all there is to go by.
 */
function paramReasons(bp: readonly ParamInfo[], ap: readonly ParamInfo[], out: ChangeReason[]): void {
  const positionOf = (list: readonly ParamInfo[]): Map<string, number> => {
    const m = new Map<string, number>();
    list.forEach((p, i) => {
      if (!m.has(p.name)) m.set(p.name, i);
    });
    return m;
  };
  const bAt = positionOf(bp);
  const aAt = positionOf(ap);
  // A name kept on both sides (its first place on each, should a signature repeat one).
  const kept = (p: ParamInfo, i: number, own: Map<string, number>, other: Map<string, number>): boolean => own.get(p.name) === i && other.has(p.name);
  const keptB = bp.map((p, i) => kept(p, i, bAt, aAt));
  const keptA = ap.map((p, i) => kept(p, i, aAt, bAt));
  if (!keptB.includes(true)) {
    for (let i = 0; i < Math.max(bp.length, ap.length); i++) pairReasons(bp[i], ap[i], out);
    return;
  }
  const renamed = (i: number): boolean => i < bp.length && i < ap.length && keptB[i] === false && keptA[i] === false;
  // What moves arguments (a reorder, an insertion, a removal before kept ones) leads; each parameter's own changes follow.
  const moves: ChangeReason[] = [];
  const each: ChangeReason[] = [];
  const orderBefore = bp.filter((_, i) => keptB[i]).map((p) => p.name);
  const orderAfter = ap.filter((_, i) => keptA[i]).map((p) => p.name);
  if (orderBefore.join("\0") !== orderAfter.join("\0")) {
    moves.push(reason("PARAMETER_REORDERED", "breaking", `parameters reordered from (${orderBefore.join(", ")}) to (${orderAfter.join(", ")}): existing calls pass them in the old order`));
  }
  for (let i = 0; i < bp.length; i++) {
    const pb = bp[i] as ParamInfo;
    if (keptB[i] === true) pairReasons(pb, ap[aAt.get(pb.name) as number], each);
    else if (renamed(i)) pairReasons(pb, ap[i], each);
    else {
      const moved = bp.slice(i + 1).filter((_, j) => keptB[i + 1 + j]);
      moves.push(
        reason(
          "PARAMETER_REMOVED",
          "breaking",
          `parameter ${pb.name} removed${moved.length === 0 ? "" : `: ${moved.map((p) => p.name).join(", ")} move${moved.length === 1 ? "s" : ""} up a place in existing calls`}`,
        ),
      );
    }
  }
  const lastPaired = Math.max(-1, ...ap.map((_, i) => (keptA[i] === true || renamed(i) ? i : -1)));
  for (let i = 0; i < ap.length; i++) {
    const pa = ap[i] as ParamInfo;
    if (keptA[i] === true || renamed(i)) continue;
    if (i > lastPaired) pairReasons(undefined, pa, each);
    else {
      const next = ap.slice(i + 1).find((_, j) => keptA[i + 1 + j] === true || renamed(i + 1 + j));
      moves.push(
        reason(
          "PARAMETER_INSERTED",
          "breaking",
          `${pa.optional || pa.kind === "rest" ? "optional" : "required"} parameter ${pa.name} inserted at position ${i + 1}${next === undefined ? "" : `, before ${next.name}`}: existing calls now pass their arguments one place off`,
        ),
      );
    }
  }
  out.push(...moves, ...each);
}

/** One parameter before and after (either missing: added at the end, or removed there). */
function pairReasons(pb: ParamInfo | undefined, pa: ParamInfo | undefined, out: ChangeReason[]): void {
  if (pb === undefined && pa !== undefined) {
    out.push(
      pa.optional || pa.kind === "rest"
        ? reason("PARAMETER_ADDED_OPTIONAL", "compatible", `optional parameter ${pa.name} added`)
        : reason("PARAMETER_ADDED_REQUIRED", "breaking", `required parameter ${pa.name} added`),
    );
    return;
  }
  if (pa === undefined && pb !== undefined) {
    out.push(reason("PARAMETER_REMOVED", "breaking", `parameter ${pb.name} removed`));
    return;
  }
  if (pb === undefined || pa === undefined) return;
  if ((pb.kind === "rest") !== (pa.kind === "rest")) out.push(reason("PARAMETER_CHANGED_KIND", "breaking", `parameter ${pa.name} ${pa.kind === "rest" ? "became" : "is no longer"} a rest parameter`));
  if (pb.optional && !pa.optional) out.push(reason("PARAMETER_CHANGED_REQUIRED", "breaking", `parameter ${pa.name} became required`));
  if (!pb.optional && pa.optional) out.push(reason("PARAMETER_CHANGED_OPTIONAL", "compatible", `parameter ${pa.name} became optional`));
  if (pb.type !== pa.type) {
    out.push(
      reason(
        "PARAMETER_CHANGED_TYPE",
        "breaking",
        `parameter ${pa.name}'s type changed from ${pb.type ?? "(any)"} to ${pa.type ?? "(any)"}: a widening would be compatible, syntax cannot tell`,
        CONSERVATIVE,
      ),
    );
  }
  if (pb.default !== pa.default && pb.optional && pa.optional) out.push(reason("PARAMETER_CHANGED_DEFAULT", "compatible", `parameter ${pa.name}'s default changed`));
  if (pb.name !== pa.name) out.push(reason("PARAMETER_RENAMED", "compatible", `parameter ${pb.name} renamed to ${pa.name} (positional: callers are unaffected)`));
}

function returnReasons(b: string | null, a: string | null, out: ChangeReason[]): void {
  if (b === a) return;
  if (b === null) {
    out.push(reason("RETURN_ANNOTATION_ADDED", "compatible", `return type now declared as ${a ?? ""}`));
    return;
  }
  out.push(reason("RETURN_CHANGED_TYPE", "breaking", `return type changed from ${b} to ${a ?? "(inferred)"}: a narrowing would be compatible, syntax cannot tell`, CONSERVATIVE));
}

function overloadReasons(b: SignatureInfo, a: SignatureInfo, out: ChangeReason[]): void {
  const list = (s: SignatureInfo): string[] => (s.overloads.length > 0 ? s.overloads : [s]).map((o) => canonicalSignature(o, false));
  const before = list(b);
  const after = new Set(list(a));
  const removed = before.filter((o) => !after.has(o));
  const added = [...after].filter((o) => !before.includes(o));
  if (removed.length > 0) out.push(reason("OVERLOAD_REMOVED", "breaking", `${removed.length} overload signature(s) removed or changed`));
  if (removed.length === 0 && added.length > 0) out.push(reason("OVERLOAD_ADDED", "compatible", `${added.length} overload signature(s) added`));
}

function typeParamReasons(b: SignatureInfo, a: SignatureInfo, out: ChangeReason[]): void {
  const n = Math.max(b.type_params.length, a.type_params.length);
  for (let i = 0; i < n; i++) {
    const tb = b.type_params[i];
    const ta = a.type_params[i];
    if (tb === undefined && ta !== undefined) {
      out.push(
        ta.default === null
          ? reason("GENERIC_PARAM_ADDED_REQUIRED", "breaking", `type parameter ${ta.name} added without a default`)
          : reason("GENERIC_PARAM_ADDED_WITH_DEFAULT", "compatible", `type parameter ${ta.name} added with a default`),
      );
    } else if (ta === undefined && tb !== undefined) {
      out.push(reason("GENERIC_PARAM_REMOVED", "breaking", `type parameter ${tb.name} removed`));
    } else if (tb !== undefined && ta !== undefined && (tb.constraint !== ta.constraint || tb.default !== ta.default)) {
      out.push(reason("GENERIC_CONSTRAINT_CHANGED", "breaking", `type parameter ${ta.name}'s constraint or default changed`, CONSERVATIVE));
    }
  }
}

function heritageReasons(b: readonly string[], a: readonly string[], out: ChangeReason[]): void {
  const removed = b.filter((h) => !a.includes(h));
  const added = a.filter((h) => !b.includes(h));
  if (removed.length > 0) out.push(reason("HERITAGE_REMOVED", "breaking", `no longer ${removed.join(", ")}`, added.length > 0));
  else if (added.length > 0) out.push(reason("HERITAGE_ADDED", "compatible", `now ${added.join(", ")}`));
}
