import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, initRepo, type Sandbox } from "../helpers/git-fixture.js";
import { BIN, runBuiltCliAsync } from "../helpers/run-cli.js";

// `comity status --web`: the dashboard over this machine's embedded store, signed in by a one-time link.

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  sb = createSandbox();
  env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "..", "cfg") };
});
afterEach(() => sb.cleanup());

describe("comity status --web", () => {
  it("prints a one-time link that signs in once, shows the local sessions, and updates when a hook process writes the store", async () => {
    const repo = initRepo(sb, "app");
    const hook = (session: string) =>
      runBuiltCliAsync(["hook", "--tool", "claude_code", "--event", "PreToolUse"], {
        cwd: repo,
        env: { ...env, COMITY_AGENT_NAME: session },
        input: JSON.stringify({
          session_id: session,
          cwd: repo,
          hook_event_name: "PreToolUse",
          tool_name: "Edit",
          tool_input: { file_path: path.join(repo, "README.md") },
          tool_use_id: `t-${session}`,
        }),
      });
    await hook("alice");
    const child = spawn(process.execPath, [BIN, "status", "--web"], { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const link = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const m = /Open once to sign in: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{16}\/signin\?once=\S+)/.exec(out);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      // Every page is under a path of this launch's own, and the cookie is scoped to it (a browser sends a cookie of
      // 127.0.0.1 to every port: no other local server gets this one unless asked for that path).
      const base = link.slice(0, link.indexOf("/signin"));
      const prefix = new URL(base).pathname;
      expect((await fetch(`${new URL(link).origin}/`, { redirect: "manual" })).status).toBe(404);
      expect((await fetch(`${base}/`, { redirect: "manual" })).status).toBe(303);
      const first = await fetch(link, { redirect: "manual" });
      expect(first.status).toBe(303);
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect(cookie).toMatch(/^comity_dashboard=/);
      expect(first.headers.get("set-cookie")).toContain(`; Path=${prefix}/; HttpOnly; SameSite=Strict`);
      // The link works once. Another browser that opens it is told to run status --web again (there are no tokens to
      // paste here); the browser it signed in, opening it again, is still signed in.
      const used = await fetch(link, { redirect: "manual" });
      expect(used.headers.get("set-cookie") ?? "").not.toMatch(/comity_dashboard=/);
      const usedPage = await used.text();
      expect(usedPage).toContain("Run <code>comity status --web</code> again for a new link.");
      expect(usedPage).not.toContain("Team token");
      const again = await fetch(link, { redirect: "manual", headers: { cookie } });
      expect([again.status, again.headers.get("location")]).toEqual([303, `${prefix}/`]);
      const page = await (await fetch(`${base}/`, { headers: { cookie } })).text();
      expect(page).toContain("team <strong>this machine</strong>");
      expect(page).toMatch(/1 active session/);
      // Another hook process writes the store: the stream says so within about a second.
      const stream = await fetch(`${base}/events`, { headers: { cookie } });
      const reader = stream.body?.getReader();
      await hook("bob");
      let seen = "";
      const deadline = Date.now() + 5000;
      while (!seen.includes("event: change") && Date.now() < deadline) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        seen += new TextDecoder().decode(chunk.value);
      }
      expect(seen).toContain("event: change");
      await reader?.cancel();
      expect(await (await fetch(`${base}/?fragment=1`, { headers: { cookie } })).text()).toMatch(/2 active sessions, 1 open conflict/);
    } finally {
      child.kill("SIGTERM");
    }
  }, 30_000);
});
