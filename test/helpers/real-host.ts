import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type HostRun, runClaude as runClaudeAt } from "../../benchmarks/scripted-model.mjs";
import { BIN, HOOK_CLIENT } from "./run-cli.js";

export type { HostRun };

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

/** One headless session of the pinned Claude Code (benchmarks/scripted-model.mjs says how it is run). */
export function runClaude(options: { cwd: string; env: NodeJS.ProcessEnv; modelUrl: string; prompt?: string }): Promise<HostRun> {
  return runClaudeAt({ bin: CLAUDE_BIN, ...options });
}

/** The real Codex CLI, pinned in devDependencies (`@openai/codex`). */
export const CODEX_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../node_modules/.bin/codex");
