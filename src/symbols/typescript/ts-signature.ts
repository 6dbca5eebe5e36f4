import { nodeMemo, parentOf } from "../node-memo.js";
import type { SyntaxNode } from "../../parse/syntax.js";
import { normalizedText, sourceOf, textMayMatch, typeText } from "../normalize.js";
import { emptySignature } from "../signature.js";
import type { ParamInfo, SignatureInfo, SymbolKind, TypeParamInfo } from "../types.js";

/** Function values a binding or property may hold: called like the functions they are. */
export const FUNCTION_VALUES: ReadonlySet<string> = new Set(["arrow_function", "function_expression", "generator_function"]);

/** Keyword tokens of a declaration that change how callers may use it. */
const MODIFIER_TOKENS = new Set(["static", "async", "get", "set", "*", "abstract", "readonly", "declare", "override", "?", "!", "const", "accessor"]);

/** What the TypeScript and JavaScript grammars skip as whitespace between tokens (their `extras`, but comments). */
const GRAMMAR_SPACE = /[\s\p{Zs}\uFEFF\u2028\u2029\u2060\u200B]/u;

/** A modifier token's name in a signature. */
function modifierName(token: string): string {
  return token === "?" ? "optional" : token === "*" ? "generator" : token === "!" ? "definite" : token;
}

/**
 * Modifiers written on a declaration node itself, plus those its wrappers
 * imply. `nameNode`, the declaration's name when it is a child of `node`,
 * lets them be read from the source text (see `modifiersFromText`).
 */
export function modifiersOf(node: SyntaxNode, nameNode: SyntaxNode | null = null): string[] {
  const out = new Set<string>();
  if (nameNode === null || nameNode.id === node.id || !modifiersFromText(node, nameNode, out)) {
    // Each `type` read crosses into the parser: read it once a node.
    for (const c of node.children) {
      const type = c.type;
      if (MODIFIER_TOKENS.has(type)) {
        if (!c.isNamed) out.add(modifierName(type));
      } else if (type === "accessibility_modifier") out.add(c.text);
      else if (type === "override_modifier") out.add("override");
      else if (type === "decorator") out.add(`decorator:${normalizedText(c)}`);
    }
  }
  // A class member's decorators are children of the class body, before it (`@Input() x;`, `@Get(":id") find() {}`).
  if (decoratedBefore(node)) {
    for (let s = node.previousSibling; s !== null; s = s.previousSibling) {
      const t = s.type;
      if (t === "decorator") out.add(`decorator:${normalizedText(s)}`);
      else if (t !== "comment") break;
    }
  }
  const type = node.type;
  if (type === "generator_function_declaration" || type === "generator_function") out.add("generator");
  if (/@deprecated\b/.test(docComment(node))) out.add("deprecated");
  for (let child = node, p = parentOf(node); p !== null; child = p, p = parentOf(p)) {
    const wrapper = p.type;
    if (wrapper === "ambient_declaration") out.add("declare");
    else if (wrapper === "export_statement") {
      // `default` comes before the declaration: the text says whether to ask the tree.
      if (textMayMatch(p, p.startIndex, child.startIndex, /\bdefault\b/) && p.children.some((c) => c.type === "default")) out.add("default");
      // `@Component({...}) export class A`: the decorators are the export statement's.
      if (textMayMatch(p, p.startIndex, child.startIndex, /@/)) {
        for (const c of p.children) if (c.type === "decorator") out.add(`decorator:${normalizedText(c)}`);
      }
    } else break;
  }
  return [...out].sort();
}

/**
 * Whether decorators may stand just before `node` as its siblings: a member
 * of a class body whose source, before it, ends the way a decorator does
 * (`)` or a name), not with `;`, `{` or `}` (the text answers for nearly
 * every member without asking the tree).
 */
function decoratedBefore(node: SyntaxNode): boolean {
  const parent = parentOf(node);
  if (parent?.type !== "class_body") return false;
  const source = sourceOf(node.tree);
  if (source === null) return true;
  let i = node.startIndex - 1;
  while (i > parent.startIndex && GRAMMAR_SPACE.test(source[i] as string)) i--;
  return !/[;{}]/.test(source[i] ?? "");
}

/** Keywords that may precede a declaration's name without being modifiers. */
const DECLARATION_KEYWORDS = new Set(["function", "class", "interface", "enum", "type", "namespace", "module"]);
const ACCESSIBILITY = new Set(["public", "private", "protected"]);

/**
 * The modifiers the children walk of `modifiersOf` finds, read from the
 * source instead when that is plain: before the name, nothing but keywords
 * (all of them child tokens: no decorator, comment or anything else, else
 * false and the tree is asked); right after it, `?` or `!`. Reading children
 * builds a node object per child and crosses into the parser for each type.
 */
