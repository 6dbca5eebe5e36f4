import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/comity.cjs");

/**
 * The package's `comity-hook` as its install script made it (`scripts/install-hook-client.mjs`), or the build
 * `COMITY_TEST_HOOK_CLIENT` names (the sanitizer build `scripts/native-sanitizers.mjs` runs the client's tests with).
 */
export const HOOK_CLIENT = process.env["COMITY_TEST_HOOK_CLIENT"] || path.resolve(path.dirname(BIN), "comity-hook");

/**
 * Why `comity-hook` is not the native client (it is missing, or the Node script written where no compiler was), or
 * null. Its tests are skipped then, unless `COMITY_TEST_REQUIRE_NATIVE=1` (CI), where global-setup fails instead.
 */
export function hookClientProblem(): string | null {
  let head: Buffer;
  try {
    head = fs.readFileSync(HOOK_CLIENT).subarray(0, 2);
  } catch {
    return "bin/comity-hook is missing (npm ci, or node scripts/install-hook-client.mjs, makes it)";
  }
  if (head.toString("latin1") === "#!") return "bin/comity-hook is the Node script written where the native client could not be built (no C compiler)";
  const source = path.resolve(path.dirname(BIN), "../native/hook-client/comity_hook.c");
  if (fs.statSync(source).mtimeMs > fs.statSync(HOOK_CLIENT).mtimeMs) return "bin/comity-hook is older than native/hook-client/comity_hook.c: run node scripts/install-hook-client.mjs";
  return null;
}

/** Runs `bin/comity-hook` (the native client) as a host runs it: ARGS, the event on stdin, asynchronously. */
export function runHookClientAsync(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string | Buffer; keepStdinOpen?: boolean }): Promise<CliResult & { ms: number }> {
  return runProcessAsync(HOOK_CLIENT, args, options);
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `comity` bin as a subprocess (`npm test` builds `dist/` first). `timeoutMs`: killed past it (its
 * status is then null), for a test whose point is that the command ends.
 */
export function runBuiltCli(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): CliResult {
  if (!fs.existsSync(path.resolve(path.dirname(BIN), "../dist/cli-bundle/main.js"))) {
    throw new Error("dist/ is missing: run `npm run build` (npm test does it first)");
  }
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    input: options.input ?? "",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: "SIGKILL" as const }),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the built bin asynchronously (a test's own HTTP server must keep answering meanwhile). */
export function runBuiltCliAsync(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<CliResult & { ms: number }> {
  return runProcessAsync(process.execPath, [BIN, ...args], options);
}

/** A process, its output gathered; stdin written and ended (or, with `keepStdinOpen`, written and left open). */
function runProcessAsync(
  exe: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string | Buffer; keepStdinOpen?: boolean },
): Promise<CliResult & { ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(exe, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr, ms: Date.now() - started }));
    child.stdin.on("error", () => undefined);
    if (options.keepStdinOpen === true) child.stdin.write(options.input ?? "");
    else child.stdin.end(options.input ?? "");
  });
}
