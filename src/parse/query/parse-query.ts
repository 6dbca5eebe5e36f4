import { ComityError } from "../../errors/comity-error.js";

/**
 * A tree-sitter query (`grammars/<language>/*.scm`) as data, for
 * `matchTree`: the subset of the query language the engine's own
 * queries use. Named nodes `(type ...)` and `(_)`, anonymous nodes `"text"`
 * and `_`, alternations `[...]`, fields `name: ...`, captures `@a @b`,
 * anchors `.` and the predicates `#eq?` and `#match?`. Anything else
 * (quantifiers, negated fields, grouped sequences, other predicates, a
 * pattern rooted at a wildcard) is an error, so a query that used it would
 * fail its tests rather than match differently.
 */
export type QueryStep = NodeStep | TokenStep | AlternationStep;

interface StepBase {
  /** The field the parent holds this node in (`name: ...`), or null for any child. */
  readonly field: string | null;
  readonly captures: readonly string[];
}

/** `(type child...)`: a named node; `type` null is `(_)`, any named node. */
export interface NodeStep extends StepBase {
  readonly kind: "node";
  readonly type: string | null;
  readonly children: readonly ChildStep[];
}

/** `"text"`: an anonymous node (a keyword or punctuation); `text` null is `_`, any node. */
export interface TokenStep extends StepBase {
  readonly kind: "token";
  readonly text: string | null;
}

/** `[a b ...]`: any one of the alternatives. */
export interface AlternationStep extends StepBase {
  readonly kind: "alternation";
  readonly alternatives: readonly QueryStep[];
}

/** A child of a node pattern, or `.`: the neighbouring child patterns match adjacent named children. */
export type ChildStep = QueryStep | { readonly kind: "anchor" };

export type QueryPredicate =
  | { readonly kind: "eq"; readonly capture: string; readonly other: { readonly capture: string } | { readonly text: string } }
  | { readonly kind: "match"; readonly capture: string; readonly regex: RegExp };

export interface QueryPattern {
  readonly root: QueryStep;
  readonly predicates: readonly QueryPredicate[];
}

type Token = { t: "(" | ")" | "[" | "]" | "." | "_"; at: number } | { t: "ident" | "field" | "capture" | "predicate" | "string"; v: string; at: number };

/** The patterns of a query's text, in order. Throws a ComityError (INVALID_ARGUMENT) on syntax it does not support. */
export function parseQuery(source: string): QueryPattern[] {
  const tokens = tokenize(source);
  let pos = 0;
  const fail = (message: string, at = tokens[pos]?.at ?? source.length): never => {
    throw new ComityError("INVALID_ARGUMENT", `query: ${message} at offset ${at}`);
  };
  const peek = (): Token | undefined => tokens[pos];
  const take = (): Token => tokens[pos++] ?? fail("unexpected end");

  const captures = (): string[] => {
    const out: string[] = [];
    for (let t = peek(); t?.t === "capture"; t = peek()) out.push((take() as { v: string }).v);
    return out;
  };

  // One step, after its field (if any) was read; predicates found inside node patterns go to `predicates`.
  const step = (field: string | null, predicates: QueryPredicate[]): QueryStep => {
    const t = take();
    if (t.t === "string") return { kind: "token", field, text: t.v, captures: captures() };
    if (t.t === "_") return { kind: "token", field, text: null, captures: captures() };
    if (t.t === "[") {
      const alternatives: QueryStep[] = [];
      while (peek()?.t !== "]") alternatives.push(step(null, predicates));
      take();
      if (alternatives.length === 0) fail("empty alternation", t.at);
      return { kind: "alternation", field, alternatives, captures: captures() };
    }
    if (t.t !== "(") return fail(`unexpected ${t.t}`, t.at);
    const head = take();
    if (head.t !== "ident" && head.t !== "_") return fail("a node type after '('", head.at);
    const children: ChildStep[] = [];
    for (let c = peek(); c !== undefined && c.t !== ")"; c = peek()) {
      if (c.t === ".") {
        take();
        children.push({ kind: "anchor" });
      } else if (c.t === "(" && tokens[pos + 1]?.t === "predicate") {
        take();
        predicates.push(predicate());
      } else if (c.t === "field") {
        take();
        children.push(step(c.v, predicates));
      } else {
        children.push(step(null, predicates));
      }
    }
    take();
    return { kind: "node", field, type: head.t === "_" ? null : (head as { v: string }).v, children, captures: captures() };
  };

  // After the '(' of `(#eq? @a "x")`.
  const predicate = (): QueryPredicate => {
    const name = take() as { v: string; at: number };
    const args: Token[] = [];
    while (peek()?.t !== ")") args.push(take());
    take();
    const [first, second] = args;
    if (args.length !== 2 || first?.t !== "capture" || second === undefined) return fail(`#${name.v} takes a capture and a value`, name.at);
    if (name.v === "eq?" && (second.t === "capture" || second.t === "string")) {
      return { kind: "eq", capture: first.v, other: second.t === "capture" ? { capture: second.v } : { text: second.v } };
    }
    if (name.v === "match?" && second.t === "string") {
      try {
        return { kind: "match", capture: first.v, regex: new RegExp(second.v) };
      } catch (error) {
        return fail(`#match? ${error instanceof Error ? error.message : String(error)}`, second.at);
      }
    }
    return fail(`unsupported predicate #${name.v}`, name.at);
  };

  const patterns: QueryPattern[] = [];
  while (pos < tokens.length) {
    const predicates: QueryPredicate[] = [];
    const at = peek()?.at;
    const root = step(null, predicates);
    // The matcher looks for a pattern's root by its type.
    if (wildcardRoot(root)) fail("a pattern rooted at a wildcard", at);
    patterns.push({ root, predicates });
  }
  return patterns;
}

function wildcardRoot(step: QueryStep): boolean {
  if (step.kind === "alternation") return step.alternatives.some(wildcardRoot);
  return (step.kind === "node" ? step.type : step.text) === null;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s+|;[^\n]*|"((?:[^"\\]|\\.)*)"|@([\w.-]+)|#([\w-]+[?!]?)|([A-Za-z_][\w.-]*):|([A-Za-z][\w.-]*|_[\w.-]+)|([()[\]._])|(\S)/gy;
  for (let m = re.exec(source); m !== null && m[0] !== ""; m = re.exec(source)) {
    const at = m.index;
    if (m[1] !== undefined) tokens.push({ t: "string", v: unescaped(m[1]), at });
    else if (m[2] !== undefined) tokens.push({ t: "capture", v: internalized(m[2]), at });
    else if (m[3] !== undefined) tokens.push({ t: "predicate", v: m[3], at });
    else if (m[4] !== undefined) tokens.push({ t: "field", v: internalized(m[4]), at });
    else if (m[5] !== undefined) tokens.push({ t: "ident", v: internalized(m[5]), at });
    else if (m[6] !== undefined) tokens.push({ t: m[6] as "(" | ")" | "[" | "]" | "." | "_", at });
    else if (m[7] !== undefined) throw new ComityError("INVALID_ARGUMENT", `query: unsupported syntax '${m[7]}' at offset ${at}`);
  }
  return tokens;
}

/**
 * The engine's one copy of a name (V8 keeps one of each property key): names of captures, types and fields are
 * compared for every capture and node the matcher and the extractors meet, and two such copies compare by address,
 * where substrings of the query's text compare character by character.
 */
export function internalized(s: string): string {
  return Object.keys({ [s]: 0 })[0] ?? s;
}

function unescaped(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", r: "\r", t: "\t", 0: "\0" })[c] ?? c);
}
