import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { repoWithRemote } from "../helpers/hook-fixture.js";
import { runBuiltCli, runBuiltCliAsync } from "../helpers/run-cli.js";
import { api, FP, startServe, STORAGES, type RunningServe } from "../helpers/serve-fixture.js";

/** An evaluate body built by hand, for the HTTP-level cases. */
const body = (session: string, event: string, extra: Record<string, unknown> = {}, key = `${session}-${event}-${Math.random()}`) => ({
  event,
  dedupe_key: key,
  session: { external_id: session, tool: "claude_code" },
  repo: { remote_fingerprints: [FP("acme/api")], branch: "main" },
  ...extra,
});

describe.each(STORAGES)("comity serve end to end ($name)", (storage) => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  let db: { spec: string; cleanup: () => Promise<void> };
  let serve: RunningServe;
  let token: string;

  const createToken = (team: string): string => {
    const r = runBuiltCli(["serve", "token", "create", "--team", team, "--db", db.spec], { cwd: sb.dir, env });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`new token [0-9a-f]{12} for team '${team}'`));
    return r.stdout.trim();
  };

  beforeEach(async () => {
    sb = createSandbox();
    env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "comity-config") };
    const opened = await storage.open();
    await opened.db.close(); // the CLI opens its own
    db = { spec: opened.spec, cleanup: opened.cleanup };
    token = createToken("acme");
  });
  afterEach(async () => {
    await serve?.stop();
    await db.cleanup().catch(() => undefined);
    sb.cleanup();
  });

  it("answers health without a token, and refuses bad tokens, oversize and malformed bodies", async () => {
    serve = await startServe(["--db", db.spec], env);
    // A person who starts a server learns where its dashboard is.
    expect(serve.banner).toContain(`the team's dashboard is at ${serve.url}/`);
    expect((await fetch(`${serve.url}/`)).status).toBeLessThan(500);
    const port = new URL(serve.url).port;
    expect(await api(serve.url, "GET", "/v1/health")).toEqual({
      status: 200,
      json: {
        status: "ok",
        storage: storage.name,
        version: expect.any(String),
        replica: expect.stringMatching(new RegExp(`:${port}$`)),
        peers: [{ id: expect.stringMatching(new RegExp(`:${port}$`)), address: `127.0.0.1:${port}`, version: expect.any(String), started_at: expect.any(Number), seen_ms_ago: expect.any(Number) }],
      },
    });
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { body: body("a", "prompt") })).status).toBe(401);
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token: `${token}x`, body: body("a", "prompt") })).status).toBe(401);
    expect((await api(serve.url, "GET", "/v1/sessions", { token: "cmt_nope" })).status).toBe(401);
    const huge = JSON.stringify(body("a", "prompt", { prompt_excerpt: "x".repeat(1024 * 1024) }));
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, raw: huge })).toMatchObject({ status: 413, json: { error: "payload_too_large" } });
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, raw: '{"event": ' })).toMatchObject({ status: 400, json: { error: "invalid_json" } });
    // Streamed without a length, the body is cut off as soon as it passes 1 MiB.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = http.request(new URL("/v1/hooks/evaluate", serve.url), { method: "POST", headers: { authorization: `Bearer ${token}`, "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 40) {
          sent++;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end();
      };
      pump();
    });
    expect(streamed).toBe(413);
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: { ...body("a", "pre_edit"), paths: ["ok", 7] } })).toMatchObject({
      status: 400,
      json: { error: "invalid_request", field: "/paths/1" },
    });
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: { ...body("a", "teleport") } })).toMatchObject({ status: 400, json: { field: "/event" } });
    const { dedupe_key: _k, ...noKey } = body("a", "prompt");
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: noKey })).toMatchObject({ status: 400, json: { field: "/dedupe_key", message: "/dedupe_key is required" } });
    expect((await api(serve.url, "GET", "/v1/nothing", { token })).status).toBe(404);
    // One request asks for at most 1,000 symbol changes: more is a 413 saying so.
    const changes = (n: number) => Array.from({ length: n }, (_, i) => ({ qualified_name: `f${i}`, kind: "function", change: "removed", compatibility: "breaking" }));
    const many = {
      ...body("a", "post_edit"),
      analysis: [
        { path: "a.ts", changes: changes(600) },
        { path: "b.ts", changes: changes(401) },
      ],
    };
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: many })).toMatchObject({
      status: 413,
      json: { error: "too_much_work", message: expect.stringContaining("1001 changes in one request (at most 1000)") },
    });
    // A NUL character, which PostgreSQL cannot store, is a 400 naming the field on every storage.
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("a", "prompt", { prompt_excerpt: "a\u0000b" }) })).toMatchObject({
      status: 400,
      json: { error: "invalid_request", field: "/prompt_excerpt" },
    });
    expect(await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: { ...body("a", "pre_edit"), paths: ["ok", "src/\u0000.ts"] } })).toMatchObject({
      status: 400,
      json: { field: "/paths/1" },
    });
    // Nothing above was applied.
    expect((await api(serve.url, "GET", "/v1/sessions", { token })).json).toEqual({ sessions: [], conflicts: [] });
  });

  it("keeps teams apart, replays a dedupe key, and expires a silent session after the lease", async () => {
    const other = createToken("other");
    serve = await startServe(["--db", db.spec, "--lease-seconds", "1"], env);
    const first = await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("a", "pre_edit", { paths: ["src/a.ts"] }, "key-1") });
    expect(first.json).toMatchObject({ decision: "allow", intent: { ref: "INT-1" } });
    const replay = await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("a", "pre_edit", { paths: ["src/a.ts"] }, "key-1") });
    expect(replay.json).toEqual(first.json);
    const otherTeam = await api(serve.url, "POST", "/v1/hooks/evaluate", { token: other, body: body("o", "pre_edit", { paths: ["src/a.ts"] }) });
    expect(otherTeam.json).toMatchObject({ decision: "allow", conflicts: [] });
    expect((await api(serve.url, "GET", "/v1/sessions", { token: other })).json.sessions.map((s: { external_id: string }) => s.external_id)).toEqual(["o"]);
    const sessions = (await api(serve.url, "GET", "/v1/sessions", { token })).json.sessions;
    expect(sessions).toMatchObject([{ external_id: "a", event_count: 1, intents: [{ ref: "INT-1", paths: ["src/a.ts"] }] }]);
    const second = await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("b", "pre_edit", { paths: ["src/a.ts"] }) });
    // The default policy, first_contact: the first edit that meets a conflict is denied once, with the warning.
    expect(second.json).toMatchObject({ decision: "block", conflicts: [{ ref: "CF-1", kind: "edit_conflict" }], intent: null });
    // The lease (1 s here) lapses: a and b are no longer listed, and no longer hold the file.
    await until(async () => (await api(serve.url, "GET", "/v1/sessions", { token })).json.sessions.length === 0);
    const late = await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("c", "pre_edit", { paths: ["src/a.ts"] }) });
    expect(late.json).toMatchObject({ decision: "allow", conflicts: [] });
    expect((await api(serve.url, "GET", "/v1/sessions", { token })).json.sessions.map((s: { external_id: string }) => s.external_id)).toEqual(["c"]);
  });

  it("lists a team's tokens without their secrets, and revokes one with effect at the next request", async () => {
    serve = await startServe(["--db", db.spec], env);
    const made = runBuiltCli(["serve", "token", "create", "--team", "acme", "--name", "ci machine", "--db", db.spec], { cwd: sb.dir, env });
    const second = made.stdout.trim();
    const id = /new token ([0-9a-f]{12}) \(ci machine\)/.exec(made.stderr)?.[1] as string;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token: second, body: body("a", "prompt") })).status).toBe(200);
    // The last-use write is off the request's path: it lands soon after.
    const used = new RegExp(`${id}\\s+ci machine\\s+\\S+\\s+\\d{4}-`);
    let list = runBuiltCli(["serve", "token", "list", "--team", "acme", "--db", db.spec], { cwd: sb.dir, env });
    await until(async () => used.test((list = runBuiltCli(["serve", "token", "list", "--team", "acme", "--db", db.spec], { cwd: sb.dir, env })).stdout));
    expect(list.status).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CREATED\s+LAST USED$/);
    expect(lines).toHaveLength(3);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+ci machine\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\\s+\\d{4}-`));
    expect(list.stdout).toContain("never"); // the first token was never used
    expect(list.stdout).not.toContain(second.slice(4, 20));
    expect(list.stdout).not.toContain(token.slice(4, 20));
    const revoked = runBuiltCli(["serve", "token", "revoke", id, "--db", db.spec], { cwd: sb.dir, env });
    expect(revoked).toMatchObject({ status: 0, stdout: expect.stringContaining(`revoked token ${id} (ci machine) of team 'acme'`) });
    // At the very next request, with no grace period.
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token: second, body: body("a", "prompt") })).status).toBe(401);
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("a", "prompt") })).status).toBe(200);
    expect(runBuiltCli(["serve", "token", "revoke", id, "--db", db.spec], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining(`no token with id '${id}'`) });
  });

  it("answers 429 with Retry-After to an address that keeps sending unknown tokens, while a real token from it still works", async () => {
    serve = await startServe(["--db", db.spec], env);
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("b", "prompt") })).status).toBe(200); // a real client at work
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await api(serve.url, "POST", "/v1/hooks/evaluate", { token: `cmt_guess${i}`, body: body("a", "prompt") })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    const limited = await new Promise<{ status: number; retry: string | undefined }>((resolve, reject) => {
      http
        .get(new URL("/v1/sessions", serve.url), { headers: { authorization: "Bearer cmt_nope" } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, retry: res.headers["retry-after"] as string | undefined });
        })
        .on("error", reject);
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.retry)).toBeGreaterThan(0);
    expect(Number(limited.retry)).toBeLessThanOrEqual(10);
    // The real client's token worked from this address lately: it is still looked up, and still works.
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token, body: body("b", "prompt") })).status).toBe(200);
  });

  it("is what comity doctor checks: the API answers and accepts the token", async () => {
    serve = await startServe(["--db", db.spec], env);
    const doctor = (tok: string) => runBuiltCli(["doctor", "--json"], { cwd: sb.dir, env: { ...env, COMITY_API_URL: serve.url, COMITY_TOKEN: tok } });
    const checks = (r: { stdout: string }) => (JSON.parse(r.stdout) as { checks: Array<{ id: string; status: string }> }).checks.filter((c) => c.id.startsWith("api"));
    expect(checks(doctor(token))).toEqual([
      expect.objectContaining({ id: "api", status: "ok", detail: expect.stringMatching(new RegExp(`answers \\(comity serve [0-9.]+, ${storage.name}\\)$`)) }),
      expect.objectContaining({ id: "api.token", status: "ok" }),
    ]);
    expect(checks(doctor("cmt_wrong"))).toEqual([expect.objectContaining({ id: "api", status: "ok" }), expect.objectContaining({ id: "api.token", status: "fail" })]);
  });

  describe("two agents through their hooks", () => {
    let repo: string;
    let hookEnv: NodeJS.ProcessEnv;
    beforeEach(async () => {
      serve = await startServe(["--db", db.spec], env);
      repo = repoWithRemote(sb, "api");
      hookEnv = { ...env, COMITY_API_URL: serve.url, COMITY_TOKEN: token };
    });
    const hook = (tool: string, event: string, payload: Record<string, unknown>) =>
      runBuiltCliAsync(["hook", "--tool", tool, "--event", event], { cwd: repo, env: hookEnv, input: JSON.stringify({ cwd: repo, hook_event_name: event, ...payload }) });
    const claude = (session: string) => ({ session_id: session, transcript_path: "/tmp/t.jsonl" });
    const codex = (session: string) => ({ session_id: session, transcript_path: null, model: "gpt-5-codex", turn_id: "turn-1" });
    const context = (stdout: string): string => (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    const denial = (stdout: string): string => {
      const out = (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
      expect(out.permissionDecision).toBe("deny");
      return out.permissionDecisionReason;
    };
    const file = (rel: string) => path.join(repo, rel);

    it("the second editor of a file is denied once, before its edit, with the first one's warning in its native output", async () => {
      // Nobody else yet: the engine's own briefing of the repo.
      expect(context((await hook("claude_code", "SessionStart", { ...claude("claude-a"), source: "startup" })).stdout)).toBe("## api\n- Working on main\n- No uncommitted changes\n");
      const pre = await hook("claude_code", "PreToolUse", {
        ...claude("claude-a"),
        tool_name: "Edit",
        tool_input: { file_path: file("src/config.ts"), old_string: "a", new_string: "b" },
        tool_use_id: "a1",
      });
      expect(pre).toMatchObject({ status: 0, stdout: "" });

      const start = await hook("codex", "SessionStart", { ...codex("codex-b"), source: "startup" });
      expect(context(start.stdout)).toMatch(/Claude Code session claude-a \(".+", branch `main`, in `[^`]+`\), since just now; files `src\/config\.ts`/);
      const patch = "*** Begin Patch\n*** Update File: src/config.ts\n@@\n-a\n+b\n*** End Patch";
      const cx = await hook("codex", "PreToolUse", { ...codex("codex-b"), tool_name: "apply_patch", tool_input: { command: patch }, tool_use_id: "b1" });
      expect(cx.status).toBe(0);
      expect(JSON.parse(cx.stdout).hookSpecificOutput.hookEventName).toBe("PreToolUse");
      expect(denial(cx.stdout)).toMatch(
        /CF-\d+ edit_conflict: `src\/config\.ts` is also being changed by Claude Code session claude-a \(".+", branch `main`, in `[^`]+`\), which holds it since just now/,
      );
      // The retry of the same change is allowed.
      expect((await hook("codex", "PreToolUse", { ...codex("codex-b"), tool_name: "apply_patch", tool_input: { command: patch }, tool_use_id: "b2" })).stdout).toBe("");

      // Claude Code reads PreToolUse context beside the tool's result: the news that codex-b joined comes with it.
      const again = await hook("claude_code", "PreToolUse", {
        ...claude("claude-a"),
        tool_name: "Edit",
        tool_input: { file_path: file("src/config.ts"), old_string: "a", new_string: "b" },
        tool_use_id: "a2",
      });
      expect(context(again.stdout)).toMatch(/Codex session codex-b \(".+", branch `main`, in `[^`]+`\) started editing `src\/config\.ts`/);
      const post = await hook("claude_code", "PostToolUse", { ...claude("claude-a"), tool_name: "Edit", tool_input: { file_path: file("src/config.ts") }, tool_response: {}, tool_use_id: "a2" });
      expect(post.stdout).not.toMatch(/Codex session codex-b/);

      // comity status reads the same from the server: both sessions holding the file, and the conflict, told.
      const st = await runBuiltCliAsync(["status", "--json"], { cwd: repo, env: hookEnv });
      expect(st.status).toBe(0);
      const report = JSON.parse(st.stdout) as {
        mode: string;
        source: string;
        repos: string[];
        sessions: Array<{ external_id: string; tool: string; intents: Array<{ paths: string[] }> }>;
        conflicts: Array<{ ref: string; kind: string; told: boolean }>;
      };
      expect(report).toMatchObject({ mode: "served", source: serve.url, repos: [expect.stringMatching(/^[0-9a-f]{64}$/)] });
      expect(report.sessions.map((x) => [x.external_id, x.tool, [...new Set(x.intents.flatMap((i) => i.paths))]])).toEqual([
        ["claude-a", "claude_code", ["src/config.ts"]],
        ["codex-b", "codex", ["src/config.ts"]],
      ]);
      expect(report.conflicts).toEqual([expect.objectContaining({ kind: "edit_conflict", told: true })]);
      const text = await runBuiltCliAsync(["status"], { cwd: repo, env: hookEnv });
      expect(text.stdout).toContain(`Coordination: team API ${serve.url}`);
      expect(text.stdout).toMatch(/\nCF-\d+ +edit_conflict +src\/config\.ts +\S+ codex-b +\S+ claude-a +yes\n/);
      const refused = await runBuiltCliAsync(["status"], { cwd: repo, env: { ...hookEnv, COMITY_TOKEN: "cmt_wrong" } });
      expect(refused).toMatchObject({ status: 2, stderr: expect.stringContaining("rejects the token (HTTP 401)") });
    });

    it("finds the API through comity login when the host does not pass COMITY_API_URL and COMITY_TOKEN", async () => {
      const login = runBuiltCli(["login", "--url", serve.url, "--token-stdin"], { cwd: repo, env, input: `${token}\n` });
      expect(login).toMatchObject({ status: 0, stdout: expect.stringContaining("api.json") });
      const saved = path.join(env["COMITY_CONFIG_DIR"] as string, "api.json");
      expect(fs.statSync(saved).mode & 0o777).toBe(0o600);
      await hook("claude_code", "PreToolUse", { ...claude("claude-a"), tool_name: "Edit", tool_input: { file_path: file("src/config.ts"), old_string: "a", new_string: "b" }, tool_use_id: "a1" });
      const patch = "*** Begin Patch\n*** Update File: src/config.ts\n@@\n-a\n+b\n*** End Patch";
      const bare = { ...env };
      delete bare["COMITY_API_URL"];
      delete bare["COMITY_TOKEN"];
      const cx = await runBuiltCliAsync(["hook", "--tool", "codex", "--event", "PreToolUse"], {
        cwd: repo,
        env: bare,
        input: JSON.stringify({ cwd: repo, hook_event_name: "PreToolUse", ...codex("codex-b"), tool_name: "apply_patch", tool_input: { command: patch }, tool_use_id: "b1" }),
      });
      expect(denial(cx.stdout)).toContain("is also being changed by Claude Code session claude-a");
      const doctor = runBuiltCli(["doctor", "--json"], { cwd: repo, env: bare });
      expect((JSON.parse(doctor.stdout) as { checks: Array<{ id: string; detail: string }> }).checks.find((c) => c.id === "api.token")?.detail).toBe("accepted (saved by comity login)");
      expect(runBuiltCli(["login", "--url", "ftp://x", "--token", "t"], { cwd: repo, env })).toMatchObject({ status: 2 });
    });

    it("a breaking change by one session reaches the other at its next prompt", async () => {
      // Claude starts using parseConfig in a new file.
      fs.writeFileSync(file("src/use.ts"), 'import { parseConfig } from "./config";\nexport const settings = parseConfig("app.json");\n');
      const used = await hook("claude_code", "PostToolUse", { ...claude("claude-b"), tool_name: "Write", tool_input: { file_path: file("src/use.ts") }, tool_response: {}, tool_use_id: "u1" });
      expect(used).toMatchObject({ status: 0, stdout: "" });
      // Codex adds a required parameter to parseConfig.
      const patch =
        "*** Begin Patch\n*** Update File: src/config.ts\n@@\n-export function parseConfig(path: string): object {\n+export function parseConfig(path: string, strict: boolean): object {\n*** End Patch";
      fs.writeFileSync(file("src/config.ts"), "export function parseConfig(path: string, strict: boolean): object {\n  return {};\n}\n");
      const changed = await hook("codex", "PostToolUse", { ...codex("codex-a"), tool_name: "apply_patch", tool_input: { command: patch }, tool_response: "ok", tool_use_id: "c1" });
      expect(changed.status).toBe(0);
      expect(context(changed.stdout)).toMatch(
        /your change to `parseConfig` \(.*PARAMETER_ADDED_REQUIRED: .+\) in `src\/config\.ts` breaks code of Claude Code session claude-b \(".+", branch `main`, in `[^`]+`\), which uses it in `src\/use\.ts`/,
      );

      const prompt = await hook("claude_code", "UserPromptSubmit", { ...claude("claude-b"), prompt: "carry on" });
      expect(JSON.parse(prompt.stdout).hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
      expect(context(prompt.stdout)).toMatch(
        /`parseConfig` in `src\/config\.ts` was changed incompatibly by Codex session codex-a \(".+", branch `main`, in `[^`]+`\): .*PARAMETER_ADDED_REQUIRED: .+ \(local, not committed\)\. Your code uses it in `src\/use\.ts`\./,
      );
      const next = await hook("claude_code", "UserPromptSubmit", { ...claude("claude-b"), prompt: "and then?" });
      expect(next.stdout).toBe("");
    });
  });
});

