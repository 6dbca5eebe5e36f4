import type { QueryCapture, QueryMatch, SyntaxNode } from "../syntax.js";
import type { ChildStep, NodeStep, QueryPattern, QueryPredicate, QueryStep } from "./parse-query.js";

/** What {@link matchQuery} asks of a node beyond {@link SyntaxNode} (the native binding's nodes have these). */
export interface MatchableNode extends SyntaxNode {
  descendantsOfType(types: string | string[]): MatchableNode[];
  childrenForFieldName(field: string): MatchableNode[];
  readonly children: MatchableNode[];
  readonly namedChildren: MatchableNode[];
}

/**
 * The matches of parsed query patterns in a tree, as tree-sitter's own
 * `Query.matches` finds them (the test holds the two to each other over
 * the fixtures and a corpus): a pattern's child steps match the node's
 * children in order, a field step only the children in that field, an anchor
 * `.` allows no named child in between, and every way a pattern matches is a
 * match of its own. Captures come in the pattern's order.
 *
 * Why not tree-sitter's query: compiling one costs a one-file process
 * 10-20 ms (tree-sitter analyses each pattern against the grammar's whole
 * parse table), more than this matcher takes for a file through the native
 * binding, so the native backend uses it for a process's first files.
 * Matches are in document order of their root node, then pattern order
 * (tree-sitter's order differs; the extractors do not depend on it).
 */
export function matchQuery(patterns: readonly QueryPattern[], root: MatchableNode): QueryMatch[] {
  const byType = new Map<string, number[]>();
  for (const [index, pattern] of patterns.entries()) {
    for (const type of rootTypes(pattern.root)) {
      const list = byType.get(type) ?? [];
      if (!list.includes(index)) list.push(index);
      byType.set(type, list);
    }
  }
  const out: QueryMatch[] = [];
  const ctx = new Context();
  for (const node of root.descendantsOfType([...byType.keys()])) {
    for (const index of byType.get(node.type) ?? []) {
      const pattern = patterns[index] as QueryPattern;
      matchStep(pattern.root, node, [], ctx, (captures) => {
        if (pattern.predicates.every((p) => holds(p, captures))) out.push({ captures });
      });
    }
  }
  return out;
}

/** The node types a pattern's root can have (the types to look for in the tree; parseQuery allows no wildcard root). */
function rootTypes(step: QueryStep): string[] {
  if (step.kind === "alternation") return step.alternatives.flatMap(rootTypes);
  const type = step.kind === "node" ? step.type : step.text;
  return type === null ? [] : [type];
}

/** Per-run memo of what each node was asked: every question crosses into the parser. */
class Context {
  readonly #type = new WeakMap<SyntaxNode, string>();
  readonly #named = new WeakMap<SyntaxNode, boolean>();
  readonly #children = new WeakMap<SyntaxNode, MatchableNode[]>();
  readonly #namedChildren = new WeakMap<SyntaxNode, MatchableNode[]>();
  readonly #fields = new WeakMap<SyntaxNode, Map<string, MatchableNode[]>>();

  type(node: SyntaxNode): string {
    let t = this.#type.get(node);
    if (t === undefined) this.#type.set(node, (t = node.type));
    return t;
  }

  named(node: SyntaxNode): boolean {
    let n = this.#named.get(node);
    if (n === undefined) this.#named.set(node, (n = node.isNamed));
    return n;
  }

  children(node: MatchableNode): MatchableNode[] {
    let c = this.#children.get(node);
    if (c === undefined) this.#children.set(node, (c = node.children));
    return c;
  }

  namedChildren(node: MatchableNode): MatchableNode[] {
    let c = this.#namedChildren.get(node);
    if (c === undefined) this.#namedChildren.set(node, (c = node.namedChildren));
    return c;
  }

  /** `node`'s children in `field`. */
  inField(node: MatchableNode, field: string): MatchableNode[] {
    let fields = this.#fields.get(node);
    if (fields === undefined) this.#fields.set(node, (fields = new Map()));
    let children = fields.get(field);
    if (children === undefined) fields.set(field, (children = node.childrenForFieldName(field)));
    return children;
  }

