import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";
import { gitProcessEnv } from "../git/git-process-env.js";
import type { GitConfigEnv } from "../git/load-git-config.js";

/** A repo as a search of its files sees it: where it is, and its changed files when that list is whole. */
export interface SearchedRepo {
  readonly abs: string;
  readonly changes: ReadonlyArray<{ readonly path: string }>;
  /**
   * Whether `changes` lists every file that differs from HEAD, untracked ones included (an analysed repo): then git
   * searches tracked files only and these are read directly, instead of git walking for untracked files again (on a
   * large monorepo, that walk is most of the search).
   */
  readonly complete?: boolean;
}

/**
 * A repo's tracked and untracked (not ignored) files that contain one of the strings, sorted: candidates, for the
 * caller to read. `wholeWords`: git matches them as words (`git grep -w`); the changed files read here are kept on any
 * occurrence, a superset the caller's own reading narrows.
 */
export async function filesContaining(repo: SearchedRepo, needles: readonly string[], where: GitConfigEnv, options: { wholeWords?: boolean } = {}): Promise<string[]> {
  const words = options.wholeWords === true;
  if (repo.complete !== true) return (await gitGrepFiles(repo.abs, needles, where, { untracked: true, words })).sort(compareStrings);
  const found = new Set(await gitGrepFiles(repo.abs, needles, where, { untracked: false, words }));
  for (const c of repo.changes) {
    if (found.has(c.path)) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(repo.abs, c.path), "utf8");
    } catch {
      continue; // deleted, or a folder
    }
    if (needles.some((n) => text.includes(n))) found.add(c.path);
  }
  return [...found].sort(compareStrings);
}

/** Files of a repo that contain one of the strings, by `git grep`: tracked ones, and untracked ones where asked. */
function gitGrepFiles(root: string, needles: readonly string[], where: GitConfigEnv, options: { untracked: boolean; words: boolean }): Promise<string[]> {
  return new Promise((resolve) => {
    const args = ["grep", "-l", "-z", "-F", ...(options.words ? ["-w"] : []), ...(options.untracked ? ["--untracked"] : []), ...needles.flatMap((n) => ["-e", n]), "--", "."];
    execFile("git", args, { cwd: root, env: gitProcessEnv(where), maxBuffer: 64 << 20, timeout: 20_000 }, (error, stdout) => {
      // git grep exits 1 when nothing matches.
      if (error !== null && (error as { code?: unknown }).code !== 1) return resolve([]);
      resolve(stdout.split("\0").filter((f) => f !== ""));
    });
  });
}
