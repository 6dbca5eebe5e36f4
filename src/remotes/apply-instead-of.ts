import type { GitConfigEntry } from "../git/parse-git-config.js";

/** One `url.<base>.insteadOf = <prefix>` rule. */
export interface InsteadOfRule {
  readonly base: string;
  readonly prefix: string;
}

/** The `insteadOf` rules in config entries. */
export function insteadOfRules(entries: readonly GitConfigEntry[]): InsteadOfRule[] {
  return entries.filter((e) => e.section === "url" && e.subsection !== null && e.key === "insteadof").map((e) => ({ base: e.subsection ?? "", prefix: e.value }));
}

/**
 * Rewrites a URL as git does: the longest matching `insteadOf` prefix is
 * replaced by its base; with no match the URL is returned as it is. Pure.
 *
 * @example
 * applyInsteadOf("gh:acme/api", [{ base: "git@github.com:", prefix: "gh:" }]); // 'git@github.com:acme/api'
 */
export function applyInsteadOf(url: string, rules: readonly InsteadOfRule[]): string {
  let best: InsteadOfRule | null = null;
  for (const rule of rules) {
    if (rule.prefix !== "" && url.startsWith(rule.prefix) && (best === null || rule.prefix.length > best.prefix.length)) {
      best = rule;
    }
  }
  return best === null ? url : best.base + url.slice(best.prefix.length);
}
