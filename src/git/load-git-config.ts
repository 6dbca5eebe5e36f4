import { spawnSync } from "node:child_process";
import * as path from "node:path";
import * as nodeFs from "node:fs";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { readTextOrNull, type SyncFs } from "../fs/sync-fs.js";
import { gitProcessEnv } from "./git-process-env.js";
import { parseGitConfig, type GitConfigEntry } from "./parse-git-config.js";
import { parseHead } from "./read-refs.js";
import { wildmatch } from "./wildmatch.js";

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
  /**
   * How such a git is started where not by Node's fork: the daemon passes the native addon's posix_spawn
   * (`native/spawn_capture.c`), as each fork of its large process costs more. It kills git past its timeout; null
   * for a git that failed, could not start or was killed.
   */
  readonly spawn?: GitSpawn;
  /**
   * Where answers about the git binary are kept between processes (a one-shot hook is a new process each event):
   * the system config file each git build names, by the binary's path, size and change time.
   */
  readonly gitFacts?: GitFactsCache;
}

/** A small store of what a git binary says about itself, by a key that changes when the binary does. */
export interface GitFactsCache {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

/** Starts `file` with `args` and this exact environment, and gives its whole stdout once it exits 0. */
export type GitSpawn = (file: string, args: readonly string[], env: readonly string[], timeoutMs: number) => Buffer | null;

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
    files.push(env["GIT_CONFIG_SYSTEM"] ?? systemGitConfig(where));
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

/** The system config file of the git on each PATH, as that git says. */
const systemConfigs = new Map<string, string>();

/**
 * Where the git on `where`'s PATH keeps its system config: its build decides (`/etc/gitconfig` for Debian's,
 * `$(brew --prefix)/etc/gitconfig` for Homebrew's), so git is asked, once per PATH in a process (`git config --system
 * --edit` with `echo` as the editor prints the file's path). `/etc/gitconfig` where git cannot say.
 */
export function systemGitConfig(where: GitConfigEnv): string {
  const key = where.env["PATH"] ?? "";
  const known = systemConfigs.get(key);
  if (known !== undefined) return known;
  // Kept across processes by the binary it came from: asking git costs a process start each hook event otherwise.
  const binary = gitBinaryKey(key);
  const kept = binary === null ? null : (where.gitFacts?.get(`system-config\0${binary}`) ?? null);
  if (kept !== null && path.isAbsolute(kept)) {
    if (systemConfigs.size < 16) systemConfigs.set(key, kept);
    return kept;
  }
  const env = gitProcessEnv(where);
  delete env["GIT_CONFIG_SYSTEM"];
  delete env["GIT_CONFIG_NOSYSTEM"];
  env["GIT_EDITOR"] = "echo";
  const r = spawnSync("git", ["config", "--system", "--edit"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 2000, killSignal: "SIGKILL" });
  const said = r.status === 0 ? r.stdout.trim() : "";
  const file = path.isAbsolute(said) && !said.includes("\n") ? said : "/etc/gitconfig";
  if (systemConfigs.size < 16) systemConfigs.set(key, file);
  // (only what git said: a guess is not kept)
  if (binary !== null && file === said) where.gitFacts?.set(`system-config\0${binary}`, file);
  return file;
}

/** The git binary first on PATH, as its real path, size and change time (a rebuilt or upgraded git is another key); null where there is none. */
function gitBinaryKey(pathEnv: string): string | null {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (dir === "") continue;
    try {
      const file = path.join(dir, "git");
      const st = nodeFs.statSync(file);
      if (!st.isFile()) continue;
      return `${nodeFs.realpathSync(file)}\0${st.size}\0${Math.round(st.ctimeMs)}`;
    } catch {
      // not here
    }
  }
  return null;
}

export interface LoadedGitConfig {
  readonly entries: readonly GitConfigEntry[];
  readonly diagnostics: readonly Diagnostic[];
}

/** What a repo's conditional includes are evaluated against: its git folder (as found, and real), and HEAD. */
export interface IncludeContext {
  /** The repo's git folder (a linked worktree's own, under the main repo's `worktrees/`), or null. */
  readonly gitDir: string | null;
}

/**
 * Reads and parses config files in order, following `include.path` (relative
 * to the including file, `~/` from the home folder, at most 10 deep) and, for
 * a repo (`context`), `includeIf` as git evaluates it: `gitdir:` and
 * `gitdir/i:` against the repo's git folder (its real path, then as found),
 * `onbranch:` against HEAD's branch, and `hasconfig:remote.*.url:` against the
 * remote URLs the other files set. A missing file is skipped; a malformed one
 * is a diagnostic and keeps the entries before the error.
 */
