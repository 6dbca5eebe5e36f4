/**
 * Stable error codes. A code never changes meaning once released; callers
 * (and the CLI's exit codes) switch on it instead of on message text.
 */
export type ErrorCode =
  | "ROOT_NOT_FOUND"
  | "ROOT_NOT_A_DIRECTORY"
  | "ROOT_UNREADABLE"
  | "INVALID_ARGUMENT"
  /** A parse stopped at its deadline or memory bound (`src/parse/parse-limits.ts`): the file counts as not parsing. */
  | "PARSE_TIMEOUT"
  /** `comity daemon` found another daemon answering on its socket. */
  | "DAEMON_RUNNING"
  | "INTERNAL";

/**
 * The one error class of the library, thrown only when a whole run cannot go
 * on (a missing root folder, say). A problem with one repo or one file is a
 * {@link Diagnostic} in the result instead.
 *
 * @example
 * try { discoverRepos("/nope"); } catch (e) {
 *   if (e instanceof ComityError && e.code === "ROOT_NOT_FOUND") { ... }
 * }
 */
export class ComityError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ComityError";
    this.code = code;
  }

  toJSON(): { name: string; code: ErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}
