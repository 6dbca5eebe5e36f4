import { compareStrings } from "../errors/diagnostic.js";
import type { GitConfigEntry } from "../git/parse-git-config.js";
import { applyInsteadOf, insteadOfRules } from "./apply-instead-of.js";

/** A configured remote with its fetch URLs after `insteadOf` rewriting. */
export interface Remote {
  readonly name: string;
  readonly urls: readonly string[];
}

/**
 * The remotes in a repo's merged config (`remote.<name>.url`, several URLs
 * allowed), each URL rewritten by `url.<base>.insteadOf` from every config
 * level. Sorted by name. Pure: config entries in, remotes out.
 */
export function readRemotes(entries: readonly GitConfigEntry[]): Remote[] {
  const rules = insteadOfRules(entries);
  const byName = new Map<string, string[]>();
  for (const e of entries) {
    if (e.section !== "remote" || e.subsection === null || e.key !== "url") continue;
    const urls = byName.get(e.subsection) ?? [];
    urls.push(applyInsteadOf(e.value, rules));
    byName.set(e.subsection, urls);
  }
  return [...byName.entries()].map(([name, urls]) => ({ name, urls })).sort((a, b) => compareStrings(a.name, b.name));
}

/** The remote a repo's base is measured against: `origin` when present, else the first by name. */
export function primaryRemote(remotes: readonly Remote[]): Remote | null {
  return remotes.find((r) => r.name === "origin") ?? remotes[0] ?? null;
}
