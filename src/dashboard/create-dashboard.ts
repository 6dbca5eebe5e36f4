import { randomBytes, timingSafeEqual } from "node:crypto";
import type * as http from "node:http";
import type { Sql } from "../store/database.js";
import { POLICIES, type TeamPolicy } from "../coordination/wire.js";
import { shortSessionId } from "../coordination/coordination-text.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets.js";
import { readOverview, readRepoPage, readSessionPage } from "./dashboard-data.js";
import { esc, renderOverview, renderPage, renderRepo, renderSession, renderSignIn, type ViewContext } from "./render-dashboard.js";

/** A signed-in person: the team the token named, whether it was read-only, and the form token of the session. */
interface SignedIn {
  readonly teamId: string;
  readonly team: string;
  readonly readOnly: boolean;
  readonly csrf: string;
  readonly expires: number;
}

export interface DashboardTeam {
  readonly id: string;
  readonly name: string;
  readonly readOnly: boolean;
}

export interface DashboardOptions {
  /** Reads outside any write lock. */
  readonly read: <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>;
  /** The team a token names, or undefined. */
  readonly teamForToken: (token: string) => Promise<DashboardTeam | undefined>;
  readonly setPolicy: (teamId: string, policy: TeamPolicy) => Promise<void>;
  readonly leaseMs: number;
  readonly now?: () => number;
  /** Cookies marked Secure (the server is behind TLS). */
  readonly secureCookies?: boolean;
  /** A secret that signs in once as this team (`comity status --web`, for the local user). */
  readonly oneTime?: { readonly secret: string; readonly team: DashboardTeam };
  /**
   * Where events are applied by other processes (the embedded store): polled every second while a page is open;
   * a new value is a change. The server calls {@link Dashboard.notify} itself instead.
   */
  readonly changeStamp?: () => Promise<string>;
}

export interface Dashboard {
  /** Answers a request for the dashboard; false when the path is not the dashboard's (the API's `/v1/`). */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<boolean>;
  /** Something changed for this team: its open pages update. */
  notify(teamId: string): void;
  /** Ends every open event stream (before the server closes). */
  close(): void;
}

/** How long a sign-in lasts. */
export const DASHBOARD_SESSION_MS = 8 * 60 * 60 * 1000;
const COOKIE = "comity_dashboard";
const SIGNIN_LIMIT = 20;
const SIGNIN_WINDOW_MS = 10_000;

