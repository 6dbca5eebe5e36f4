import * as path from "node:path";
import { nodeSyncFs, type SyncFs } from "../fs/sync-fs.js";
import type { Repo } from "./repo.js";

/** Where one path belongs: its repo and its POSIX path relative to the repo root (`.` for the root). */
export interface Route {
  readonly repo: Repo;
  readonly path: string;
}

/** Routes paths to the innermost repo whose work tree contains them. */
export interface Router {
  /**
   * The owner of `target` (absolute, or relative to `cwd`), or null when no
   * repo owns it: outside every work tree, or inside a `.git` folder.
   */
  route(target: string, cwd?: string): Route | null;
  /** {@link Router.route} for many paths; one answer per input, in input order. */
  routeAll(targets: readonly string[], cwd?: string): Array<Route | null>;
}

export interface RouterOptions {
  readonly fs?: SyncFs;
}

/**
 * Builds a router once from discovered repos. A lookup costs one map probe
 * per path segment, whatever the number of repos; symlinked folders are
 * resolved (a folder's real path is computed once per router), and paths
 * that do not exist yet are routed by their nearest existing folder.
 *
 * @example
 * const router = createRouter(discoverRepos(".").repos);
 * router.route("packages/api/src/new-file.ts")?.repo.root;
 */
export function createRouter(repos: readonly Repo[], options: RouterOptions = {}): Router {
  const fs = options.fs ?? nodeSyncFs;
  const byRoot = new Map<string, Repo>();
  for (const repo of repos) byRoot.set(repo.root, repo);
  const realDirs = new Map<string, string>();

  const realPath = (abs: string): string => {
    const dir = path.dirname(abs);
    if (dir === abs) return abs;
    let realDir = realDirs.get(dir);
    if (realDir === undefined) {
      realDir = realFolder(fs, dir, realPath);
      realDirs.set(dir, realDir);
    }
    const base = path.basename(abs);
    // The last segment may itself be a symlinked folder (a path naming a folder).
    const joined = path.join(realDir, base);
    if (base === "." || base === "..") return joined;
    try {
      if (fs.lstatSync(joined).isSymbolicLink()) return fs.realpathSync(joined);
    } catch {
      // does not exist yet: route by its folder
    }
    return joined;
  };

  const route = (target: string, cwd: string = process.cwd()): Route | null => {
    const abs = realPath(path.resolve(cwd, target));
    for (let dir = abs; ; dir = path.dirname(dir)) {
      const repo = byRoot.get(dir);
      if (repo !== undefined) {
        const rel = path.relative(dir, abs).split(path.sep).join("/");
        if (rel === ".git" || rel.startsWith(".git/")) return null;
        return { repo, path: rel === "" ? "." : rel };
      }
      if (path.dirname(dir) === dir) return null;
    }
  };

  return {
    route,
    routeAll: (targets, cwd) => targets.map((t) => route(t, cwd)),
  };
}

function realFolder(fs: SyncFs, dir: string, realOfChild: (p: string) => string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    // Missing folder (a file about to be created in a new folder): resolve its parent.
    return realOfChild(dir);
  }
}