function modifiersFromText(node: SyntaxNode, nameNode: SyntaxNode, out: Set<string>): boolean {
  const source = sourceOf(node.tree);
  if (source === null) return false;
  const found: string[] = [];
  for (const token of source.slice(node.startIndex, nameNode.startIndex).match(/[A-Za-z_$][\w$]*|\S/g) ?? []) {
    if (ACCESSIBILITY.has(token)) found.push(token);
    else if (MODIFIER_TOKENS.has(token) && token !== "?" && token !== "!") found.push(modifierName(token));
    else if (!DECLARATION_KEYWORDS.has(token)) return false;
  }
  let i = nameNode.endIndex;
  while (i < source.length && GRAMMAR_SPACE.test(source[i] as string)) i++;
  const next = source[i];
  if (next === "/") return false;
  // Only a token inside the declaration is its own (`x` then a line break then `!` may be two nodes).
  if ((next === "?" || next === "!") && i < node.endIndex) found.push(modifierName(next));
  for (const m of found) out.add(m);
  return true;
}

/** Type parameter modifiers: `const` (TypeScript 5.0), and the variance annotations `in` and `out` (4.7). */
const TYPE_PARAM_MODIFIERS = new Set(["const", "in", "out"]);

/**
 * The type parameters of `type_parameters`, with their modifiers (`const`, `in`, `out`).
 *
 * tree-sitter-typescript 0.23 parses `const` but not the variance annotations: it reads `<out A>` as a parameter
 * named `out` and an ERROR holding `A` (inside the parameter, or after it), or as an ERROR holding `out` (inside the
 * parameter before its name, or before it) and a parameter named `A`. The words are read back in order, as the
 * compiler reads them: modifiers, then the name (`test/symbols/oracle.test.ts` holds this to the compiler's parser).
 */
export function typeParamsOf(node: SyntaxNode | null): TypeParamInfo[] {
  if (node === null) return [];
  const out: TypeParamInfo[] = [];
  const children = node.children;
  for (let i = 0; i < children.length; i++) {
    const c = children[i] as SyntaxNode;
    if (c.type !== "type_parameter") continue;
    const nameNode = c.childForFieldName("name");
    const words = modifierWords(children, i, nameNode);
    const name = words === null ? (nameNode?.text ?? normalizedText(c)) : (words.at(-1) as string);
    const modifiers = words === null ? (c.children[0]?.type === "const" ? ["const"] : []) : words.slice(0, -1);
    const constraint = typeText(c.childForFieldName("constraint"))?.replace(/^extends\s+/, "") ?? null;
    const def = typeText(c.childForFieldName("value"))?.replace(/^=\s*/, "") ?? null;
    out.push(modifiers.length === 0 ? { name, constraint, default: def } : { name, constraint, default: def, modifiers });
  }
  return out;
}

/**
 * A type parameter's modifiers and name, in order: the ERRORs the grammar made of its annotations just before it
 * (comments aside), its own tokens before its constraint (with the ERRORs among them), and the ERRORs just after it
 * while the last word is still a modifier; null when they are not modifiers then one name (the parameter's name node
 * is then all there is).
 */
function modifierWords(siblings: readonly SyntaxNode[], i: number, nameNode: SyntaxNode | null): string[] | null {
  const param = siblings[i] as SyntaxNode;
  const words: string[] = [];
  for (let k = i - 1; k >= 0; k--) {
    const x = siblings[k] as SyntaxNode;
    if (x.type === "comment") continue;
    const before = errorWords(x);
    if (before === null || !before.every((w) => TYPE_PARAM_MODIFIERS.has(w))) break;
    words.unshift(...before);
  }
  for (const x of param.children) {
    if (x.type === "comment") continue;
    if (x.type === "ERROR") {
      const inner = errorWords(x);
      if (inner === null) return null;
      words.push(...inner);
    } else if (x.type === "const" || (nameNode !== null && x.id === nameNode.id)) {
      words.push(x.text);
    } else {
      break;
    }
  }
  for (let k = i + 1; k < siblings.length && TYPE_PARAM_MODIFIERS.has(words.at(-1) ?? ""); k++) {
    const x = siblings[k] as SyntaxNode;
    if (x.type === "comment") continue;
    const after = errorWords(x);
    if (after === null) break;
    words.push(...after);
  }
  const last = words.at(-1);
  if (last === undefined || words.length === 1 || TYPE_PARAM_MODIFIERS.has(last) || !words.slice(0, -1).every((w) => TYPE_PARAM_MODIFIERS.has(w))) return null;
  return words;
}

/** The identifiers of an ERROR node (its comments aside); null for anything else, or an ERROR holding more than identifiers. */
function errorWords(error: SyntaxNode | undefined): string[] | null {
  if (error?.type !== "ERROR") return null;
  const words: string[] = [];
  for (const w of error.children) {
    if (w.type === "comment") continue;
    if (w.type !== "identifier") return null;
    words.push(w.text);
  }
  return words.length === 0 ? null : words;
}

