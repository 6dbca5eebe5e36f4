import { spawn } from "node:child_process";
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
 * occurrence, a superset the caller's own reading narrows. `onFile`: each file as git names it, while it still
 * searches (the caller reads it meanwhile, on this thread, instead of after the whole search), then each changed file
 * found here. Only what is returned was found: where git fails part-way, what it named before is not.
 */
export async function filesContaining(repo: SearchedRepo, needles: readonly string[], where: GitConfigEnv, options: { wholeWords?: boolean; onFile?: (file: string) => void } = {}): Promise<string[]> {
  const words = options.wholeWords === true;
  const onFile = options.onFile;
  if (repo.complete !== true) return (await gitGrepFiles(repo.abs, needles, where, true, words, onFile)).sort(compareStrings);
  const found = new Set(await gitGrepFiles(repo.abs, needles, where, false, words, onFile));
  for (const c of repo.changes) {
    if (found.has(c.path)) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(repo.abs, c.path), "utf8");
    } catch {
      continue; // deleted, or a folder
    }
    if (needles.some((n) => text.includes(n))) {
      found.add(c.path);
      onFile?.(c.path);
    }
  }
  return [...found].sort(compareStrings);
}

/** The most `git grep` may print (NUL-separated paths) before it is stopped, and how long it may take. */
const GREP_MAX_BYTES = 64 << 20;
const GREP_TIMEOUT_MS = 20_000;

/**
 * Files of a repo that contain one of the strings, by `git grep`: tracked ones, and untracked ones where asked; each
 * also given to `onFile` as git prints it. None where git fails (past its time or size, or an exit other than 1,
 * which says nothing matched), whatever `onFile` was given before.
 */
function gitGrepFiles(root: string, needles: readonly string[], where: GitConfigEnv, untracked: boolean, words: boolean, onFile: ((file: string) => void) | undefined): Promise<string[]> {
  return new Promise((resolve) => {
    const args = ["grep", "-l", "-z", "-F", ...(words ? ["-w"] : []), ...(untracked ? ["--untracked"] : []), ...needles.flatMap((n) => ["-e", n]), "--", "."];
    const files: string[] = [];
    let rest = "";
    let size = 0;
    let failed = false;
    const child = spawn("git", args, { cwd: root, env: gitProcessEnv(where), stdio: ["ignore", "pipe", "ignore"] });
    const fail = (): void => {
      if (failed) return;
      failed = true;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(fail, GREP_TIMEOUT_MS);
    const finish = (named: string[]): void => {
      clearTimeout(timer);
      resolve(named);
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (failed) return;
      size += chunk.length;
      if (size > GREP_MAX_BYTES) return fail();
      const parts = (rest + chunk).split("\0");
      rest = parts.pop() ?? "";
      for (const f of parts) {
        if (f === "") continue;
        files.push(f);
        onFile?.(f);
      }
    });
    // (no git, or it could not start: as a failed search, whether or not "close" follows)
    child.on("error", () => {
      fail();
      finish([]);
    });
    child.on("close", (code) => {
      // git grep exits 1 when nothing matches.
      if (failed || (code !== 0 && code !== 1)) return finish([]);
      if (rest !== "") {
        files.push(rest);
        onFile?.(rest);
      }
      finish(files);
    });
  });
}