/**
 * The dashboard of `comity serve` (and of `comity status --web`): server-rendered pages of what every agent of a
 * team is doing (overview, repo, session), live over Server-Sent Events, behind a sign-in with a team token. The
 * sign-in is an HttpOnly, SameSite=Strict cookie naming a session held in memory (it ends with the process, or
 * after 8 hours); each page reads only the signed-in team's rows; the policy switch, the one thing that changes
 * state, takes a form token and a token that is not read-only.
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, SignedIn>();
  const streams = new Map<string, Set<http.ServerResponse>>();
  const pendingNotify = new Map<string, NodeJS.Timeout>();
  const failures = new Map<string, number[]>();
  let oneTimeUsed = false;
  let lastStamp: string | null = null;
  const poll =
    options.changeStamp === undefined
      ? null
      : setInterval(() => {
          // Polled whether or not a page is open, so that a page opened just before an event still sees it.
          void options.changeStamp?.().then((stamp) => {
            if (lastStamp !== null && stamp !== lastStamp) for (const team of streams.keys()) notify(team);
            lastStamp = stamp;
          }, () => undefined);
        }, 1000);
  poll?.unref();
  // The baseline at once: an event written before the first tick is a change for a page opened meanwhile.
  void options.changeStamp?.().then((stamp) => (lastStamp ??= stamp), () => undefined);
  const heartbeat = setInterval(() => {
    for (const set of streams.values()) for (const res of set) res.write(": ping\n\n");
  }, 15_000);
  heartbeat.unref();

  const notify = (teamId: string): void => {
    if (!streams.has(teamId) || pendingNotify.has(teamId)) return;
    // At most a few updates a second, however many events arrive.
    pendingNotify.set(
      teamId,
      setTimeout(() => {
        pendingNotify.delete(teamId);
        for (const res of streams.get(teamId) ?? []) res.write(`event: change\ndata: ${now()}\n\n`);
      }, 200),
    );
  };

  const signedIn = (req: http.IncomingMessage): SignedIn | null => {
    const id = sessionIdOf(req);
    const s = id === undefined ? undefined : sessions.get(id);
    if (s === undefined || id === undefined) return null;
    if (s.expires < now()) {
      sessions.delete(id);
      return null;
    }
    return s;
  };
  const cookie = (value: string, maxAgeS: number): string => `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${options.secureCookies === true ? "; Secure" : ""}`;
  const startSession = (res: http.ServerResponse, team: DashboardTeam): void => {
    if (sessions.size >= 10_000) for (const [k, v] of sessions) if (v.expires < now()) sessions.delete(k);
    const id = randomBytes(24).toString("base64url");
    sessions.set(id, { teamId: team.id, team: team.name, readOnly: team.readOnly, csrf: randomBytes(18).toString("base64url"), expires: now() + DASHBOARD_SESSION_MS });
    res.setHeader("set-cookie", cookie(id, DASHBOARD_SESSION_MS / 1000));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<boolean> => {
    const p = url.pathname;
    if (p.startsWith("/v1/") || p === "/v1") return false;
    const method = req.method ?? "GET";
    if (method === "GET" && (p === "/assets/dashboard.css" || p === "/assets/dashboard.js")) {
      req.resume();
      send(res, 200, p.endsWith(".css") ? DASHBOARD_CSS : DASHBOARD_JS, p.endsWith(".css") ? "text/css" : "text/javascript", "public, max-age=300");
      return true;
    }
    if (p === "/signin") {
      if (method === "GET") {
        req.resume();
        const once = url.searchParams.get("once");
        if (once !== null && options.oneTime !== undefined && !oneTimeUsed && sameSecret(once, options.oneTime.secret)) {
          oneTimeUsed = true;
          startSession(res, options.oneTime.team);
          return redirect(res, "/");
        }
        send(res, 200, renderSignIn(once !== null ? "That sign-in link was used already, or is not this server's." : null));
        return true;
      }
      if (method === "POST") {
        const address = req.socket.remoteAddress ?? "?";
        const recent = (failures.get(address) ?? []).filter((t) => t > now() - SIGNIN_WINDOW_MS);
        const body = await readForm(req);
        if (recent.length >= SIGNIN_LIMIT) {
          res.setHeader("retry-after", String(Math.ceil(SIGNIN_WINDOW_MS / 1000)));
          send(res, 429, renderSignIn("Too many failed sign-ins from here: wait a few seconds."));
          return true;
        }
        const token = (body?.get("token") ?? "").trim();
        const team = token === "" ? undefined : await options.teamForToken(token);
        if (team === undefined) {
          failures.set(address, [...recent, now()]);
          if (failures.size > 10_000) failures.clear();
          send(res, 401, renderSignIn("That token is not one of this server's."));
          return true;
        }
        startSession(res, team);
        return redirect(res, "/");
      }
    }
    const me = signedIn(req);
    const fragment = url.searchParams.get("fragment") === "1";
    if (me === null) {
      req.resume();
      if (p === "/events" || fragment || method !== "GET") {
        send(res, 401, "sign in first\n", "text/plain");
        return true;
      }
      return redirect(res, "/signin");
    }
    if (method === "POST") {
      const body = await readForm(req);
      if (body === null || !sameSecret(body.get("csrf") ?? "", me.csrf)) {
        send(res, 403, "the form is stale: reload the page\n", "text/plain");
        return true;
      }
      if (p === "/signout") {
        const id = sessionIdOf(req);
        if (id !== undefined) sessions.delete(id);
        res.setHeader("set-cookie", cookie("", 0));
        return redirect(res, "/signin");
      }
      if (p === "/policy") {
        const policy = body.get("policy") ?? "";
        if (me.readOnly || !(POLICIES as readonly string[]).includes(policy)) {
          send(res, 403, me.readOnly ? "a read-only token cannot change the policy\n" : "unknown policy\n", "text/plain");
          return true;
        }
        await options.setPolicy(me.teamId, policy as TeamPolicy);
        notify(me.teamId);
        return redirect(res, "/");
      }
      send(res, 404, "not found\n", "text/plain");
      return true;
    }
    req.resume();
    if (p === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
      res.write("retry: 2000\n\n");
      const set = streams.get(me.teamId) ?? new Set();
      set.add(res);
      streams.set(me.teamId, set);
      req.socket.setTimeout(0);
      res.on("close", () => {
        set.delete(res);
        if (set.size === 0) streams.delete(me.teamId);
      });
      return true;
    }
    const ctx: ViewContext = { now: now(), team: me.team, csrf: me.csrf, readOnly: me.readOnly };
    const where = { teamId: me.teamId, now: ctx.now, leaseMs: options.leaseMs };
    let title: string;
    let main: string | null;
    const repo = /^\/repos\/([0-9a-f-]{1,64})$/.exec(p);
    const session = /^\/sessions\/([0-9a-f-]{1,64})$/.exec(p);
    if (p === "/") {
      const o = await options.read((sql) => readOverview(sql, where));
      [title, main] = [`Team ${o.team}`, renderOverview(o, ctx)];
    } else if (repo !== null) {
      const r = await options.read((sql) => readRepoPage(sql, where, repo[1] as string));
      [title, main] = [r?.repo.label ?? "Not found", r === null ? null : renderRepo(r, ctx)];
    } else if (session !== null) {
      const s = await options.read((sql) => readSessionPage(sql, where, session[1] as string));
      [title, main] = [s === null ? "Not found" : `${s.session.label ?? "?"} ${shortSessionId(s.session.external_id)}`, s === null ? null : renderSession(s, ctx)];
    } else {
      [title, main] = ["Not found", null];
    }
    const status = main === null ? 404 : 200;
    const body = main ?? `<h1>Not found</h1><p>Nothing of team ${esc(me.team)} here. <a href="/">Overview</a></p>`;
    send(res, status, fragment ? body : renderPage(title, body, ctx));
    return true;
  };

  return {
    handle,
    notify,
    close() {
      if (poll !== null) clearInterval(poll);
      clearInterval(heartbeat);
      for (const t of pendingNotify.values()) clearTimeout(t);
      for (const set of streams.values()) for (const res of set) res.end();
      streams.clear();
    },
  };
}

/** The sign-in's id from the request's cookie, if it carries one. */
function sessionIdOf(req: http.IncomingMessage): string | undefined {
  return new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]{20,})`).exec(req.headers.cookie ?? "")?.[1];
}

function send(res: http.ServerResponse, status: number, body: string, type = "text/html", cache = "no-store"): void {
  res.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "content-length": Buffer.byteLength(body),
    "cache-control": cache,
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  res.end(body);
}

function redirect(res: http.ServerResponse, to: string): true {
  res.writeHead(303, { location: to, "cache-control": "no-store", "content-length": 0 });
  res.end();
  return true;
}

/** A small urlencoded form (at most 8 KiB), or null. */
function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= 8192) chunks.push(c);
    });
    req.on("end", () => resolve(size > 8192 ? null : new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", () => resolve(null));
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
