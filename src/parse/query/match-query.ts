import type { QueryCapture, QueryMatch, SyntaxNode } from "../syntax.js";
import type { ChildStep, NodeStep, QueryPattern, QueryPredicate, QueryStep } from "./parse-query.js";

/**
 * How the matcher reads a tree whose nodes it holds as `N`: the indices of a
 * flat copy of the tree (`FlatAccess`: each question a read of an array, and
 * no object made for a node until it is captured).
 */
export interface TreeAccess<N> {
  /** The root and its descendants of these types, in document order. */
  candidates(root: N, types: readonly string[]): readonly N[];
  type(node: N): string;
  named(node: N): boolean;
  children(node: N): readonly N[];
  namedChildren(node: N): readonly N[];
  /** `node`'s children in `field`. */
  inField(node: N, field: string): readonly N[];
  /** Whether `child` (a child of `node`) is in `field`. */
  isInField(node: N, field: string, child: N): boolean;
  /** The node a capture holds. */
  syntaxNode(node: N): SyntaxNode;
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
 * parse table), and over a flat copy of a tree the matcher asks nothing of
 * the parser. Matches are in document order of their root node, then pattern
 * order (tree-sitter's order differs; the extractors do not depend on it).
 */
export function matchTree<N>(patterns: readonly QueryPattern[], root: N, access: TreeAccess<N>): QueryMatch[] {
  const { byType, types } = rootIndex(patterns);
  const out: QueryMatch[] = [];
  const m = new Matcher(access);
  // One callback per pattern, made once: most patterns have no predicate.
  const found = patterns.map(
    (pattern): Found =>
      pattern.predicates.length === 0
        ? (captures) => out.push({ captures })
        : (captures) => {
            if (pattern.predicates.every((p) => holds(p, captures))) out.push({ captures });
          },
  );
  const none: QueryCapture[] = [];
  const early = patterns.map(earlyPredicates);
  const leaves = patterns.map(leafCaptures);
  for (const node of access.candidates(root, types)) {
    // (an index loop over lists of one kind: a `[]` for none, iterated beside the index's lists, threw this
    // function's optimised code away)
    const indices = byType.get(access.type(node));
    if (indices === undefined) continue;
    for (let k = 0; k < indices.length; k++) {
      const index = indices[k] as number;
      const leaf = leaves[index] as readonly string[] | null;
      if (leaf !== null) {
        // A node alone, by its type: the match is this node under the pattern's captures (see leafCaptures).
        if (!access.named(node)) continue;
        const n = access.syntaxNode(node);
        const captures = new Array<QueryCapture>(leaf.length);
        for (let c = 0; c < leaf.length; c++) captures[c] = { name: leaf[c] as string, node: n };
        out.push({ captures });
        continue;
      }
      m.early = early[index] as EarlyPredicates;
      m.step((patterns[index] as QueryPattern).root, node, none, found[index] as Found);
    }
  }
  return out;
}

const leafMemo = new WeakMap<QueryPattern, readonly string[] | null>();

/**
 * The captures of a pattern that is one named node of given types and nothing else (`(comment) @comment`,
 * `[(type_identifier) (nested_type_identifier)] @reference.type`): no children, fields or predicates, and captures
 * on the root alone; null for any other. Such a pattern matches each candidate node of those types once (the
 * alternatives' types are distinct, so one way at most), and most matches of a file are of such patterns, so the
 * matcher makes them directly.
 */
function leafCaptures(pattern: QueryPattern): readonly string[] | null {
  let leaf = leafMemo.get(pattern);
  if (leaf === undefined) {
    const { root } = pattern;
    const bare = (step: QueryStep): step is NodeStep => step.kind === "node" && step.type !== null && step.children.length === 0 && step.field === null;
    const alternatives = root.kind === "alternation" ? root.alternatives : [root];
    const types = alternatives.map((a) => (bare(a) ? a.type : null));
    const ok =
      pattern.predicates.length === 0 &&
      root.captures.length > 0 &&
      types.every((t) => t !== null) &&
      new Set(types).size === types.length &&
      (root.kind !== "alternation" || alternatives.every((a) => a.captures.length === 0));
    leaf = ok ? root.captures : null;
    leafMemo.set(pattern, leaf);
  }
  return leaf;
}

/** A pattern's predicates on one capture's own text (`#eq? @a "x"`, `#match? @a "re"`), by that capture's name. */
type EarlyPredicates = ReadonlyMap<string, readonly QueryPredicate[]> | null;

const earlyMemo = new WeakMap<QueryPattern, EarlyPredicates>();

/**
 * The predicates of a pattern that can be tested as soon as their capture is
 * made: a way that fails one cannot become a match, so the matcher stops
 * there rather than at the end (`__init__`'s pattern otherwise walks the body
 * of every function). A predicate reads a capture name's first capture, and
 * captures are only ever appended, so testing the first one when it is made
 * decides what the test at the end would. The end still tests them all.
 */
function earlyPredicates(pattern: QueryPattern): EarlyPredicates {
  let early = earlyMemo.get(pattern);
  if (early === undefined) {
    const byName = new Map<string, QueryPredicate[]>();
    for (const p of pattern.predicates) {
      if (p.kind === "match" || "text" in p.other) byName.set(p.capture, [...(byName.get(p.capture) ?? []), p]);
    }
    early = byName.size === 0 ? null : byName;
    earlyMemo.set(pattern, early);
  }
  return early;
}

const rootIndexes = new WeakMap<readonly QueryPattern[], { byType: Map<string, number[]>; types: readonly string[] }>();

/** Which patterns can match a node of each type, by the types their roots can have; worked out once per query. */
function rootIndex(patterns: readonly QueryPattern[]): { byType: Map<string, number[]>; types: readonly string[] } {
  let index = rootIndexes.get(patterns);
  if (index === undefined) {
    const byType = new Map<string, number[]>();
    for (const [i, pattern] of patterns.entries()) {
      for (const type of rootTypes(pattern.root)) {
        const list = byType.get(type) ?? [];
        if (!list.includes(i)) list.push(i);
        byType.set(type, list);
      }
    }
    index = { byType, types: [...byType.keys()] };
    rootIndexes.set(patterns, index);
  }
  return index;
}

/** The node types a pattern's root can have (the types to look for in the tree; parseQuery allows no wildcard root). */
function rootTypes(step: QueryStep): string[] {
  if (step.kind === "alternation") return step.alternatives.flatMap(rootTypes);
  const type = step.kind === "node" ? step.type : step.text;
  return type === null ? [] : [type];
}

type Found = (captures: QueryCapture[]) => void;

const namedOnlyMemo = new WeakMap<NodeStep, boolean>();

function namedOnly(step: NodeStep): boolean {
  let yes = namedOnlyMemo.get(step);
  if (yes === undefined) {
    const named = (s: ChildStep): boolean => s.kind === "anchor" || s.kind === "node" || (s.kind === "alternation" && s.alternatives.every(named));
    namedOnlyMemo.set(step, (yes = step.children.every(named)));
  }
  return yes;
}

/** The steps of the matcher over one tree's access. */
class Matcher<N> {
  /** The early predicates of the pattern being matched. */
  early: EarlyPredicates = null;

  constructor(private readonly a: TreeAccess<N>) {}

  /** Calls `found` once for every way `step` matches `node`, with `captures` extended by that way's captures. */
  step(step: QueryStep, node: N, captures: QueryCapture[], found: Found): void {
    const a = this.a;
    if (step.kind === "alternation") {
      const own = this.withCaptures(captures, step.captures, node);
      if (own === null) return;
      for (const alternative of step.alternatives) this.step(alternative, node, own, found);
      return;
    }
    if (step.kind === "token") {
      if (step.text !== null && (a.named(node) || a.type(node) !== step.text)) return;
      const own = this.withCaptures(captures, step.captures, node);
      if (own !== null) found(own);
      return;
    }
    if ((step.type !== null && a.type(node) !== step.type) || !a.named(node)) return;
    const own = this.withCaptures(captures, step.captures, node);
    if (own === null) return;
    const only = step.children[0];
    if (only === undefined) {
      found(own);
      return;
    }
    if (step.children.length === 1 && only.kind !== "anchor" && only.field !== null) {
      // One child step, in a field (`name: (identifier)`): only that field's children, in one call.
      for (const child of a.inField(node, only.field)) this.step(only, child, own, found);
      return;
    }
    // Child steps that match only named nodes skip the anonymous children (punctuation, keywords).
    this.children(step.children, 0, node, namedOnly(step) ? a.namedChildren(node) : a.children(node), 0, false, own, found);
  }

  /**
   * Matches child steps `steps[s..]` against `children[from..]`, in order.
   * `anchored`: the previous step was `.`, so no named child may be skipped.
   */
  children(steps: readonly ChildStep[], s: number, parent: N, children: readonly N[], from: number, anchored: boolean, captures: QueryCapture[], found: Found): void {
    const a = this.a;
    const step = steps[s];
    if (step === undefined) {
      // A trailing anchor: nothing named may follow the last matched child.
      if (anchored && children.slice(from).some((c) => a.named(c))) return;
      found(captures);
      return;
    }
    if (step.kind === "anchor") {
      this.children(steps, s + 1, parent, children, from, true, captures, found);
      return;
    }
    for (let i = from; i < children.length; i++) {
      const child = children[i] as N;
      // The cheap test `step` starts with comes first: most children fail it, and then no continuation is made.
      if (this.mayMatch(step, child) && (step.field === null || a.isInField(parent, step.field, child))) {
        this.step(step, child, captures, (more) => this.children(steps, s + 1, parent, children, i + 1, false, more, found));
      }
      if (anchored && a.named(child)) break;
    }
  }

  /** False when `step` cannot match `node` by its type alone (the test {@link step} begins with). */
  mayMatch(step: QueryStep, node: N): boolean {
    const a = this.a;
    if (step.kind === "alternation") return true;
    if (step.kind === "token") return step.text === null || (!a.named(node) && a.type(node) === step.text);
    return (step.type === null || a.type(node) === step.type) && a.named(node);
  }

  /**
   * `captures` and this node's captures after them, in a new array (the old one stays with the other ways that
   * share it); null when a predicate on a capture made here already fails ({@link earlyPredicates}).
   */
  withCaptures(captures: QueryCapture[], names: readonly string[], node: N): QueryCapture[] | null {
    if (names.length === 0) return captures;
    const n = this.a.syntaxNode(node);
    const early = this.early;
    const out = new Array<QueryCapture>(captures.length + names.length);
    for (let k = 0; k < captures.length; k++) out[k] = captures[k] as QueryCapture;
    for (let k = 0; k < names.length; k++) out[captures.length + k] = { name: names[k] as string, node: n };
    if (early !== null) {
      for (const name of names) {
        const tests = early.get(name);
        if (tests !== undefined && !captures.some((c) => c.name === name) && !tests.every((p) => holds(p, out))) return null;
      }
    }
    return out;
  }
}

function holds(p: QueryPredicate, captures: readonly QueryCapture[]): boolean {
  const text = (name: string): string | undefined => captures.find((c) => c.name === name)?.node.text;
  const value = text(p.capture);
  if (value === undefined) return true;
  if (p.kind === "match") return p.regex.test(value);
  const other = "text" in p.other ? p.other.text : text(p.other.capture);
  return other === undefined || value === other;
}
