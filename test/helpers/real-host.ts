import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type HostRun, type ModelStep, runClaude as runClaudeAt, type ScriptedModel, type ScriptedStep, seenByModel } from "../../benchmarks/scripted-model.mjs";
import { commit, createSandbox, initRepo, type Sandbox } from "./git-fixture.js";
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

/** A repo `app` with `files` committed, its worktree `app-feature`, and the environment its agents' hosts run in. */
export interface TwoWorktrees {
  readonly sb: Sandbox;
  readonly main: string;
  readonly wt: string;
  readonly configDir: string;
  /** `comity` and `comity-hook` of this checkout first on PATH, the daemon on (as a user has it), its own config folder. */
  readonly env: NodeJS.ProcessEnv;
}

export function twoWorktrees(files: Readonly<Record<string, string>>): TwoWorktrees {
  const sb = createSandbox();
  const main = initRepo(sb, "app");
  for (const [file, text] of Object.entries(files)) commit(sb, main, file, text);
  const wt = path.join(sb.dir, "app-feature");
  sb.git(main, "worktree", "add", "-q", "-b", "feature", wt);
  const configDir = path.join(sb.dir, "..", "comity-config");
  const bin = comityOnPath(path.join(sb.dir, "..", "bin"));
  // The sandbox turns the daemon off for the rest of the suite; here it runs, and the test ends it. A host's last
  // hook can outlive the host's own exit and, finding no daemon, start one after the test has removed the sandbox:
  // that one ends itself after a minute idle, not the 30 minutes (8 hours with HTTP hooks) a user's daemon waits.
  const { COMITY_DAEMON: _off, ...rest } = sb.env;
  return {
    sb,
    main,
    wt,
    configDir,
    env: { ...rest, PATH: `${bin}${path.delimiter}${sb.env["PATH"] ?? ""}`, COMITY_CONFIG_DIR: configDir, COMITY_DAEMON_IDLE_MS: "60000" },
  };
}

/**
 * Two sessions at once: A makes its edits and stays open; once they are done (A's model has the last one's result),
 * B runs its whole script; then A ends. `start` makes a model of a script; `run` runs a host's session on it, as
 * `alice` (A, in the repo) or `bob` (B, in the worktree). Both must exit 0. What each model saw, and B's run.
 */
export async function twoSessions(
  a: readonly ModelStep[],
  b: readonly ModelStep[],
  start: (script: readonly ScriptedStep[]) => Promise<ScriptedModel>,
  run: (who: "alice" | "bob", model: ScriptedModel) => Promise<HostRun>,
): Promise<{ a: ReturnType<typeof seenByModel>; b: ReturnType<typeof seenByModel>; runB: HostRun }> {
  let bDone: () => void = () => undefined;
  const bFinished = new Promise<void>((resolve) => {
    bDone = resolve;
  });
  const modelA = await start([
    ...a,
    async () => {
      await bFinished;
      return { text: "A done" };
    },
  ]);
  const modelB = await start([...b, { text: "B done" }]);
  const runA = run("alice", modelA);
  await modelA.waitForRequests(a.length + 1);
  let runB: HostRun;
  try {
    runB = await run("bob", modelB);
  } finally {
    bDone();
  }
  const ranA = await runA;
  if (ranA.code !== 0 || runB.code !== 0) throw new Error(`a session failed: A exit ${ranA.code} ${ranA.stderr.slice(-2000)}; B exit ${runB.code} ${runB.stderr.slice(-2000)}`);
  return { a: seenByModel(modelA.requests), b: seenByModel(modelB.requests), runB };
}
