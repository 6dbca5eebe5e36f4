/**
 * Texts on which tree-sitter-typescript's TSX parse never ends, its memory growing as it goes (a known bug of its
 * error recovery; the first was reported, the others found by mutating it): half-written code an agent may leave.
 */
export const HANGING_TSX = ["<a {{b:>c:d(e f)", "<a {{b:>c:x:(e f)", "<a {{b:>c:d(e (e f))", "<a {{b:>c:d(as f)"] as const;
