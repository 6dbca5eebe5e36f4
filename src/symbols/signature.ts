import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "./types.js";

/** A signature with nothing but a name and a kind; builders fill in the rest. */
export function emptySignature(name: string, kind: SymbolKind): SignatureInfo {
  return { name, kind, modifiers: [], type_params: [], params: null, returns: null, heritage: [], type: null, value: null, overloads: [] };
}

/**
 * Canonical JSON of a signature (fixed key order, sorted modifiers): the input of `signature_hash`. Exactly
 * `JSON.stringify([one(s), s.overloads.map(one)])` where `one(x)` is the array `[name (or "" without it), kind,
 * sorted modifiers, type parameters as [name, constraint, default], parameters as [name, kind, optional, default,
 * type] or null, returns, heritage, type, value]` (the test holds it to that), written directly: building those
 * arrays for every symbol only to encode them cost twice as much.
 */
export function canonicalSignature(s: SignatureInfo, withName = true): string {
  let out = `[${canonicalOne(s, withName)},[`;
  for (let i = 0; i < s.overloads.length; i++) out += `${i === 0 ? "" : ","}${canonicalOne(s.overloads[i] as SignatureInfo, withName)}`;
  return `${out}]]`;
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, a lone surrogate (a pair is
 * written as it is, but this looks no further than its halves: JSON.stringify then decides).
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A JSON string, or null (as JSON.stringify writes a missing value in an array). A string with nothing to escape,
 * nearly every one, is quoted as it is: JSON.stringify's own cost for each of the ten or so short strings of every
 * signature was a twentieth of the Java extraction's time.
 */
function json(s: string | null | undefined): string {
  if (s === null || s === undefined) return "null";
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function jsonStrings(a: readonly string[]): string {
  let out = "[";
  for (let i = 0; i < a.length; i++) out += `${i === 0 ? "" : ","}${json(a[i])}`;
  return `${out}]`;
}

function canonicalOne(x: SignatureInfo, withName: boolean): string {
  let out = `[${json(withName ? x.name : "")},${json(x.kind)},${jsonStrings(x.modifiers.length < 2 ? x.modifiers : [...x.modifiers].sort())},[`;
  for (let i = 0; i < x.type_params.length; i++) {
    const t = x.type_params[i] as TypeParamInfo;
    // (modifiers only when there are some: the hashes of every other type parameter stay what they were)
    out += `${i === 0 ? "" : ","}[${json(t.name)},${json(t.constraint)},${json(t.default)}${t.modifiers === undefined ? "" : `,${jsonStrings(t.modifiers)}`}]`;
  }
  out += "],";
  if (x.params === null) out += "null";
  else {
    out += "[";
    for (let i = 0; i < x.params.length; i++) {
      const p = x.params[i] as ParamInfo;
      out += `${i === 0 ? "" : ","}[${json(p.name)},${json(p.kind)},${p.optional ? "true" : "false"},${json(p.default)},${json(p.type)}]`;
    }
    out += "]";
  }
  return `${out},${json(x.returns)},${jsonStrings(x.heritage)},${json(x.type)},${json(x.value)}]`;
}

/**
 * The signature as a person reads it: `async f<T>(a: number, b?: string = 1): T`. Built with plain loops: with
 * `map`, `filter`, spreads and `join` over arrays of every shape (empty or not, one element kind or another), its
 * optimised code was thrown away and compiled again six times over the TypeScript corpus (`node --trace-deopt`).
 */
export function renderSignature(s: SignatureInfo): string {
  if (s.overloads.length > 0) {
    let out = "";
    for (let i = 0; i < s.overloads.length; i++) out += `${i === 0 ? "" : "\n"}${renderSignature(s.overloads[i] as SignatureInfo)}`;
    return out;
  }
  let mods = "";
  let head = "";
  for (let i = 0; i < s.modifiers.length; i++) {
    const m = s.modifiers[i] as string;
    if (m.startsWith("decorator:")) head += `${m.slice("decorator:".length)}\n`;
    else mods += mods === "" ? m : ` ${m}`;
  }
  head += `${mods === "" ? "" : `${mods} `}${s.kind} ${s.name}`;
  if (s.type_params.length > 0) {
    head += "<";
    for (let i = 0; i < s.type_params.length; i++) {
      const t = s.type_params[i] as TypeParamInfo;
      head += `${i === 0 ? "" : ", "}${t.modifiers === undefined ? "" : `${t.modifiers.join(" ")} `}${t.name}${t.constraint === null ? "" : ` extends ${t.constraint}`}${t.default === null ? "" : ` = ${t.default}`}`;
    }
    head += ">";
  }
  if (s.params !== null) {
    head += "(";
    for (let i = 0; i < s.params.length; i++) {
      const p = s.params[i] as ParamInfo;
      const spread = p.kind === "rest" ? "..." : p.kind === "var_keyword" ? "**" : "";
      const optional = p.optional && p.default === null && p.kind !== "rest" && p.kind !== "var_keyword" ? "?" : "";
      head += `${i === 0 ? "" : ", "}${spread}${p.name}${optional}${p.type === null ? "" : `: ${p.type}`}${p.default === null ? "" : ` = ${p.default}`}`;
    }
    head += ")";
  }
  let heritage = "";
  for (let i = 0; i < s.heritage.length; i++) heritage += ` ${s.heritage[i] as string}`;
  return `${head}${s.returns === null ? "" : `: ${s.returns}`}${heritage}${s.type === null ? "" : ` : ${s.type}`}${s.value === null ? "" : ` = ${s.value}`}`;
}
