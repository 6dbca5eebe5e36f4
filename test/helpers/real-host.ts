import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, HOOK_CLIENT } from "./run-cli.js";

/** The real Claude Code CLI, pinned in devDependencies (`@anthropic-ai/claude-code`). */
export const CLAUDE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../node_modules/.bin/claude");

/**
 * A folder to put first on a session's `PATH`, holding `comity` and `comity-hook` as `npm link` would: the commands
 * the hooks `comity init` writes run there.
 */
export function comityOnPath(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(BIN, path.join(dir, "comity"));
  fs.symlinkSync(HOOK_CLIENT, path.join(dir, "comity-hook"));
  return dir;
}

export interface HostRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time of the whole session, in ms. */
  readonly ms: number;
}

/**
 * One headless Claude Code session (`claude -p`) in `cwd`, its model at `modelUrl`: permissions skipped, as an agent
 * left to work runs, and no traffic but to the model. As root, Claude Code takes `--dangerously-skip-permissions`
 * only with `IS_SANDBOX=1`.
 */
export function runClaude(options: { cwd: string; env: NodeJS.ProcessEnv; modelUrl: string; prompt?: string }): Promise<HostRun> {
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
  };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(CLAUDE_BIN, ["-p", options.prompt ?? "Do the task.", "--dangerously-skip-permissions", "--output-format", "json"], {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}
