import { normalizedText } from "../normalize.js";
import type { RawSymbol } from "../raw-symbol.js";
import { emptySignature } from "../signature.js";
import type { SyntaxNode } from "../../parse/syntax.js";
import type { SignatureInfo, SymbolKind } from "../types.js";
import { FUNCTION_VALUES, functionSignature, heritageOf, typeParamsOf } from "./ts-signature.js";

/**
 * A JavaScript file's CommonJS exports, from its top-level assignments:
 * `module.exports = { a, b: c, d() {}, e: () => {} }`, `module.exports = x`,
 * `exports.f = ...` and `module.exports.f = ...`. A local exported by name
 * (`a`, `c`, `x`, `exports.f = g`) goes in `locals`, to be marked exported
 * where it is declared; a value defined in the export itself (`d`, `e`, the
 * function of `exports.f = function () {}`) is a symbol of its own, named as
 * it is exported (`default` for `module.exports = function () {}`).
 */
export function commonJsExports(root: SyntaxNode): { locals: Set<string>; symbols: RawSymbol[] } {
  const locals = new Set<string>();
  const symbols: RawSymbol[] = [];
  const exportValue = (name: string, value: SyntaxNode, at: SyntaxNode): void => {
    if (value.type === "identifier") locals.add(value.text);
    else symbols.push(symbolOf(name, value, at));
  };
  for (const stmt of root.namedChildren) {
    const assignment = stmt.type === "expression_statement" ? stmt.namedChildren[0] : undefined;
    if (assignment?.type !== "assignment_expression") continue;
    const left = assignment.childForFieldName("left");
    const right = assignment.childForFieldName("right");
    if (left?.type !== "member_expression" || right === null) continue;
    const target = left.text.replace(/\s+/g, "");
    if (target === "module.exports") {
      if (right.type !== "object") {
        exportValue("default", right, stmt);
        continue;
      }
      for (const entry of right.namedChildren) {
        if (entry.type === "shorthand_property_identifier") locals.add(entry.text);
        else if (entry.type === "method_definition") symbols.push(symbolOf(keyName(entry.childForFieldName("name")), entry, entry));
        else if (entry.type === "pair") {
          const value = entry.childForFieldName("value");
          if (value !== null) exportValue(keyName(entry.childForFieldName("key")), value, entry);
        }
      }
      continue;
    }
    const member = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(target);
    if (member?.[1] !== undefined) exportValue(member[1], right, stmt);
  }
  return { locals, symbols };
}

/** `a`, `"a"` and `'a'` as keys are all `a`; a computed key keeps its brackets. */
function keyName(key: SyntaxNode | null): string {
  if (key === null) return "";
  if (key.type === "string") return key.text.slice(1, -1);
  return key.text;
}

/** A symbol for a value exported where it is defined: a function, a class or any other value. */
function symbolOf(name: string, value: SyntaxNode, at: SyntaxNode): RawSymbol {
  const isFunction = FUNCTION_VALUES.has(value.type) || value.type === "method_definition";
  const kind: SymbolKind = isFunction ? "function" : value.type === "class" ? "class" : "variable";
  let signature: SignatureInfo;
  if (kind === "function") signature = functionSignature(name, kind, value, value);
  else if (kind === "class") signature = { ...emptySignature(name, kind), type_params: typeParamsOf(value.childForFieldName("type_parameters")), heritage: heritageOf(value) };
  else signature = emptySignature(name, kind);
  const body = normalizedText(kind === "function" ? value.childForFieldName("body") : kind === "class" ? value.childForFieldName("body") : value);
  return { name, qualifiedName: name, kind, exported: true, node: at, signature, body, overloadSignature: false };
}
