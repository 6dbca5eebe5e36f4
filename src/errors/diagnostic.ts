/** How bad a diagnostic is: `error` means a value in the result is missing because of it. */
export type Severity = "error" | "warning" | "info";

/**
 * A problem with one repo, folder or file, reported in the result instead of
 * aborting the run. `path` is POSIX and relative to the analysed folder when
 * it is reported at the boundary (the library keeps absolute paths inside).
 */
export interface Diagnostic {
  readonly code: string;
  readonly severity: Severity;
  readonly path: string | null;
  readonly message: string;
}

/** Builds a diagnostic with a fixed key order (stable JSON). */
export function diagnostic(code: string, severity: Severity, path: string | null, message: string): Diagnostic {
  return { code, severity, path, message };
}

/** Order on (path, code, message); never `localeCompare`, which follows `LANG`. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return compareStrings(a.path ?? "", b.path ?? "") || compareStrings(a.code, b.code) || compareStrings(a.message, b.message);
}

/** UTF-16 code-unit string order: deterministic and independent of locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
