import { reason, type ChangeReason } from "../change-reason.js";
import { canonicalSignature } from "../signature.js";
import type { ParamInfo, SignatureInfo } from "../types.js";

/** Decorators that change how an object is called or what kind of object it is. */
const KIND_DECORATORS = /^@(staticmethod|classmethod|property|functools\.cached_property|cached_property|abc\.abstractmethod|abstractmethod)\b/;

/**
 * Why a public Python object's signature change breaks callers or not, with
 * griffe's breakage kinds (`PARAMETER_MOVED`, `PARAMETER_REMOVED`, ...)
 * and its rules for parameters swallowed by `*args` / `**kwargs`. Changed
 * annotations are `breaking`, marked conservative: syntax cannot compare
 * types. Pure.
 */
export function pythonReasons(b: SignatureInfo, a: SignatureInfo): ChangeReason[] {
  if (b.kind !== a.kind && !(isCallable(b) && isCallable(a))) return [reason("OBJECT_CHANGED_KIND", "breaking", `${b.kind} became ${a.kind}`)];
  const out: ChangeReason[] = [];
  if (b.overloads.length > 0 || a.overloads.length > 0) {
    const list = (s: SignatureInfo): string[] => (s.overloads.length > 0 ? s.overloads : [s]).map((o) => canonicalSignature(o, false));
    const after = new Set(list(a));
    const removed = list(b).filter((o) => !after.has(o));
    if (removed.length > 0) out.push(reason("OVERLOAD_REMOVED", "breaking", `${removed.length} variant(s) (overloads, property accessors) removed or changed`));
    else out.push(reason("OVERLOAD_ADDED", "compatible", "a variant (overload, property accessor) was added"));
    return out;
  }
  decoratorReasons(b, a, out);
  const typeParams = (s: SignatureInfo): string => s.type_params.map((t) => `${t.name}${t.constraint === null ? "" : `: ${t.constraint}`}`).join(", ");
  if (typeParams(b) !== typeParams(a)) {
    out.push(reason("TYPE_PARAMETERS_CHANGED", "breaking", `type parameters changed from [${typeParams(b)}] to [${typeParams(a)}]: syntax cannot compare types`, true));
  }
  if (b.params !== null && a.params !== null) paramReasons(b.params, a.params, out);
  if (b.returns !== a.returns) {
    if (a.returns === null) out.push(reason("RETURN_CHANGED_TYPE", "breaking", "return annotation removed"));
    else if (b.returns === null) out.push(reason("RETURN_ANNOTATION_ADDED", "compatible", `return annotation ${a.returns} added`));
    else out.push(reason("RETURN_CHANGED_TYPE", "breaking", `return annotation changed from ${b.returns} to ${a.returns}: syntax cannot compare types`, true));
  }
  const removedBases = b.heritage.filter((h) => !a.heritage.includes(h));
  if (removedBases.length > 0) out.push(reason("CLASS_REMOVED_BASE", "breaking", `base class ${removedBases.join(", ")} removed`));
  else if (a.heritage.length > b.heritage.length) out.push(reason("CLASS_ADDED_BASE", "compatible", "base class added"));
  if (b.value !== a.value) out.push(reason("ATTRIBUTE_CHANGED_VALUE", "breaking", `value changed from ${b.value ?? "(unset)"} to ${a.value ?? "(unset)"}`));
  if (b.type !== a.type) {
    const code = a.kind === "type" ? "TYPE_ALIAS_CHANGED" : "ATTRIBUTE_CHANGED_TYPE";
    out.push(reason(code, "breaking", `annotation changed from ${b.type ?? "(none)"} to ${a.type ?? "(none)"}: syntax cannot compare types`, true));
  }
  return out;
}

function isCallable(s: SignatureInfo): boolean {
  return s.kind === "function" || s.kind === "method";
}

function decoratorReasons(b: SignatureInfo, a: SignatureInfo, out: ChangeReason[]): void {
  const decorators = (s: SignatureInfo): string[] => s.modifiers.filter((m) => m.startsWith("decorator:")).map((m) => m.slice("decorator:".length));
  const db = decorators(b);
  const da = decorators(a);
  const kindChange = [...db.filter((d) => !da.includes(d)), ...da.filter((d) => !db.includes(d))].filter((d) => KIND_DECORATORS.test(d));
  if (kindChange.length > 0) out.push(reason("OBJECT_CHANGED_KIND", "breaking", `decorator ${kindChange.join(", ")} added or removed: it changes how the object is called`));
  else if (db.join("\n") !== da.join("\n")) out.push(reason("DECORATOR_CHANGED", "compatible", "decorators changed (griffe does not check them)"));
  if (b.modifiers.includes("async") !== a.modifiers.includes("async"))
    out.push(reason("RETURN_CHANGED_TYPE", "breaking", a.modifiers.includes("async") ? "became async: it returns a coroutine" : "no longer async"));
}

