/// <reference lib="dom" />
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";
import { api, FP, startServe, type RunningServe } from "../helpers/serve-fixture.js";

// The dashboard in a real headless Chromium (Debian's `chromium`, driven by puppeteer-core): sign in, watch two
// agents collide and a breaking change appear without a reload, look at every page with axe-core, switch the
// policy, sign out; another team sees none of it; nothing answers without a sign-in.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => fs.existsSync(p));
const require = createRequire(import.meta.url);

describe.runIf(CHROMIUM !== undefined)("the dashboard, in a browser", () => {
  let sb: Sandbox;
  let serve: RunningServe;
  let db: string;
  let tokens: Record<string, string>;
  let browser: import("puppeteer-core").Browser;

  const token = (team: string, ...extra: string[]): string => {
    const r = runBuiltCli(["serve", "token", "create", "--team", team, ...extra, "--db", db], { cwd: sb.dir, env: sb.env });
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };
  let n = 0;
  const event = (session: string, ev: string, extra: Record<string, unknown> = {}, team = "acme") =>
    api(serve.url, "POST", "/v1/hooks/evaluate", {
      token: tokens[team] as string,
      body: {
        event: ev,
        dedupe_key: `k${++n}`,
        session: { external_id: session, tool: session.startsWith("cx") ? "codex" : "claude_code", label: session.startsWith("cx") ? "bob" : "alice" },
        repo: { remote_fingerprints: [FP("acme/app")], branch: "main", cwd_path: ".", packages: [{ name: "@acme/app", path: ".", ecosystem: "npm" }] },
        ...extra,
      },
    });

  beforeAll(async () => {
    sb = createSandbox();
    db = path.join(sb.dir, "serve.sqlite");
    tokens = { acme: "", reader: "", globex: "" };
    tokens["acme"] = token("acme");
    tokens["reader"] = token("acme", "--read-only", "--name", "lead");
    tokens["globex"] = token("globex");
    serve = await startServe(["--db", db], { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "cfg") });
    const puppeteer = (await import("puppeteer-core")).default;
    browser = await puppeteer.launch({ executablePath: CHROMIUM as string, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    sb?.cleanup();
  });

  /** Serious or critical axe-core findings on the page as it is now. */
  const axe = async (page: import("puppeteer-core").Page): Promise<string[]> => {
    await page.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
    const violations = await page.evaluate(
      async () => (await (window as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string | null; help: string }> }> } }).axe.run()).violations,
    );
    return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
  };
  const signIn = async (page: import("puppeteer-core").Page, t: string) => {
    await page.goto(`${serve.url}/`, { waitUntil: "domcontentloaded" });
    expect(new URL(page.url()).pathname).toBe("/signin");
    await page.type("#token", t);
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("button[type=submit]")]);
  };
  const text = (page: import("puppeteer-core").Page) => page.evaluate(() => document.body.innerText);

  it("answers nothing without a sign-in: pages redirect to it, the stream and fragments are 401", async () => {
    const get = (p: string) => fetch(`${serve.url}${p}`, { redirect: "manual" });
    for (const p of ["/", "/repos/0000", "/sessions/0000"]) {
      const r = await get(p);
      expect([r.status, r.headers.get("location")], p).toEqual([303, "/signin"]);
    }
    for (const p of ["/events", "/?fragment=1", "/repos/0000?fragment=1"]) expect((await get(p)).status, p).toBe(401);
    expect((await fetch(`${serve.url}/policy`, { method: "POST", body: "policy=block", headers: { "content-type": "application/x-www-form-urlencoded" }, redirect: "manual" })).status).toBe(401);
    // A read-only token is the dashboard's only: hooks cannot use it.
    expect((await api(serve.url, "POST", "/v1/hooks/evaluate", { token: tokens["reader"] as string, body: {} })).status).toBe(403);
  });

  it("signs in, shows two agents colliding and a breaking change as they happen, and every page passes axe-core", async () => {
    const page = await browser.newPage();
    await page.setBypassCSP(true); // axe-core is injected by the test, not served
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${serve.url}/signin`, { waitUntil: "domcontentloaded" });
    expect(await axe(page)).toEqual([]);
    await signIn(page, tokens["acme"] as string);
    expect(await text(page)).toContain("No agents yet: run comity init in a repo");
    await page.waitForFunction(() => document.getElementById("live")?.dataset["state"] === "live", { timeout: 10_000 });
    expect(await axe(page)).toEqual([]);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    // Two agents on one file, through the API the hooks use; the page follows without a reload.
    await event("cc-alice-0001", "session_start");
    await event("cx-bob-0002", "session_start");
    expect((await event("cc-alice-0001", "pre_edit", { paths: ["src/config.ts"] })).json.decision).toBe("allow");
    expect((await event("cx-bob-0002", "pre_edit", { paths: ["src/config.ts"] })).json.decision).toBe("block");
    await page.waitForFunction(() => document.body.innerText.includes("edit_conflict"), { timeout: 5_000 });
    expect(await text(page)).toMatch(/2 active sessions, 1 open conflict/);
    await event("cc-alice-0001", "post_edit", {
      paths: ["src/config.ts"],
      analysis: [
        {
          path: "src/config.ts",
          changes: [
            {
              qualified_name: "parseConfig",
              kind: "function",
              change: "signature_changed",
              compatibility: "breaking",
              reasons: [{ code: "PARAMETER_ADDED_REQUIRED", message: "required parameter strict added" }],
            },
          ],
        },
      ],
    });
    await page.waitForFunction(() => document.body.innerText.includes("parseConfig"), { timeout: 5_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42); // no reload
    expect(await text(page)).toContain("PARAMETER_ADDED_REQUIRED: required parameter strict added");
    expect(await axe(page)).toEqual([]);
    // The README's picture: rewritten only when asked (COMITY_UPDATE_SCREENSHOT=1), so a test run leaves the tree as it was.
    await page.screenshot({ path: process.env["COMITY_UPDATE_SCREENSHOT"] === "1" ? path.join(root, "docs", "dashboard.png") : path.join(sb.dir, "dashboard.png") });

    // The repo page and a session page.
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("a[href^='/repos/']")]);
    const repoText = await text(page);
    expect(repoText).toContain("@acme/app");
    expect(repoText).toMatch(/alice · Claude Code cc-alice/);
    expect(repoText).toMatch(/bob · Codex cx-bob-0/);
    expect(repoText).toContain("told");
    expect(await axe(page)).toEqual([]);
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("a[href^='/sessions/']")]);
    expect(await text(page)).toMatch(/Events, in order[\s\S]*session_start[\s\S]*pre_edit/);
    expect(await axe(page)).toEqual([]);

    // At a phone's width nothing runs off the side.
    await page.setViewport({ width: 375, height: 800 });
    await page.goto(`${serve.url}/`, { waitUntil: "domcontentloaded" });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);

    // The policy switch (a team token), then sign out.
    await page.select("#policy", "block");
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click(".policy button")]);
    expect(runBuiltCli(["serve", "policy", "--team", "acme", "--db", db], { cwd: sb.dir, env: sb.env }).stdout).toBe("acme: block\n");
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("nav form button")]);
    expect(new URL(page.url()).pathname).toBe("/signin");
    await page.goto(`${serve.url}/`, { waitUntil: "domcontentloaded" });
    expect(new URL(page.url()).pathname).toBe("/signin");
    await page.close();
  }, 90_000);

  it("a sign-in's pages past its bound: the newest goes live, the oldest says it is paused until reloaded", async () => {
    // One person's five tabs (one browser context: one cookie), one over the sign-in's bound of 4 live pages.
    const context = await browser.createBrowserContext();
    const pages = [await context.newPage()];
    await signIn(pages[0] as import("puppeteer-core").Page, tokens["acme"] as string);
    const live = (p: import("puppeteer-core").Page, state: string) => p.waitForFunction((s) => document.getElementById("live")?.dataset["state"] === s, { timeout: 10_000 }, state);
    await live(pages[0] as import("puppeteer-core").Page, "live");
    for (let i = 1; i < 5; i++) {
      const p = await context.newPage();
      await p.goto(`${serve.url}/`, { waitUntil: "domcontentloaded" });
      await live(p, "live");
      pages.push(p);
    }
    const first = pages[0] as import("puppeteer-core").Page;
    await live(first, "paused");
    expect(await first.$eval("#live", (e) => e.textContent)).toBe("Paused: a newer page is live. Reload to go live here.");
    for (const p of pages.slice(1)) expect(await p.$eval("#live", (e) => (e as HTMLElement).dataset["state"])).toBe("live");
    // Reloaded, it is live again, and the oldest of the others is the one paused now.
    await first.reload({ waitUntil: "domcontentloaded" });
    await live(first, "live");
    await live(pages[1] as import("puppeteer-core").Page, "paused");
    await context.close();
  }, 60_000);

  it("a read-only token looks without the policy switch; another team sees none of it, not even by address", async () => {
    // Each identity in a browser context of its own: no cookie shared.
    const page = await (await browser.createBrowserContext()).newPage();
    await signIn(page, tokens["reader"] as string);
    expect(await text(page)).toMatch(/team acme \(read-only\)/);
    expect(await page.$("#policy")).toBeNull();
    const repoHref = await page.$eval("a[href^='/repos/']", (a) => a.getAttribute("href"));
    const sessionHref = await page.evaluate(async (href) => {
      const html = await (await fetch(`${href}?fragment=1`)).text();
      return /href="(\/sessions\/[^"]+)"/.exec(html)?.[1] ?? null;
    }, repoHref);
    expect(sessionHref).not.toBeNull();
    // A read-only sign-in cannot change the policy, even by posting the form.
    const csrf = await page.$eval("nav input[name=csrf]", (i) => (i as HTMLInputElement).value);
    expect(
      await page.evaluate(async (c) => (await fetch("/policy", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${c}&policy=advisory` })).status, csrf),
    ).toBe(403);
    await page.close();

    const other = await (await browser.createBrowserContext()).newPage();
    await signIn(other, tokens["globex"] as string);
    const seen = await text(other);
    expect(seen).toContain("No agents yet");
    expect(seen).not.toMatch(/alice|bob|parseConfig|acme/);
    for (const href of [repoHref, sessionHref]) {
      expect(await other.evaluate(async (h) => (await fetch(`${h}?fragment=1`)).status, href), String(href)).toBe(404);
    }
    // Its stream carries nothing of acme's. Both teams' streams are open (each has said "open"); an event of acme's
    // reaches acme's stream; then one of globex's, posted after that, reaches globex's. A stream's changes arrive in
    // order, each stamped with the server's clock when sent: once globex's stream has the change sent after its own
    // event, any change of acme's sent to it would have arrived before, so it has exactly one.
    const mine = await (await browser.createBrowserContext()).newPage();
    await signIn(mine, tokens["acme"] as string);
    const listen = (p: import("puppeteer-core").Page) =>
      p.evaluate(() => {
        const w = window as unknown as { stamps: number[]; opened: boolean; es: EventSource };
        w.stamps = [];
        w.opened = false;
        w.es = new EventSource("/events");
        w.es.addEventListener("open", () => (w.opened = true));
        w.es.addEventListener("change", (e) => w.stamps.push(Number((e as MessageEvent).data)));
      });
    await Promise.all([listen(other), listen(mine)]);
    await other.waitForFunction(() => (window as unknown as { opened: boolean }).opened);
    await mine.waitForFunction(() => (window as unknown as { opened: boolean }).opened);
    await event("cc-alice-0001", "prompt", { prompt_excerpt: "go on" });
    await mine.waitForFunction(() => (window as unknown as { stamps: number[] }).stamps.length > 0);
    const afterAcme = Date.now();
    expect((await event("cc-carol-0001", "prompt", { prompt_excerpt: "hello" }, "globex")).status).toBe(200);
    await other.waitForFunction((t) => (window as unknown as { stamps: number[] }).stamps.some((s) => s > t), {}, afterAcme);
    expect(await other.evaluate(() => (window as unknown as { stamps: number[] }).stamps.length)).toBe(1);
    await Promise.all([other.close(), mine.close()]);
  }, 60_000);
});
