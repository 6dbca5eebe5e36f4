import type { SymbolRecord } from "./types.js";

/**
 * How a function-like symbol is called, as names only: `parseConfig(path, strict?)`, `f(a, ...rest)`, Python's
 * `g(a, *args, b, **kw)`; null for a symbol without parameters (a class, a type, a variable). What a notice of a
 * changed signature shows, old and new: parameter names say what changed without a type or a default's text.
 */
export function callShape(s: Pick<SymbolRecord, "name" | "detail">): string | null {
  const params = s.detail.params;
  if (params === null) return null;
  const python = params.some((p) => p.kind !== "positional");
  const shown = params.map((p) => {
    const rest = p.kind === "rest" ? (python ? "*" : "...") : p.kind === "var_keyword" ? "**" : "";
    return `${rest}${p.name}${p.optional || p.default !== null ? "?" : ""}`;
  });
  return `${s.name}(${shown.join(", ")})`;
}
