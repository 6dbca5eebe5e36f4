import type { ReferenceRecord } from "./types.js";

/**
 * The references the after version makes that the before version did not:
 * a session that starts calling `parseConfig` now depends on it. Both lists
 * are sorted and de-duplicated (as `extractReferences` returns them); so is
 * the result. Pure.
 */
export function newReferences(before: readonly ReferenceRecord[], after: readonly ReferenceRecord[]): ReferenceRecord[] {
  const key = (r: ReferenceRecord): string => `${r.kind}\0${r.name}\0${r.module ?? ""}`;
  const old = new Set(before.map(key));
  return after.filter((r) => !old.has(key(r)));
}
