import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { readHookLog, repoWithRemote } from "../helpers/hook-fixture.js";
import { startRecordingServer, type RecordingServer } from "../helpers/recording-server.js";
import { BIN, runBuiltCli } from "../helpers/run-cli.js";
import { HANGING_TSX } from "../helpers/hanging-code.js";

// Half-written code on which the TSX grammar's parse never ends, through the built CLI as users meet it: each
// command ends (a command still running at the guard's limit is killed, and its status is null), exits as it should,
// and says which file it could not parse. The guard is far above the deadlines (2 s a parse by default, 3 s for a
// hook's analysis): it only tells an end from a hang.
const GUARD_MS = 45_000;

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let configDir: string;
beforeEach(() => {
  sb = createSandbox();
  configDir = path.join(sb.dir, "..", "config");
  env = { ...sb.env, COMITY_CONFIG_DIR: configDir };
});
afterEach(() => sb.cleanup());

describe("files whose parse never ends", () => {
  it("comity symbols: each is a parse_timeout, the other files' symbols come through, on one thread and in a pool", () => {
    // Enough files for a pool (32): with --jobs 2, two workers parse them.
    const hanging = HANGING_TSX.slice(0, 2);
    const files: string[] = [];
    hanging.forEach((text, i) => {
      files.push(path.relative(sb.dir, sb.write(`hang${i}.tsx`, text)));
    });
    for (let i = 0; i < 32; i++) files.push(path.relative(sb.dir, sb.write(`ok${i}.ts`, `export function f${i}(a: number): number { return a; }\n`)));
    for (const jobs of ["1", "2"]) {
      const r = runBuiltCli(["symbols", "--json", "--no-cache", "--jobs", jobs, ...files], { cwd: sb.dir, env, timeoutMs: GUARD_MS });
      expect(r.status, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { files: Array<{ path: string; symbols: Array<{ name: string }>; diagnostics: Array<{ code: string }> }> };
      expect(doc.files.filter((f) => f.diagnostics.some((d) => d.code === "parse_timeout")).map((f) => f.path)).toEqual(files.slice(0, hanging.length));
      expect(doc.files.slice(hanging.length).map((f) => f.symbols.map((s) => s.name).join())).toEqual(Array.from({ length: 32 }, (_, i) => `f${i}`));
    }
  });

  it("comity analyze: an uncommitted hanging file is reported as not analysed, never as its symbols removed", () => {
    const repo = repoWithRemote(sb, "app");
    fs.writeFileSync(path.join(repo, "src/view.tsx"), HANGING_TSX[0]);
    const r = runBuiltCli(["analyze", "--json", repo], { cwd: sb.dir, env, timeoutMs: GUARD_MS });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { repos: Array<{ changes: Array<{ path: string; symbols: unknown }>; diagnostics: Array<{ code: string; path: string | null }> }> };
    expect(report.repos[0]?.changes.find((c) => c.path === "src/view.tsx")?.symbols).toBeNull();
    expect(report.repos[0]?.diagnostics.filter((d) => d.code === "parse_timeout").map((d) => d.path)).toEqual(["src/view.tsx"]);
  });

  describe("the hook", () => {
    let server: RecordingServer;
    beforeEach(async () => {
      server = await startRecordingServer();
    });
    afterEach(async () => server.close());

    const hook = (event: string, payload: Record<string, unknown>, cwd: string, extra: NodeJS.ProcessEnv = {}, killAfterMs = GUARD_MS) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) => {
        // Asynchronous: the test's own server must keep answering meanwhile.
        const child = spawn(process.execPath, [BIN, "hook", "--tool", "claude_code", "--event", event], {
          cwd,
          env: { ...env, COMITY_API_URL: server.url, COMITY_TOKEN: "t", ...extra },
          stdio: ["pipe", "pipe", "ignore"],
        });
        let stdout = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
        const guard = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
        child.on("close", (status) => {
          clearTimeout(guard);
          resolve({ status, stdout });
        });
        child.stdin.end(JSON.stringify({ session_id: "s1", transcript_path: "/t", cwd, hook_event_name: event, ...payload }));
      });

    it("PostToolUse sends the hanging file as one that does not parse; SessionStart briefs on the repo all the same", async () => {
      const repo = repoWithRemote(sb, "app");
      const file = path.join(repo, "src/view.tsx");
      fs.writeFileSync(file, HANGING_TSX[0]);
      const post = await hook("PostToolUse", { tool_name: "Write", tool_input: { file_path: file, content: HANGING_TSX[0] }, tool_response: {}, tool_use_id: "t1" }, repo);
      expect(post.status).toBe(0);
      const sent = server.requests.find((q) => q.body["event"] === "post_edit")?.body["analysis"] as Array<Record<string, unknown>>;
      expect(sent.map((a) => [a["path"], a["parse_error"], a["changes"]])).toEqual([["src/view.tsx", true, []]]);
      const start = await hook("SessionStart", { source: "startup" }, repo);
      expect(start.status).toBe(0);
      expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain("src/view.tsx");
      expect(readHookLog(configDir)).toEqual([]);
    });

    it("PostToolUse analyses 8,000 nested functions inside the host's timeout (a parent walk per node was quadratic)", async () => {
      const repo = repoWithRemote(sb, "app");
      const file = path.join(repo, "src/deep.ts");
      const n = 8000;
      fs.writeFileSync(file, `export ${Array.from({ length: n }, (_, i) => `function f${i}(a: number) {\n`).join("")}${"}\n".repeat(n)}`);
      // Killed at the host's timeout (5 s), as Claude Code would: the answer must be there before.
      const post = await hook("PostToolUse", { tool_name: "Write", tool_input: { file_path: file, content: "" }, tool_response: {}, tool_use_id: "t1" }, repo, {}, 5000);
      expect(post.status).toBe(0);
      const body = server.requests.find((q) => q.body["event"] === "post_edit")?.body as Record<string, unknown>;
      expect(body["analysis_truncated"]).toBeUndefined();
      expect((body["analysis"] as Array<{ path: string; symbols: Array<{ name: string }> }>).map((a) => [a.path, a.symbols.map((x) => x.name)])).toEqual([["src/deep.ts", ["f0"]]]);
    });

    it("with more changed files than its time allows, sends what it analysed and says the rest was cut", async () => {
      const repo = repoWithRemote(sb, "app");
      // Each file's parse takes its whole deadline: the hook's 3 s run out after the second, and the rest are sent
      // as paths.
      const files = HANGING_TSX.map((text, i) => {
        const f = path.join(repo, `src/v${i}.tsx`);
        fs.writeFileSync(f, text);
        return f;
      });
      sb.git(repo, "add", "-A");
      // A shell command that changes all of them: its snapshots name every one.
      const pre = await hook("PreToolUse", { tool_name: "Bash", tool_input: { command: "touch src/x" }, tool_use_id: "t3" }, repo);
      expect(pre.status).toBe(0);
      for (const f of files) fs.appendFileSync(f, " ");
      const shell = await hook("PostToolUse", { tool_name: "Bash", tool_input: { command: "touch src/x" }, tool_response: {}, tool_use_id: "t3" }, repo);
      expect(shell.status).toBe(0);
      const body = server.requests.filter((q) => q.body["event"] === "post_edit").at(-1)?.body as Record<string, unknown>;
      expect(body["paths"]).toEqual(files.map((f) => path.relative(repo, f)));
      expect(body["analysis_truncated"]).toBe(true);
      expect((body["analysis"] as unknown[]).length).toBeLessThan(files.length);
    });
  });
});