/** Parameters of `formal_parameters` (TypeScript and JavaScript), or of an arrow's single bare parameter. */
export function paramsOf(fn: SyntaxNode): ParamInfo[] {
  const single = fn.childForFieldName("parameter");
  if (single !== null) return [{ name: single.text, kind: "positional", optional: false, default: null, type: null }];
  const list = fn.childForFieldName("parameters");
  if (list === null) return [];
  const out: ParamInfo[] = [];
  for (const p of list.namedChildren) {
    if (p.type === "comment") continue;
    out.push(paramOf(p));
  }
  return out;
}

function paramOf(p: SyntaxNode): ParamInfo {
  const kind = p.type;
  if (kind === "required_parameter" || kind === "optional_parameter") {
    const pattern = p.childForFieldName("pattern");
    const value = p.childForFieldName("value");
    const access: string[] = [];
    let readonly = false;
    // Modifiers (`private`, `readonly`, ...) come before the pattern: without anything there, no children to read.
    if (pattern === null || pattern.startIndex > p.startIndex) {
      for (const c of p.children) {
        const type = c.type;
        if (type === "accessibility_modifier" || type === "override_modifier") access.push(c.text);
        else if (type === "readonly") readonly = true;
      }
    }
    if (readonly) access.push("readonly");
    const rest = pattern?.type === "rest_pattern";
    const name = rest ? normalizedText(pattern?.namedChildren[0] ?? null) : normalizedText(pattern);
    return {
      name: [...access, name].join(" "),
      kind: rest ? "rest" : "positional",
      optional: kind === "optional_parameter" || value !== null,
      default: value === null ? null : normalizedText(value),
      type: typeText(p.childForFieldName("type")),
    };
  }
  // JavaScript: identifier, assignment_pattern (`a = 1`), rest_pattern, destructuring.
  if (kind === "assignment_pattern") {
    return { name: normalizedText(p.childForFieldName("left")), kind: "positional", optional: true, default: normalizedText(p.childForFieldName("right")), type: null };
  }
  if (kind === "rest_pattern") return { name: normalizedText(p.namedChildren[0] ?? null), kind: "rest", optional: true, default: null, type: null };
  return { name: normalizedText(p), kind: "positional", optional: false, default: null, type: null };
}

/** Signature of anything callable: function, method, signature, arrow or function expression. */
export function functionSignature(name: string, kind: SymbolKind, decl: SyntaxNode, fn: SyntaxNode, extra: readonly string[] = [], nameNode: SyntaxNode | null = null): SignatureInfo {
  return {
    ...emptySignature(name, kind),
    modifiers: [...new Set([...modifiersOf(decl, fn === decl ? nameNode : null), ...(fn === decl ? [] : modifiersOf(fn)), ...extra])].sort(),
    type_params: typeParamsOf(fn.childForFieldName("type_parameters")),
    params: paramsOf(fn),
    returns: typeText(fn.childForFieldName("return_type")),
  };
}

/** `extends B<T>`, `implements C`, interface `extends J`. */
export function heritageOf(node: SyntaxNode): string[] {
  const out: string[] = [];
  for (const c of node.namedChildren) {
    if (c.type === "class_heritage") {
      for (const h of c.namedChildren) out.push(normalizedText(h));
      // JavaScript: `class A extends B` puts the expression straight in class_heritage.
      if (c.namedChildren.length === 1 && !/^(extends|implements)_clause$/.test(c.namedChildren[0]?.type ?? "")) out[out.length - 1] = `extends ${out.at(-1) ?? ""}`;
    }
    if (c.type === "extends_type_clause") out.push(normalizedText(c));
  }
  return out;
}

/**
 * The JSDoc comment right before a declaration (or before the `export` /
 * `declare` wrapping it, or the declaration list of a `const`).
 */
export const docComment: (node: SyntaxNode) => string = nodeMemo(findDocComment);

function findDocComment(node: SyntaxNode): string {
  let n: SyntaxNode = node;
  for (let p = parentOf(n); p !== null && /^(export_statement|ambient_declaration|lexical_declaration|variable_declaration)$/.test(p.type) && p.firstNamedChild?.id === n.id; p = parentOf(n)) n = p;
  const list = node.type === "variable_declarator" ? parentOf(node) : null;
  if (list !== null) {
    const outer = parentOf(list);
    n = outer?.type === "export_statement" ? outer : list;
  }
  // Siblings touch but for whitespace: a comment before `n` ends right before it, so without `*/` there, no
  // doc comment (and no node to build for the sibling).
  const source = sourceOf(n.tree);
  if (source !== null) {
    let end = n.startIndex;
    while (end > 0 && GRAMMAR_SPACE.test(source[end - 1] as string)) end--;
    if (!source.startsWith("*/", end - 2)) return "";
  }
  const prev = n.previousSibling;
  return prev !== null && prev.type === "comment" && prev.text.startsWith("/**") ? prev.text : "";
}
