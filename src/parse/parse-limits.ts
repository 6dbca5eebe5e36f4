import { ComityError } from "../errors/comity-error.js";

/**
 * What one parse may spend. tree-sitter's error recovery can loop for ever on a few bytes of half-written code
 * (`<a {{b:>c:d(e f)` as TSX, a known tree-sitter-typescript bug), growing its memory as it goes: every parse path
 * asks tree-sitter's progress callback to stop once either bound is passed.
 */
export interface ParseLimits {
  /** Milliseconds the parse may take. */
  readonly deadlineMs: number;
  /** Bytes the parser may allocate (the native parser counts its arena; web-tree-sitter, its memory's growth). */
  readonly maxBytes: number;
  /**
   * Set by another thread to stop the parse at once (a pool stopping a stuck worker: its native code would not
   * return to be terminated otherwise): the parse stops as at its deadline. Its first element; 0 lets it run.
   */
  readonly cancel?: Int32Array;
}

/**
 * The limits of a text of `length` UTF-16 units: 2 s plus 2 ms per KiB, and 256 MiB plus 64 bytes per unit. Real
 * files parse far inside both (the largest of the benchmark's real corpora, 913 KiB of TypeScript, in about 50 ms
 * and 10 MiB of the native parser's arena); a slow machine keeps room, and a loop is stopped in seconds.
 */
export function defaultParseLimits(length: number): ParseLimits {
  return { deadlineMs: 2000 + (length * 2) / 1024, maxBytes: 256 * 1024 * 1024 + 64 * length };
}

/**
 * Limits that also end at `deadlineAt` (epoch milliseconds, shared by every thread): each parse gets its own limits,
 * cut to the time left, and none once it is past (a caller with a deadline of its own: a hook inside its host's
 * timeout). `base`: the limits before the cut (by default {@link defaultParseLimits}).
 */
export function limitsUntil(deadlineAt: number, base: (length: number) => ParseLimits = defaultParseLimits, now: () => number = Date.now): (length: number) => ParseLimits {
  return (length) => {
    const limits = base(length);
    return { ...limits, deadlineMs: Math.min(limits.deadlineMs, Math.max(0, deadlineAt - now())) };
  };
}

/**
 * Each parse's limits under a caller's options: `fixed` limits for every text (else each text's
 * {@link defaultParseLimits}), cut at `deadlineAt` when there is one.
 */
export function parseLimitsOf(options: { readonly parseLimits?: ParseLimits | null; readonly deadlineAt?: number | null }): (length: number) => ParseLimits {
  const fixed = options.parseLimits;
  const base = fixed === undefined || fixed === null ? defaultParseLimits : () => fixed;
  return options.deadlineAt === undefined || options.deadlineAt === null ? base : limitsUntil(options.deadlineAt, base);
}

/** Whether limits leave a parse no time at all (then it is not started). */
export function noTimeLeft(limits: ParseLimits): boolean {
  return limits.deadlineMs <= 0;
}

/** The error every parse path throws past its limits (`PARSE_TIMEOUT`), whether the clock or the memory ran out. */
export function parseOverBudget(reason: "deadline" | "memory", limits: ParseLimits): ComityError {
  return new ComityError(
    "PARSE_TIMEOUT",
    reason === "memory"
      ? `the parse used more than ${Math.round(limits.maxBytes / 1048576)} MiB and was stopped`
      : noTimeLeft(limits)
        ? "no time was left to parse it"
        : `the parse took longer than ${Math.round(limits.deadlineMs)} ms and was stopped`,
  );
}

/** Whether an error is a parse stopped at its limits. */
export function isParseOverBudget(error: unknown): error is ComityError {
  return error instanceof ComityError && error.code === "PARSE_TIMEOUT";
}
