/**
 * Variables that would point git at another repo, index or work tree than the one asked about (a hook runs inside
 * the host's environment, which may be a git hook's own, with GIT_DIR set).
 */
export const REPO_SELECTING_GIT_ENV: ReadonlySet<string> = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_CEILING_DIRECTORIES",
]);

/**
 * The environment of every git process Comity starts, one policy for all of them: the caller's environment (which
 * also says where git reads its config: GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM, XDG_CONFIG_HOME, ...) with HOME as
 * `where` says, without the variables that select another repo (the repo is the process's folder), and with
 * GIT_OPTIONAL_LOCKS=0 (Comity only reads: it must never take git's index lock from an agent's own git) unless
 * `writesIndex` says the process writes an index of Comity's own.
 */
export function gitProcessEnv(
  where: { readonly env: Readonly<Record<string, string | undefined>>; readonly homeDir: string },
  options: { readonly writesIndex?: boolean } = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(where.env)) if (v !== undefined && !REPO_SELECTING_GIT_ENV.has(k)) env[k] = v;
  env["HOME"] = where.homeDir;
  env["PATH"] ??= process.env["PATH"] ?? "/usr/bin:/bin";
  if (options.writesIndex === true) delete env["GIT_OPTIONAL_LOCKS"];
  else env["GIT_OPTIONAL_LOCKS"] = "0";
  return env;
}
