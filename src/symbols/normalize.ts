import type { SyntaxNode } from "tree-sitter";

const CLOSERS = new Set([")", "]", "}", ">"]);
const WORD_END = /[\p{L}\p{N}_$"'`]$/u;
const WORD_START = /^[\p{L}\p{N}_$"'`]/u;

/**
 * A node's text with formatting removed: its tokens (leaves) joined by one
 * space, comments dropped, and a comma right before a closing bracket
 * dropped (a trailing comma). `skip` leaves out whole subtrees (a class body's
 * member symbols, which are hashed on their own). Pure.
 */
export function normalizedText(node: SyntaxNode | null, skip?: (n: SyntaxNode) => boolean): string {
  if (node === null) return "";
  const tokens: string[] = [];
  const visit = (n: SyntaxNode): void => {
    if (n.type === "comment" || (skip !== undefined && skip(n))) return;
    const count = n.childCount;
    if (count === 0) {
      if (n.text !== "") tokens.push(n.text);
      return;
    }
    // String literals keep their inner text exactly (whitespace inside a string matters).
    if (n.type === "string" || n.type === "template_string" || n.type === "string_fragment") {
      tokens.push(n.text);
      return;
    }
    for (let i = 0; i < count; i++) {
      const c = n.child(i);
      if (c !== null) visit(c);
    }
  };
  visit(node);
  // A space only where two word-like tokens meet (`keyof T`), so the text reads
  // naturally (`Promise<void>`) and any source spacing gives the same result.
  let out = "";
  let prev = "";
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === "," && CLOSERS.has(tokens[i + 1] ?? "")) continue;
    if (out !== "" && (WORD_END.test(prev) && WORD_START.test(t) || t === "=>" || prev === "=>" || prev === ",")) out += " ";
    out += t;
    prev = t;
  }
  return out;
}

/** A type annotation's text without its leading `:` (or `->`), normalised. */
export function typeText(node: SyntaxNode | null): string | null {
  if (node === null) return null;
  const t = normalizedText(node);
  return t.replace(/^(:|->)\s*/, "");
}