describe("comity hook exits 0 whatever happens", () => {
  const payload = JSON.stringify({ session_id: "s1", transcript_path: "/t", cwd: "/", hook_event_name: "UserPromptSubmit", prompt: "go on" });

  it("when a module of the package is missing (an upgrade half done): nothing printed, one hook.log line", () => {
    const pkg = path.join(sb.dir, "pkg");
    const here = path.resolve(path.dirname(BIN), "..");
    fs.mkdirSync(pkg);
    for (const part of ["bin", "dist", "package.json"]) fs.cpSync(path.join(here, part), path.join(pkg, part), { recursive: true });
    fs.symlinkSync(path.join(here, "node_modules"), path.join(pkg, "node_modules"));
    // (the CLI runs from its bundle: the chunk holding the hook's own modules, render-output.js among them)
    const chunk = fs.readdirSync(path.join(pkg, "dist/cli-bundle")).find((f) => f.startsWith("hook-path-"));
    expect(chunk).toBeDefined();
    fs.rmSync(path.join(pkg, "dist/cli-bundle", chunk as string));
    const r = spawnSync(process.execPath, [path.join(pkg, "bin/comity.cjs"), "hook", "--tool", "claude_code", "--event", "UserPromptSubmit"], {
      input: payload,
      env,
      encoding: "utf8",
      timeout: GUARD_MS,
    });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, "", ""]);
    const log = readHookLog(configDir);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/\tfail-open\tclaude_code\tUserPromptSubmit\t.*hook-path-[\w-]+\.js/);
  });

  it("when the process runs out of file descriptors", () => {
    const prlimit = spawnSync("prlimit", ["--version"]);
    if (prlimit.status !== 0) return void expect.soft(prlimit.error, "prlimit (util-linux) is not installed: this check did not run").toBeUndefined();
    // The fewest descriptors Node itself starts with here; the hook gets that and a few more, and runs out somewhere
    // in its modules, its config or its store.
    const least = [8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32].find((n) => spawnSync("prlimit", [`--nofile=${n}`, process.execPath, "-e", "require('fs').readFileSync(process.execPath)"]).status === 0);
    expect(least).toBeDefined();
    for (let n = least as number; n < (least as number) + 10; n++) {
      const r = spawnSync("prlimit", [`--nofile=${n}`, process.execPath, BIN, "hook", "--tool", "claude_code", "--event", "UserPromptSubmit"], {
        input: payload,
        env,
        encoding: "utf8",
        timeout: GUARD_MS,
      });
      expect([n, r.status, r.stdout, r.stderr]).toEqual([n, 0, "", ""]);
    }
  });
});
