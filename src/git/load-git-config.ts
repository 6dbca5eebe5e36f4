import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { readTextOrNull, type SyncFs } from "../fs/sync-fs.js";
import { parseGitConfig, type GitConfigEntry } from "./parse-git-config.js";

/** Where git would look for config, injected so that tests never read the real home folder. */
export interface GitConfigEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  /**
   * When a git process that holds this thread (`git status` of a snapshot, `git ls-files`) must have ended (epoch
   * ms): past it, it is killed and counts as failed. A hook sets its own budget here; without one, such a git gets
   * {@link SYNC_GIT_BOUND_MS}. One hung git must never stall a hook or the daemon's thread for ever.
   */
  readonly deadlineAt?: number;
}

/** The longest a git process that holds a thread may run where the caller set no deadline. */
export const SYNC_GIT_BOUND_MS = 60_000;

/** How long a git process that holds a thread may still run, by `where`'s deadline (at least 1 ms). */
export function syncGitTimeoutMs(where: GitConfigEnv, now: number = Date.now()): number {
  return Math.max(1, where.deadlineAt === undefined ? SYNC_GIT_BOUND_MS : Math.min(SYNC_GIT_BOUND_MS, where.deadlineAt - now));
}

/**
 * The config files git reads for a repo, lowest precedence first: system,
 * global (`GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config` then
 * `~/.gitconfig`), the repo's own `config` in its common dir (so a linked
 * worktree reads the main repo's), then `config.worktree`.
 */
export function gitConfigFiles(where: GitConfigEnv, commonDir: string | null, gitDir: string | null): string[] {
  const { env, homeDir } = where;
  const files: string[] = [];
  if (env["GIT_CONFIG_NOSYSTEM"] === undefined || env["GIT_CONFIG_NOSYSTEM"] === "0") {
    files.push(env["GIT_CONFIG_SYSTEM"] ?? "/etc/gitconfig");
  }
  if (env["GIT_CONFIG_GLOBAL"] !== undefined) {
    files.push(env["GIT_CONFIG_GLOBAL"]);
  } else {
    const xdg = env["XDG_CONFIG_HOME"] || path.join(homeDir, ".config");
    files.push(path.join(xdg, "git", "config"), path.join(homeDir, ".gitconfig"));
  }
  if (commonDir !== null) files.push(path.join(commonDir, "config"));
  if (gitDir !== null && gitDir !== commonDir) files.push(path.join(gitDir, "config.worktree"));
  return files;
}

export interface LoadedGitConfig {
  readonly entries: readonly GitConfigEntry[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads and parses config files in order, following `include.path` (relative
 * to the including file, `~/` from the home folder, at most 10 deep). A
 * missing file is skipped; a malformed one is a diagnostic and keeps the
 * entries before the error. `includeIf` sections are not evaluated.
 */
export function loadGitConfig(fs: SyncFs, where: GitConfigEnv, files: readonly string[]): LoadedGitConfig {
  const entries: GitConfigEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const load = (file: string, depth: number): void => {
    const text = readTextOrNull(fs, file);
    if (text === null) return;
    const parsed = parseGitConfig(text);
    if (parsed.error !== null) {
      diagnostics.push(diagnostic("bad_git_config", "warning", file, `line ${parsed.error.line}: ${parsed.error.message}`));
    }
    for (const entry of parsed.entries) {
      entries.push(entry);
      if (entry.section === "include" && entry.subsection === null && entry.key === "path" && depth < 10) {
        const target = entry.value.startsWith("~/") ? path.join(where.homeDir, entry.value.slice(2)) : path.resolve(path.dirname(file), entry.value);
        load(target, depth + 1);
      }
    }
  };
  for (const file of files) load(file, 0);
  return { entries, diagnostics };
}
