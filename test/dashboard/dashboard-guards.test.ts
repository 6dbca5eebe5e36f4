import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCoordinationServer } from "../../src/serve/create-server.js";
import { createToken, revokeToken } from "../../src/serve/teams.js";
import type { Database } from "../../src/store/database.js";
import { openDatabase } from "../../src/store/open-database.js";
import type { STREAM_LIMITS } from "../../src/dashboard/event-streams.js";
import { SIGNIN_LIMIT } from "../../src/dashboard/create-dashboard.js";
import { SIGN_IN_LIMITS } from "../../src/dashboard/sign-ins.js";
import { api, FP } from "../helpers/serve-fixture.js";

// The dashboard as an attacker, a careless script and a revoked colleague would meet it.

let dir: string;
let db: Database;
let server: http.Server;
let url: string;
let acme: { token: string; id: string };
let other: { token: string; id: string };

async function start(streamLimits: Partial<typeof STREAM_LIMITS> = {}, maxConnections = 1024): Promise<void> {
  server = await createCoordinationServer({ database: db, streamLimits, limits: { maxConnections } });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-dash-"));
  db = await openDatabase(path.join(dir, "s.sqlite"), { configDir: dir, cwd: dir });
  acme = await createToken(db, "acme");
  other = await createToken(db, "other");
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The sign-in form as a browser gets it: its cookie and its hidden token. */
async function signInForm(): Promise<{ cookie: string; form: string }> {
  const page = await fetch(`${url}/signin`);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const form = /name="form" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return { cookie, form };
}

/** Posts the sign-in form with a token; the answer's status and the dashboard cookie it set, if any. */
async function signIn(token: string, extra: Record<string, string> = {}, form?: { cookie: string; form: string }): Promise<{ status: number; cookie: string | null }> {
  const f = form ?? (await signInForm());
  const r = await fetch(`${url}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: f.cookie, ...extra },
    body: new URLSearchParams({ token, form: f.form }).toString(),
  });
  const set = r.headers.get("set-cookie") ?? "";
  return { status: r.status, cookie: /^comity_dashboard=[^;]+/.exec(set)?.[0] ?? null };
}

/** Opens `/events` and resolves with the status once the answer starts (the stream is kept open). */
function openStream(cookie: string): Promise<{ status: number; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/events`, { headers: { cookie }, agent: false }, (res) => {
      // (streams still open when the test's server closes them all are reset: that is the end of the test, not a failure)
      res.on("error", () => undefined);
      resolve({ status: res.statusCode ?? 0, res });
    });
    req.on("error", reject);
  });
}

