import type { Diagnostic } from "../errors/diagnostic.js";

/**
 * How a work tree is attached to its git data: `main` owns its git dir (a
 * `.git` folder, or a `.git` file from `--separate-git-dir`), `worktree` is a
 * linked worktree (`git worktree add`) whose refs, objects and config live in
 * the main repo's common dir, `submodule` is a superproject's submodule.
 */
export type RepoKind = "main" | "worktree" | "submodule";

/** One git work tree found on disk. All paths are absolute and real (symlinks resolved). */
export interface Repo {
  /** The work tree's top folder. */
  readonly root: string;
  /** The folder holding HEAD and the index; null when a `.git` file points nowhere. */
  readonly gitDir: string | null;
  /** The folder holding refs, objects and config (a worktree's `commondir`); else `gitDir`. */
  readonly commonDir: string | null;
  readonly kind: RepoKind;
  /** Root of the innermost repo whose work tree contains this one, if any. */
  readonly parent: string | null;
  readonly diagnostics: readonly Diagnostic[];
}
