import * as fs from "node:fs";
import * as path from "node:path";
import { commit, initRepo, type Sandbox } from "./git-fixture.js";

/** A repo with an `origin` remote and one committed TypeScript file (`src/config.ts`): what a hook event needs. */
export function repoWithRemote(sb: Sandbox, name: string, remote = `git@github.com:acme/${name}.git`): string {
  const repo = initRepo(sb, name);
  sb.git(repo, "remote", "add", "origin", remote);
  commit(sb, repo, "src/config.ts", "export function parseConfig(path: string): object {\n  return {};\n}\n");
  return repo;
}

/** The lines of `<config dir>/hook.log` (none when it does not exist). */
export function readHookLog(configDir: string): string[] {
  try {
    return fs
      .readFileSync(path.join(configDir, "hook.log"), "utf8")
      .trim()
      .split("\n")
      .filter((l) => l !== "");
  } catch {
    return [];
  }
}
