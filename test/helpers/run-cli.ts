import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/comity.cjs");

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
  if (!fs.existsSync(path.resolve(path.dirname(BIN), "../dist/cli/main.js"))) {
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
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr, ms: Date.now() - started }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}
