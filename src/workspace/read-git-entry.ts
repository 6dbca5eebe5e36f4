import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { readTextOrNull, type SyncFs } from "../fs/sync-fs.js";
import type { RepoKind } from "./repo.js";

/** What a `.git` entry says about where a work tree's git data lives. */
export interface GitEntry {
  readonly gitDir: string | null;
  readonly commonDir: string | null;
  readonly kind: RepoKind;
  readonly diagnostics: Diagnostic[];
}

/**
 * Resolves the `.git` entry of the work tree `root`: a folder is the git dir
 * itself; a file says `gitdir: <path>` (relative to the file), as linked
 * worktrees and submodules write it. A git dir with a `commondir` file is a
 * linked worktree whose refs, objects and config live in that common dir;
 * isomorphic-git does not read `commondir`, so we do.
 */
export function readGitEntry(fs: SyncFs, root: string, isFile: boolean): GitEntry {
  const dotGit = path.join(root, ".git");
  const diagnostics: Diagnostic[] = [];
  let gitDir = dotGit;
  let kind: RepoKind = "main";
  if (isFile) {
    const text = readTextOrNull(fs, dotGit);
    const match = text === null ? null : /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text);
    if (match?.[1] === undefined) {
      diagnostics.push(diagnostic("bad_git_file", "error", dotGit, "`.git` file does not hold a `gitdir:` line"));
      return { gitDir: null, commonDir: null, kind, diagnostics };
    }
    gitDir = path.resolve(root, match[1]);
    if (!isDirectory(fs, gitDir)) {
      diagnostics.push(diagnostic("gitdir_missing", "error", dotGit, `\`.git\` file points to ${gitDir}, which is not a folder`));
      return { gitDir: null, commonDir: null, kind, diagnostics };
    }
    gitDir = realOr(fs, gitDir);
    if (isUnderModules(fs, gitDir)) kind = "submodule";
  }
  let commonDir = gitDir;
  const commonText = readTextOrNull(fs, path.join(gitDir, "commondir"));
  if (commonText !== null && commonText.trim() !== "") {
    commonDir = realOr(fs, path.resolve(gitDir, commonText.trim()));
    kind = "worktree";
    if (!isDirectory(fs, commonDir)) {
      diagnostics.push(diagnostic("commondir_missing", "error", gitDir, `\`commondir\` points to ${commonDir}, which is not a folder`));
      return { gitDir, commonDir: null, kind, diagnostics };
    }
  }
  if (readTextOrNull(fs, path.join(gitDir, "HEAD")) === null) {
    diagnostics.push(diagnostic("not_a_git_dir", "error", gitDir, "git dir has no readable HEAD"));
  }
  return { gitDir, commonDir, kind, diagnostics };
}

/** Submodules keep their git dir under the superproject's git dir: `<gitdir>/modules/<name>`. */
function isUnderModules(fs: SyncFs, gitDir: string): boolean {
  const parts = gitDir.split(path.sep);
  for (let i = parts.lastIndexOf("modules"); i > 0; i = parts.lastIndexOf("modules", i - 1)) {
    const owner = parts.slice(0, i).join(path.sep) || path.sep;
    if (readTextOrNull(fs, path.join(owner, "HEAD")) !== null) return true;
  }
  return false;
}

function isDirectory(fs: SyncFs, p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realOr(fs: SyncFs, p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
