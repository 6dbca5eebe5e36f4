import * as path from "node:path";
import ignore, { type Ignore } from "ignore";
import { configBool, configValue, type GitConfigEntry } from "../git/parse-git-config.js";

/** The rules of one `.gitignore` file (or of the repo-wide excludes), scoped to a folder. */
export interface IgnoreLevel {
  /** Repo-relative POSIX folder the patterns are relative to; "" for the root. */
  readonly base: string;
  /** The rules' text, so a level can be rebuilt in a worker thread. */
  readonly text: string;
  readonly matcher: Ignore;
}

/** Builds one level from a `.gitignore` text. */
export function ignoreLevel(base: string, text: string, ignoreCase: boolean): IgnoreLevel {
  return { base, text, matcher: ignore({ ignorecase: ignoreCase }).add(text) };
}

/**
 * Whether `rel` (repo-relative POSIX; a folder ends with `/`) is ignored by
 * the stack of levels, outermost first: as in git, the deepest `.gitignore`
 * with a matching rule decides, then `.git/info/exclude`, then
 * `core.excludesFile`. Folders that are ignored are never entered, so each
 * test looks at the path itself, not its parents.
 */
export function isIgnored(levels: readonly IgnoreLevel[], rel: string): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i];
    if (level === undefined) continue;
    const sub = level.base === "" ? rel : rel.slice(level.base.length + 1);
    const r = level.matcher.checkIgnore(sub);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/** `core.ignorecase` from config (false when unset, as on Linux). */
export function configIgnoreCase(entries: readonly GitConfigEntry[]): boolean {
  return configBool(entries, "core", "ignorecase") === true;
}

/** Where `core.excludesFile` points, with its default of `$XDG_CONFIG_HOME/git/ignore`. */
export function excludesFilePath(entries: readonly GitConfigEntry[], env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const v = configValue(entries, "core", "excludesfile");
  if (v !== undefined) return v.startsWith("~/") ? path.join(homeDir, v.slice(2)) : v;
  const xdg = env["XDG_CONFIG_HOME"] || path.join(homeDir, ".config");
  return path.join(xdg, "git", "ignore");
}
