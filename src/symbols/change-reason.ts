/** Why a change has its verdict: a stable code (griffe's names for Python, like names for TypeScript). */
export interface ChangeReason {
  readonly code: string;
  readonly verdict: "breaking" | "compatible";
  /** True when only a type's text changed and syntax cannot tell widening from narrowing: a conservative guess. */
  readonly conservative: boolean;
  readonly message: string;
}

/** A reason, built with a fixed key order. */
export function reason(code: string, verdict: "breaking" | "compatible", message: string, conservative = false): ChangeReason {
  return { code, verdict, conservative, message };
}