  /** Whether `child` is one of `node`'s children in `field`. */
  isInField(node: MatchableNode, field: string, child: SyntaxNode): boolean {
    const id = child.id;
    return this.inField(node, field).some((c) => c.id === id);
  }
}

type Found = (captures: QueryCapture[]) => void;

/** Calls `found` once for every way `step` matches `node`, with `captures` extended by that way's captures. */
function matchStep(step: QueryStep, node: MatchableNode, captures: QueryCapture[], ctx: Context, found: Found): void {
  if (step.kind === "alternation") {
    const own = withCaptures(captures, step.captures, node);
    for (const alternative of step.alternatives) matchStep(alternative, node, own, ctx, found);
    return;
  }
  if (step.kind === "token") {
    if (step.text !== null && (ctx.named(node) || ctx.type(node) !== step.text)) return;
    found(withCaptures(captures, step.captures, node));
    return;
  }
  if ((step.type !== null && ctx.type(node) !== step.type) || !ctx.named(node)) return;
  const own = withCaptures(captures, step.captures, node);
  const [only, ...more] = step.children;
  if (only === undefined) {
    found(own);
    return;
  }
  if (more.length === 0 && only.kind !== "anchor" && only.field !== null) {
    // One child step, in a field (`name: (identifier)`): only that field's children, in one call.
    for (const child of ctx.inField(node, only.field)) matchStep(only, child, own, ctx, found);
    return;
  }
  // Child steps that match only named nodes skip the anonymous children (punctuation, keywords).
  matchChildren(step.children, 0, node, namedOnly(step) ? ctx.namedChildren(node) : ctx.children(node), 0, false, own, ctx, found);
}

const namedOnlyMemo = new WeakMap<NodeStep, boolean>();

function namedOnly(step: NodeStep): boolean {
  let yes = namedOnlyMemo.get(step);
  if (yes === undefined) {
    const named = (s: ChildStep): boolean => s.kind === "anchor" || s.kind === "node" || (s.kind === "alternation" && s.alternatives.every(named));
    namedOnlyMemo.set(step, (yes = step.children.every(named)));
  }
  return yes;
}

/**
 * Matches child steps `steps[s..]` against `children[from..]`, in order.
 * `anchored`: the previous step was `.`, so no named child may be skipped.
 */
function matchChildren(
  steps: readonly ChildStep[],
  s: number,
  parent: MatchableNode,
  children: readonly MatchableNode[],
  from: number,
  anchored: boolean,
  captures: QueryCapture[],
  ctx: Context,
  found: Found,
): void {
  const step = steps[s];
  if (step === undefined) {
    // A trailing anchor: nothing named may follow the last matched child.
    if (anchored && children.slice(from).some((c) => ctx.named(c))) return;
    found(captures);
    return;
  }
  if (step.kind === "anchor") {
    matchChildren(steps, s + 1, parent, children, from, true, captures, ctx, found);
    return;
  }
  for (let i = from; i < children.length; i++) {
    const child = children[i] as MatchableNode;
    if (step.field === null || ctx.isInField(parent, step.field, child)) {
      matchStep(step, child, captures, ctx, (more) => matchChildren(steps, s + 1, parent, children, i + 1, false, more, ctx, found));
    }
    if (anchored && ctx.named(child)) break;
  }
}

function withCaptures(captures: QueryCapture[], names: readonly string[], node: SyntaxNode): QueryCapture[] {
  return names.length === 0 ? captures : [...captures, ...names.map((name) => ({ name, node }))];
}

function holds(p: QueryPredicate, captures: readonly QueryCapture[]): boolean {
  const text = (name: string): string | undefined => captures.find((c) => c.name === name)?.node.text;
  const value = text(p.capture);
  if (value === undefined) return true;
  if (p.kind === "match") return p.regex.test(value);
  const other = "text" in p.other ? p.other.text : text(p.other.capture);
  return other === undefined || value === other;
}