describe("comity serve arguments", () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = createSandbox();
  });
  afterAll(() => sb.cleanup());

  it("rejects bad arguments with exit code 2 and creates tokens only for valid team names", () => {
    const env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "cfg") };
    expect(runBuiltCli(["serve", "--port", "99999"], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining("is not a port") });
    expect(runBuiltCli(["serve", "token", "create"], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining("needs --team") });
    expect(runBuiltCli(["serve", "token", "create", "--team", "no spaces"], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining("team name") });
    expect(runBuiltCli(["serve", "--db", "mysql://x/y"], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining("unsupported URL") });
    expect(runBuiltCli(["serve", "policy", "--team", "ghost"], { cwd: sb.dir, env })).toMatchObject({ status: 2, stderr: expect.stringContaining("no team named 'ghost'") });
    const made = runBuiltCli(["serve", "token", "create", "--team", "acme"], { cwd: sb.dir, env });
    expect(made.stdout).toMatch(/^cmt_[A-Za-z0-9_-]{43}\n$/);
    expect(fs.statSync(path.join(sb.dir, "cfg", "serve.sqlite")).mode & 0o777).toBe(0o600);
    expect(runBuiltCli(["serve", "policy", "--team", "acme", "block"], { cwd: sb.dir, env }).stdout).toBe("acme: block\n");
    expect(runBuiltCli(["serve", "policy", "--team", "acme"], { cwd: sb.dir, env }).stdout).toBe("acme: block\n");
  });
});

/** Resolves once `condition` holds, asking again every 50 ms; fails after 10 s. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await condition()); ) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 10 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}