describe("the dashboard's live streams", () => {
  it("are bounded per sign-in, per team and in all: a sign-in's newest stream ends its oldest, a sign-in with none gets 429, and the API keeps answering every team", async () => {
    await start({ perSignIn: 3, perTeam: 5, total: 8 }, 32);
    const [a, b, c] = [await signIn(acme.token), await signIn(acme.token), await signIn(other.token)];
    // One sign-in asks for many streams at once, as a script with its cookie (or pages reloaded behind a proxy that
    // keeps their old streams open) would: each opens, and ends the sign-in's oldest, so 3 are open at the end.
    // (20: at once, 40 would pass the server's 32 connections before the first ended ones close)
    const first = await Promise.all(Array.from({ length: 20 }, () => openStream(a.cookie ?? "")));
    expect(first.map((s) => s.status)).toEqual(Array(20).fill(200));
    // Each ended one is told why, so that its page stops instead of connecting again.
    const endings: string[] = [];
    await new Promise<void>((resolve) => {
      for (const s of first) {
        let said = "";
        s.res
          .setEncoding("utf8")
          .on("data", (chunk: string) => {
            said += chunk;
          })
          .on("end", () => {
            endings.push(said);
            if (endings.length === 17) resolve();
          });
      }
    });
    expect(endings.filter((said) => said.endsWith("event: replaced\ndata: \n\n"))).toHaveLength(17);
    // Another sign-in of the team gets the team's rest (5 in all), its third stream ending its first.
    const second = await Promise.all(Array.from({ length: 3 }, () => openStream(b.cookie ?? "")));
    expect(second.map((s) => s.status)).toEqual([200, 200, 200]);
    await Promise.race(second.map((s) => new Promise((resolve) => s.res.on("end", resolve).resume())));
    // A sign-in of the team that holds none is refused now, with the time to wait.
    const d = await signIn(acme.token);
    const refused = await openStream(d.cookie ?? "");
    expect([refused.status, refused.res.headers["retry-after"]]).toEqual([429, "30"]);
    expect(await new Promise<string>((resolve) => refused.res.setEncoding("utf8").on("data", resolve))).toMatch(/^this team has as many live pages open as it may/);
    // Another team gets what is left of the server's 8 (3), and a sign-in of it holding none is refused.
    expect((await Promise.all(Array.from({ length: 4 }, () => openStream(c.cookie ?? "")))).map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const e = await signIn(other.token);
    const full = await openStream(e.cookie ?? "");
    expect(full.status).toBe(429);
    expect(await new Promise<string>((resolve) => full.res.setEncoding("utf8").on("data", resolve))).toMatch(/^the server has as many live pages open as it may/);
    // With every stream the server allows open, the API still answers: health, and each team's hooks.
    expect((await api(url, "GET", "/v1/health")).status).toBe(200);
    const body = { event: "prompt", dedupe_key: "d1", session: { external_id: "s1", tool: "codex" }, repo: { remote_fingerprints: [FP("r")] }, prompt_excerpt: "go" };
    expect((await api(url, "POST", "/v1/hooks/evaluate", { token: other.token, body })).status).toBe(200);
  });

  it("end after their time, so that a forgotten tab holds nothing for ever", async () => {
    await start({ maxAgeMs: 150, heartbeatMs: 50 });
    const { cookie } = await signIn(acme.token);
    const { status, res } = await openStream(cookie ?? "");
    expect(status).toBe(200);
    await new Promise<void>((resolve) => res.on("end", resolve).resume());
  });
});

describe("revoking a token", () => {
  it("ends its sign-ins at their next request: pages, fragments, the policy switch and its live streams", async () => {
    await start({ heartbeatMs: 50 });
    const { cookie } = await signIn(acme.token);
    const page = await fetch(`${url}/`, { headers: { cookie: cookie ?? "" } });
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    const stream = await openStream(cookie ?? "");
    expect(stream.status).toBe(200);
    await revokeToken(db, acme.id);
    // The stream ends at its next heartbeat; every request is refused as unsigned.
    await new Promise<void>((resolve) => stream.res.on("end", resolve).resume());
    const again = await fetch(`${url}/`, { headers: { cookie: cookie ?? "" }, redirect: "manual" });
    expect([again.status, again.headers.get("location")]).toEqual([303, "/signin"]);
    expect((await fetch(`${url}/?fragment=1`, { headers: { cookie: cookie ?? "" } })).status).toBe(401);
    const policy = await fetch(`${url}/policy`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookie ?? "", "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${csrf}&policy=block`,
    });
    expect(policy.status).toBe(401);
    expect((await db.read((sql) => sql.all<{ policy: string }>("SELECT policy FROM teams WHERE name = 'acme'")))[0]?.policy).toBe("first_contact");
  });
});

describe("signing in", () => {
  it("refuses a post from another site's page: another Origin, a cross-site fetch, or no form token of its own", async () => {
    await start();
    const form = await signInForm();
    expect((await signIn(acme.token, { origin: "http://evil.example" }, form)).status).toBe(403);
    expect((await signIn(acme.token, { "sec-fetch-site": "cross-site" }, form)).status).toBe(403);
    expect((await signIn(acme.token, {}, { cookie: "", form: form.form })).status).toBe(403);
    expect((await signIn(acme.token, {}, { cookie: form.cookie, form: "forged-forged-forged-x" })).status).toBe(403);
    // Neither the form's token nor its cookie: an empty token equals an empty cookie, and that is no form of ours.
    expect((await signIn(acme.token, {}, { cookie: "", form: "" })).status).toBe(403);
    // The same form from this server's own page signs in.
    const ok = await signIn(acme.token, { origin: url, "sec-fetch-site": "same-origin" }, form);
    expect(ok.status).toBe(303);
    expect(ok.cookie).toMatch(/^comity_dashboard=/);
  });

  it("keeps a bounded number of sign-ins per token: the oldest end first", async () => {
    await start();
    const cookies: string[] = [];
    for (let i = 0; i < SIGN_IN_LIMITS.perKey + 4; i++) cookies.push((await signIn(acme.token)).cookie ?? "");
    const live = await Promise.all(cookies.map(async (cookie) => (await fetch(`${url}/?fragment=1`, { headers: { cookie } })).status));
    expect(live).toEqual([...Array<number>(4).fill(401), ...Array<number>(SIGN_IN_LIMITS.perKey).fill(200)]);
  });

  it("slows down wrong tokens from an address that keeps failing, but lets a right one through", async () => {
    await start();
    for (let i = 0; i < SIGNIN_LIMIT; i++) expect((await signIn("cmt_wrong")).status).toBe(401);
    expect((await signIn("cmt_wrong")).status).toBe(429);
    expect((await signIn(acme.token)).status).toBe(303);
  });
});
