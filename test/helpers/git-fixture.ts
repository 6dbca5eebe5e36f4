import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { GitConfigEnv } from "../../src/git/load-git-config.js";

/** A temp folder with a pinned git environment: no user or system config leaks into fixtures. */
export interface Sandbox {
  /** Real path of the sandbox's work folder. */
  readonly dir: string;
  /** The global config file fixtures' git (and the engine, through `configEnv`) reads. */
  readonly globalConfig: string;
  readonly env: NodeJS.ProcessEnv;
  readonly configEnv: GitConfigEnv;
  git(cwd: string, ...args: string[]): string;
  write(rel: string, text: string): string;
  cleanup(): void;
}

export function createSandbox(): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "comity-test-")));
  const dir = path.join(base, "work");
  const home = path.join(base, "home");
  fs.mkdirSync(dir);
  fs.mkdirSync(home);
  const globalConfig = path.join(home, ".gitconfig");
  fs.writeFileSync(globalConfig, '[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[protocol "file"]\n\tallow = always\n[user]\n\tname = Fixture\n\temail = fixture@example.com\n');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: home,
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    LANG: "C",
    // Hooks run the event in their own process unless a test asks for the daemon (test/daemon/): a daemon per
    // sandbox would outlive it and answer the next test's hooks.
    COMITY_DAEMON: "off",
  };
  return {
    dir,
    globalConfig,
    env,
    configEnv: { env: { GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: "1" }, homeDir: home },
    git: (cwd, ...args) => execFileSync("git", args, { cwd: path.resolve(dir, cwd), env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    write: (rel, text) => {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
    // (retried: a host CLI a test ran may still be writing its own files under the sandbox's home as it exits)
    cleanup: () => fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }),
  };
}

/** `git init` plus one commit with a file, so HEAD exists. */
export function initRepo(sb: Sandbox, rel: string, file = "README.md"): string {
  const root = path.join(sb.dir, rel);
  fs.mkdirSync(root, { recursive: true });
  sb.git(root, "init", "-q");
  fs.writeFileSync(path.join(root, file), `# ${rel}\n`);
  sb.git(root, "add", "-A");
  sb.git(root, "commit", "-q", "-m", "init");
  return root;
}

/** A commit on the current branch touching `file`. */
export function commit(sb: Sandbox, root: string, file: string, text: string): string {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
  sb.git(root, "add", "-A");
  sb.git(root, "commit", "-q", "-m", `edit ${file}`);
  return sb.git(root, "rev-parse", "HEAD").trim();
}
