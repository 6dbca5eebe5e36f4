/// <reference lib="dom" />
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardSignIn, planLoad, post } from "../../benchmarks/serve-load-driver.mjs";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { CAN_START_POSTGRES, type Cluster, type ClusterReplica, HAPROXY, startCluster, waitFor } from "../../benchmarks/replica-cluster.mjs";
import { BIN, runBuiltCli } from "../helpers/run-cli.js";
import { api, FP } from "../helpers/serve-fixture.js";
import { loadScenarios, runScenario } from "../scenarios/runner.mjs";

// `comity serve` as an organisation runs it: three replicas on one PostgreSQL (of this test's own), behind HAProxy
// from Debian's packages, round robin and no stickiness. Everything a request depends on is in the database, so
// the replicas answer alike; the dashboard's sign-ins and live streams hold across them; a replica killed, or the
// database stopped, costs the hooks nothing but their answer, loses nothing acknowledged, and service comes back by
// itself. The load here is CI's; benchmarks/serve-replicas.mjs runs the full one and writes its figures.

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => fs.existsSync(p));

describe.runIf(HAPROXY !== undefined && CAN_START_POSTGRES)("comity serve: three replicas behind a balancer", () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  let cluster: Cluster;
  let token: string;
  const cli = (...args: string[]) => runBuiltCli(args, { cwd: sb.dir, env });

  beforeAll(async () => {
    sb = createSandbox();
    env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "cfg") };
    cluster = await startCluster(3, env);
    token = cli("serve", "token", "create", "--team", "acme", "--db", cluster.pg.url).stdout.trim();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    sb?.cleanup();
  });

  let n = 0;
  const event = (base: string, session: string, ev: string, extra: Record<string, unknown> = {}) =>
    api(base, "POST", "/v1/hooks/evaluate", {
      token,
      body: {
        event: ev,
        dedupe_key: `k${++n}`,
        session: { external_id: session, tool: "claude_code", label: session },
        repo: { remote_fingerprints: [FP("acme/app")], branch: "main", cwd_path: "." },
        ...extra,
      },
    });

  it("each replica names itself and lists its peers; the balancer spreads requests over all three", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const h = await api(cluster.url, "GET", "/v1/health");
      expect(h.status).toBe(200);
      expect(h.json.peers.map((p: { id: string }) => p.id)).toEqual(["r1", "r2", "r3"]);
      seen.add(h.json.replica);
    }
    expect([...seen].sort()).toEqual(["r1", "r2", "r3"]);
  });

  it("tells agents on different replicas of each other: one same-line pair, exactly one side denied", async () => {
    const [r1, r2] = cluster.replicas as [ClusterReplica, ClusterReplica];
    for (let i = 0; i < 6; i++) {
      await Promise.all([event(r1.url, `pair${i}-a`, "session_start"), event(r2.url, `pair${i}-b`, "session_start")]);
      const [a, b] = await Promise.all([event(r1.url, `pair${i}-a`, "pre_edit", { paths: [`src/pair${i}.ts`] }), event(r2.url, `pair${i}-b`, "pre_edit", { paths: [`src/pair${i}.ts`] })]);
      expect([a.json.decision, b.json.decision].sort(), `pair ${i}`).toEqual(["allow", "block"]);
    }
  });

  it("a cookie issued by replica 1 works on replica 3; a sign-out on replica 2 ends it on all three", async () => {
    const [r1, r2, r3] = cluster.replicas as [ClusterReplica, ClusterReplica, ClusterReplica];
    const form = await fetch(`${r1.url}/signin`);
    const formCookie = /comity_signin=([^;]+)/.exec(form.headers.get("set-cookie") ?? "")?.[1] as string;
    const formToken = /name="form" value="([^"]+)"/.exec(await form.text())?.[1] as string;
    const signedIn = await fetch(`${r1.url}/signin`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `comity_signin=${formCookie}` },
      body: `form=${encodeURIComponent(formToken)}&token=${encodeURIComponent(token)}`,
    });
    expect(signedIn.status).toBe(303);
    const cookie = /comity_dashboard=[^;]+/.exec(signedIn.headers.get("set-cookie") ?? "")?.[0] as string;
    expect(cookie).toBeDefined();
    for (const r of [r1, r2, r3]) expect((await fetch(`${r.url}/`, { headers: { cookie }, redirect: "manual" })).status, r.name).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${r3.url}/`, { headers: { cookie } })).text())?.[1] as string;
    const out = await fetch(`${r2.url}/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${encodeURIComponent(csrf)}`,
    });
    expect([out.status, out.headers.get("location")]).toEqual([303, "/signin"]);
    for (const r of [r1, r2, r3]) expect((await fetch(`${r.url}/`, { headers: { cookie }, redirect: "manual" })).status, r.name).toBe(303);
  });

  it.runIf(CHROMIUM !== undefined)(
    "the dashboard in a browser: signed in through the balancer, live on replica 2 with events sent to replica 1, revoked everywhere",
    async () => {
      const puppeteer = (await import("puppeteer-core")).default;
      const browser = await puppeteer.launch({ executablePath: CHROMIUM as string, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
      try {
        const viewer = cli("serve", "token", "create", "--team", "acme", "--read-only", "--name", "viewer", "--db", cluster.pg.url);
        const viewerId = /token (\w+) \(viewer\)/.exec(viewer.stderr)?.[1] as string;
        const page = await browser.newPage();
        await page.goto(`${cluster.url}/`, { waitUntil: "domcontentloaded" });
        expect(new URL(page.url()).pathname).toBe("/signin");
        await page.type("#token", viewer.stdout.trim());
        await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("button[type=submit]")]);
        // Six loads through the balancer land on every replica: each knows the sign-in.
        for (let i = 0; i < 6; i++) {
          const r = await page.goto(`${cluster.url}/`, { waitUntil: "domcontentloaded" });
          expect([r?.status(), new URL(page.url()).pathname]).toEqual([200, "/"]);
        }
        // The same browser on replica 2 (a cookie is the host's, whatever the port): live, then an event sent to
        // replica 1 shows without a reload.
        const [r1, r2, r3] = cluster.replicas as [ClusterReplica, ClusterReplica, ClusterReplica];
        await page.goto(`${r2.url}/`, { waitUntil: "domcontentloaded" });
        await page.waitForFunction(() => document.getElementById("live")?.dataset["state"] === "live", { timeout: 10_000 });
        await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
        // A repo no event has named yet: its row ("repo 6c697665", the fingerprint's first bytes) appears on the page.
        await api(r1.url, "POST", "/v1/hooks/evaluate", {
          token,
          body: { event: "session_start", dedupe_key: "live-r1", session: { external_id: "live-alice", tool: "claude_code" }, repo: { remote_fingerprints: [FP("live/r1")], branch: "main" } },
        });
        await page.waitForFunction(() => document.body.innerText.includes("repo 6c697665"), { timeout: 10_000 });
        expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
        // Its token revoked (a command run anywhere): the stream on replica 2 ends, and no replica lets it back in.
        const streams = await page.evaluate(() => {
          const w = window as unknown as { closedAt: number | null; es: EventSource };
          w.closedAt = null;
          w.es = new EventSource("/events");
          w.es.addEventListener("error", () => (w.closedAt ??= Date.now()));
          return new Promise<boolean>((resolve) => w.es.addEventListener("open", () => resolve(true)));
        });
        expect(streams).toBe(true);
        expect(cli("serve", "token", "revoke", viewerId, "--db", cluster.pg.url).status).toBe(0);
        await page.waitForFunction(() => (window as unknown as { closedAt: number | null }).closedAt !== null, { timeout: 10_000 });
        for (const r of [r1, r2, r3]) {
          await page.goto(`${r.url}/`, { waitUntil: "domcontentloaded" });
          expect(new URL(page.url()).pathname, r.name).toBe("/signin");
        }
      } finally {
        await browser.close();
      }
    },
    90_000,
  );

  it("plays the coordination scenarios through the balancer as on one server", async () => {
    // A third of them in CI (every third file, all kinds); COMITY_REPLICA_SCENARIOS=all plays every one.
    const picked = loadScenarios().filter((_, i) => process.env["COMITY_REPLICA_SCENARIOS"] === "all" || i % 3 === 0);
    const results = [];
    for (const [i, scenario] of picked.entries()) {
      const r = await runScenario(scenario, { inProcess: true, db: cluster.pg.url, serveUrl: cluster.url, teamSuffix: `-s${i}` });
      if (r.skipped !== null) throw new Error(`${scenario.file} was skipped: ${r.skipped}`);
      results.push({ file: scenario.file, expected: r.expected, misses: r.misses, falseAlarms: r.alarms, recalled: r.recalled === r.expected });
    }
    expect(results.filter((r) => r.misses.length > 0 || r.falseAlarms.length > 0 || !r.recalled)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(20);
    // (quiet scenarios expect nothing; the others, a few warnings each)
    expect(results.reduce((sum, r) => sum + r.expected, 0)).toBeGreaterThanOrEqual(30);
  }, 600_000);

  it("a replica stopped with SIGTERM answers the request under way, ends its streams, leaves the peers at once and exits 0", async () => {
    const r3 = cluster.replicas[2] as ClusterReplica;
    const changes = await streamChanges(r3.url);
    // A request under way: its headers and half its body sent, the rest after the signal.
    const body = JSON.stringify({
      event: "session_start",
      dedupe_key: `drain-${Date.now()}`,
      session: { external_id: "drain", tool: "codex" },
      repo: { remote_fingerprints: [FP("acme/drain")], branch: "main" },
    });
    const exits: Array<number | null> = [];
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${r3.url}/v1/hooks/evaluate`,
        { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString("utf8")));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 20));
      req.on("socket", (socket) =>
        socket.on("connect", () => {
          // (once the server has had the connection a while: then the signal, then the rest of the body)
          setTimeout(() => {
            void cluster.drain(2).then((code) => exits.push(code));
            setTimeout(() => req.end(body.slice(20)), 300);
          }, 200);
        }),
      );
    });
    expect((await answered).status).toBe(200);
    await waitFor(() => exits.length === 1, 10_000, "replica 3 to exit");
    expect(exits).toEqual([0]);
    await waitFor(() => changes.ended(), 5_000, "its stream to end");
    expect((await api(cluster.url, "GET", "/v1/health")).json.peers.map((p: { id: string }) => p.id)).toEqual(["r1", "r2"]);
    await cluster.restart(2);
    await waitFor(async () => (await api(cluster.url, "GET", "/v1/health")).json.peers.length === 3, 10_000, "replica 3 to be a peer again");
  }, 60_000);

  it("under load, a replica killed and started again: nothing acknowledged lost or applied twice, hooks fail open, service comes back", async () => {
    const loadToken = cli("serve", "token", "create", "--team", "load", "--db", cluster.pg.url).stdout.trim();
    const plan = planLoad({ sessions: 60, events: 12, run: "kill", repos: 10 });
    // Each session resends an event whose answer it did not get (same dedupe key), as long as it takes: what was
    // applied before the kill is answered from dedupe, not applied again.
    let killed = false;
    const answers = new Map<string, string>();
    const failed: string[] = [];
    await Promise.all(
      plan.map(async (events) => {
        for (const body of events) {
          for (let attempt = 0; ; attempt++) {
            const r = await post(cluster.url, loadToken, body).catch((e: Error) => ({ status: 0, text: e.message }));
            if (r.status === 200) {
              answers.set(body.dedupe_key, r.text);
              break;
            }
            failed.push(`${body.dedupe_key}: ${r.status}`);
            if (attempt > 100) throw new Error(`${body.dedupe_key} never answered: ${r.status} ${r.text}`);
            await new Promise((res) => setTimeout(res, 100));
          }
          if (!killed && answers.size >= (plan.length * events.length) / 3) {
            killed = true;
            await cluster.kill(1);
          }
        }
      }),
    );
    expect(killed).toBe(true);
    expect(answers.size).toBe(plan.length * (plan[0]?.length ?? 0));
    await expectEachAppliedOnce(cluster.pg.url, "load", plan.length * (plan[0]?.length ?? 0));
    // A hook (the built CLI, exactly as `comity init` wires it) while replica 2 is down: the balancer sends it to the
    // others; then replica 2 comes back and the balancer uses it again.
    const hook = hookRun();
    expect(hook.status).toBe(0);
    await cluster.restart(1);
    await waitFor(
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) seen.add((await api(cluster.url, "GET", "/v1/health")).json?.replica);
        return seen.has("r2");
      },
      15_000,
      "the balancer to send requests to replica 2 again",
    );
  }, 180_000);

  it("with PostgreSQL stopped, hooks fail open at once; started again, every replica serves and streams by themselves", async () => {
    const r3 = cluster.replicas[2] as ClusterReplica;
    cluster.pg.halt();
    try {
      const down = await event(cluster.url, "pg-down", "session_start").catch(() => ({ status: 0, json: null }));
      expect(down.status).not.toBe(200);
      const hook = hookRun();
      expect([hook.status, hook.stdout]).toEqual([0, ""]);
    } finally {
      cluster.pg.resume();
    }
    await waitFor(async () => (await event(cluster.url, "pg-up", "session_start").catch(() => ({ status: 0 }))).status === 200, 20_000, "service to resume");
    for (const r of cluster.replicas) await waitFor(async () => (await event(r.url, `pg-up-${r.name}`, "session_start").catch(() => ({ status: 0 }))).status === 200, 20_000, `${r.name} to resume`);
    // The replicas listen again: a stream on replica 3 hears an event sent to replica 1.
    const changes = await streamChanges(r3.url);
    try {
      await waitFor(
        async () => {
          await event(cluster.replicas[0]?.url as string, "pg-up-stream", "pre_edit", { paths: ["src/after-restart.ts"] });
          return changes.count() > 0;
        },
        20_000,
        "a stream on replica 3 to hear an event sent to replica 1 after the restart",
      );
    } finally {
      changes.close();
    }
  }, 120_000);

  /** The built hook, as `comity init` wires Claude Code's PreToolUse, pointed at the balancer. */
  function hookRun(): { status: number | null; stdout: string } {
    const dir = path.join(sb.dir, "hook-repo");
    if (!fs.existsSync(dir)) {
      fs.mkdirSync(dir);
      spawnSync("git", ["init", "-q"], { cwd: dir });
      spawnSync("git", ["remote", "add", "origin", "git@github.com:acme/app.git"], { cwd: dir });
    }
    const payload = JSON.stringify({
      session_id: "hook-1",
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: path.join(dir, "a.ts"), old_string: "a", new_string: "b" },
      cwd: dir,
    });
    const r = spawnSync(process.execPath, [BIN, "hook", "--tool", "claude_code", "--event", "PreToolUse"], {
      cwd: dir,
      input: payload,
      encoding: "utf8",
      env: { ...env, COMITY_API_URL: cluster.url, COMITY_TOKEN: token, COMITY_DAEMON: "off" },
      timeout: 30_000,
    });
    return { status: r.status, stdout: r.stdout };
  }

  /** A dashboard stream on a replica, signed in there: how many change events it has had. */
  async function streamChanges(base: string): Promise<{ count(): number; ended(): boolean; close(): void }> {
    const cookie = await dashboardSignIn(base, token);
    const controller = new AbortController();
    const res = await fetch(`${base}/events`, { headers: { cookie }, signal: controller.signal });
    let changes = 0;
    let ended = false;
    void (async () => {
      const reader = res.body?.getReader();
      for (;;) {
        const chunk = await reader?.read().catch(() => null);
        if (chunk === null || chunk === undefined || chunk.done) {
          ended = true;
          return;
        }
        changes += (
          Buffer.from(chunk.value)
            .toString("utf8")
            .match(/event: change/g) ?? []
        ).length;
      }
    })();
    return { count: () => changes, ended: () => ended, close: () => controller.abort() };
  }
});

/**
 * Each repo's index version counts the events applied to it: a team's repos' versions add up to its events exactly
 * when each was applied once. Read from the database, not from the answers.
 */
async function expectEachAppliedOnce(url: string, team: string, events: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query("SELECT COALESCE(SUM(r.index_version), 0)::int AS applied, COUNT(*)::int AS repos FROM repos r JOIN teams t ON t.id = r.team_id WHERE t.name = $1", [team]);
    const k = await client.query("SELECT COUNT(*)::int AS keys FROM dedupe d JOIN teams t ON t.id = d.team_id WHERE t.name = $1", [team]);
    expect({ applied: r.rows[0].applied, keys: k.rows[0].keys }).toEqual({ applied: events, keys: events });
  } finally {
    await client.end();
  }
}