export function loadGitConfig(fs: SyncFs, where: GitConfigEnv, files: readonly string[], context: IncludeContext | null = null): LoadedGitConfig {
  const branch = context?.gitDir === null || context === null ? null : branchOf(readTextOrNull(fs, path.join(context.gitDir, "HEAD")));
  const gitDirs = context?.gitDir === null || context === null ? [] : gitDirTexts(fs, context.gitDir);
  const read = (urls: readonly string[] | null): LoadedGitConfig => {
    const entries: GitConfigEntry[] = [];
    const diagnostics: Diagnostic[] = [];
    const load = (file: string, depth: number, viaHasconfig: boolean): void => {
      const text = readTextOrNull(fs, file);
      if (text === null) return;
      const parsed = parseGitConfig(text);
      if (parsed.error !== null) {
        diagnostics.push(diagnostic("bad_git_config", "warning", file, `line ${parsed.error.line}: ${parsed.error.message}`));
      }
      for (const entry of parsed.entries) {
        // git refuses remote URLs from a file a `hasconfig:remote.*.url` condition brought in.
        if (viaHasconfig && entry.section === "remote" && entry.key === "url") continue;
        entries.push(entry);
        if (entry.key !== "path" || depth >= 10) continue;
        const target = (): string => (entry.value.startsWith("~/") ? path.join(where.homeDir, entry.value.slice(2)) : path.resolve(path.dirname(file), entry.value));
        if (entry.section === "include" && entry.subsection === null) load(target(), depth + 1, viaHasconfig);
        else if (entry.section === "includeif" && entry.subsection !== null) {
          const holds = includeHolds(entry.subsection, { file, homeDir: where.homeDir, gitDirs, branch, urls });
          if (holds !== false) load(target(), depth + 1, viaHasconfig || holds === "hasconfig");
        }
      }
    };
    for (const file of files) load(file, 0, false);
    return { entries, diagnostics };
  };
  // hasconfig's remote URLs are those of the whole config read without it.
  const first = read(null);
  if (!first.entries.some((e) => e.section === "includeif" && e.subsection?.startsWith("hasconfig:") === true)) return first;
  const urls = first.entries.filter((e) => e.section === "remote" && e.key === "url").map((e) => e.value);
  return read(urls);
}

/** HEAD's branch (without `refs/heads/`), or null when HEAD is detached or unreadable. */
function branchOf(head: string | null): string | null {
  const h = parseHead(head);
  return h.kind === "symbolic" && h.ref.startsWith("refs/heads/") ? h.ref.slice("refs/heads/".length) : null;
}

/** The git folder as git matches `gitdir:` against it: its real path first, then its absolute path. */
function gitDirTexts(fs: SyncFs, gitDir: string): string[] {
  const absolute = path.resolve(gitDir);
  let real = absolute;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    // not there: as found
  }
  return real === absolute ? [absolute] : [real, absolute];
}

/**
 * Whether an `includeIf` condition holds: true, false, or "hasconfig" (it holds, and the file it brings in may not set
 * remote URLs). With no remote URLs known yet (`urls` null), a `hasconfig:` condition does not hold. An unknown
 * condition never holds, as in git.
 */
function includeHolds(condition: string, at: { file: string; homeDir: string; gitDirs: readonly string[]; branch: string | null; urls: readonly string[] | null }): boolean | "hasconfig" {
  const gitdir = /^gitdir(\/i)?:(.*)$/s.exec(condition);
  if (gitdir !== null) {
    const caseFold = gitdir[1] !== undefined;
    let pattern = gitdir[2] as string;
    // Expanded as text (path.join would drop a trailing slash, which means "and everything under").
    if (pattern.startsWith("~/")) pattern = `${at.homeDir.replace(/\/+$/, "")}/${pattern.slice(2)}`;
    else if (pattern.startsWith("./")) pattern = `${path.dirname(at.file).replace(/\/+$/, "")}/${pattern.slice(2)}`;
    if (!pattern.startsWith("/")) pattern = `**/${pattern}`;
    if (pattern.endsWith("/")) pattern = `${pattern}**`;
    return at.gitDirs.some((text) => wildmatch(pattern, text, { pathname: true, caseFold }));
  }
  const onbranch = /^onbranch:(.*)$/s.exec(condition);
  if (onbranch !== null) {
    if (at.branch === null) return false;
    let pattern = onbranch[1] as string;
    if (pattern.endsWith("/")) pattern = `${pattern}**`;
    return wildmatch(pattern, at.branch, { pathname: true });
  }
  const hasconfig = /^hasconfig:remote\.\*\.url:(.*)$/s.exec(condition);
  if (hasconfig !== null) {
    if (at.urls === null) return false;
    const pattern = hasconfig[1] as string;
    return at.urls.some((url) => wildmatch(pattern, url)) ? "hasconfig" : false;
  }
  return false;
}
