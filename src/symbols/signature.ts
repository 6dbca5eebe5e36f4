import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "./types.js";

/** A signature with nothing but a name and a kind; builders fill in the rest. */
export function emptySignature(name: string, kind: SymbolKind): SignatureInfo {
  return { name, kind, modifiers: [], type_params: [], params: null, returns: null, heritage: [], type: null, value: null, overloads: [] };
}

/** Canonical JSON of a signature (fixed key order, sorted modifiers): the input of `signature_hash`. */
export function canonicalSignature(s: SignatureInfo, withName = true): string {
  const one = (x: SignatureInfo): unknown[] => [
    withName ? x.name : "",
    x.kind,
    [...x.modifiers].sort(),
    x.type_params.map((t: TypeParamInfo) => [t.name, t.constraint, t.default]),
    x.params === null ? null : x.params.map((p: ParamInfo) => [p.name, p.kind, p.optional, p.default, p.type]),
    x.returns,
    x.heritage,
    x.type,
    x.value,
  ];
  return JSON.stringify([one(s), s.overloads.map(one)]);
}

/** The signature as a person reads it: `async f<T>(a: number, b?: string = 1): T`. */
export function renderSignature(s: SignatureInfo): string {
  if (s.overloads.length > 0) return s.overloads.map(renderSignature).join("\n");
  const mods = s.modifiers.filter((m) => !m.startsWith("decorator:")).join(" ");
  const decorators = s.modifiers.filter((m) => m.startsWith("decorator:")).map((m) => m.slice("decorator:".length));
  const tps = s.type_params.length === 0 ? "" : `<${s.type_params.map((t) => `${t.name}${t.constraint === null ? "" : ` extends ${t.constraint}`}${t.default === null ? "" : ` = ${t.default}`}`).join(", ")}>`;
  const params =
    s.params === null
      ? ""
      : `(${s.params.map((p) => `${p.kind === "rest" ? "..." : p.kind === "var_keyword" ? "**" : ""}${p.name}${p.optional && p.default === null && p.kind !== "rest" && p.kind !== "var_keyword" ? "?" : ""}${p.type === null ? "" : `: ${p.type}`}${p.default === null ? "" : ` = ${p.default}`}`).join(", ")})`;
  const head = [...decorators, `${mods === "" ? "" : `${mods} `}${s.kind} ${s.name}${tps}${params}`].join("\n");
  return [
    head,
    s.returns === null ? "" : `: ${s.returns}`,
    s.heritage.length === 0 ? "" : ` ${s.heritage.join(" ")}`,
    s.type === null ? "" : ` : ${s.type}`,
    s.value === null ? "" : ` = ${s.value}`,
  ].join("");
}