const POSITIONAL = new Set<ParamInfo["kind"]>(["positional_only", "positional_or_keyword"]);

/** griffe's parameter checks (`_internal/diff.py`). */
function paramReasons(bp: readonly ParamInfo[], ap: readonly ParamInfo[], out: ChangeReason[]): void {
  const newByName = new Map(ap.map((p) => [p.name, p]));
  const oldNames = new Set(bp.map((p) => p.name));
  const hasArgs = ap.some((p) => p.kind === "rest");
  const hasKwargs = ap.some((p) => p.kind === "var_keyword");
  const oldPositional = bp.filter((p) => POSITIONAL.has(p.kind)).map((p) => p.name);
  const newPositional = ap.filter((p) => POSITIONAL.has(p.kind)).map((p) => p.name);
  for (const old of bp) {
    const now = newByName.get(old.name);
    if (now === undefined) {
      const swallowed =
        (old.kind === "keyword_only" && hasKwargs) ||
        (old.kind === "positional_only" && hasArgs) ||
        (old.kind === "positional_or_keyword" && hasArgs && hasKwargs) ||
        old.kind === "rest" ||
        old.kind === "var_keyword";
      if (old.kind === "rest" || old.kind === "var_keyword") out.push(reason("PARAMETER_REMOVED", "breaking", `variadic parameter ${old.name} was removed`));
      else if (!swallowed) out.push(reason("PARAMETER_REMOVED", "breaking", `parameter ${old.name} was removed`));
      else out.push(reason("PARAMETER_REMOVED_SWALLOWED", "compatible", `parameter ${old.name} was removed, but *args / **kwargs still accept it`));
      continue;
    }
    if (old.kind !== now.kind && !compatibleKindChange(old.kind, now.kind)) {
      out.push(reason("PARAMETER_CHANGED_KIND", "breaking", `parameter ${old.name} changed kind from ${old.kind} to ${now.kind}`));
    } else if (POSITIONAL.has(old.kind) && POSITIONAL.has(now.kind) && oldPositional.indexOf(old.name) !== newPositional.indexOf(now.name)) {
      out.push(reason("PARAMETER_MOVED", "breaking", `positional parameter ${old.name} was moved`));
    }
    if (old.optional && now.optional && old.default !== now.default && old.kind !== "rest" && old.kind !== "var_keyword") {
      out.push(reason("PARAMETER_CHANGED_DEFAULT", "breaking", `parameter ${old.name}'s default changed from ${old.default ?? ""} to ${now.default ?? ""}`));
    }
    if (old.optional && !now.optional) out.push(reason("PARAMETER_CHANGED_REQUIRED", "breaking", `parameter ${old.name} is now required`));
    if (!old.optional && now.optional && now.kind !== "rest" && now.kind !== "var_keyword") out.push(reason("PARAMETER_CHANGED_OPTIONAL", "compatible", `parameter ${old.name} is now optional`));
    if (old.type !== now.type) {
      out.push(reason("PARAMETER_CHANGED_TYPE", "breaking", `parameter ${old.name}'s annotation changed from ${old.type ?? "(none)"} to ${now.type ?? "(none)"}: syntax cannot compare types`, true));
    }
  }
  for (const now of ap) {
    if (oldNames.has(now.name)) continue;
    if (now.optional || now.kind === "rest" || now.kind === "var_keyword") out.push(reason("PARAMETER_ADDED_OPTIONAL", "compatible", `optional parameter ${now.name} was added`));
    else out.push(reason("PARAMETER_ADDED_REQUIRED", "breaking", `parameter ${now.name} was added as required`));
  }
}

/** Kind changes that keep every existing call working (griffe flags the others). */
function compatibleKindChange(from: ParamInfo["kind"], to: ParamInfo["kind"]): boolean {
  return (from === "positional_only" || from === "keyword_only") && to === "positional_or_keyword";
}
