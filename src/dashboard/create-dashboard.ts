import { randomBytes, timingSafeEqual } from "node:crypto";
import type * as http from "node:http";
import type { Sql } from "../store/database.js";
import { POLICIES, type TeamPolicy } from "../coordination/wire.js";
import { shortSessionId } from "../coordination/coordination-text.js";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets.js";
import { readOverview, readRepoPage, readSessionPage } from "./dashboard-data.js";
import { createEventStreams, type StreamLimits } from "./event-streams.js";
import { createSignIns, SIGN_IN_LIMITS, type SignIn, type SignInLimits, type SignIns, signInHash } from "./sign-ins.js";
import { esc, renderOverview, renderPage, renderRepo, renderLinkOnly, renderSession, renderSignIn, type ViewContext } from "./render-dashboard.js";

export interface DashboardTeam {
  readonly id: string;
  readonly name: string;
  readonly readOnly: boolean;
}

export interface DashboardOptions {
  /** Reads outside any write lock. */
  readonly read: <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>;
  /** The team a token names, with what names the token from then on (its hash), or undefined. */
  readonly teamForToken: (token: string) => Promise<(DashboardTeam & { readonly key: string }) | undefined>;
  /** Whether the token of that name is still valid (a revoked one's sign-ins end at their next request). */
  readonly validKey?: (key: string) => Promise<boolean>;
  readonly setPolicy: (teamId: string, policy: TeamPolicy) => Promise<void>;
  readonly leaseMs: number;
  readonly now?: () => number;
  /** Cookies marked Secure (the server is behind TLS). */
  readonly secureCookies?: boolean;
  /** A secret that signs in once as this team (`comity status --web`, for the local user). */
  readonly oneTime?: { readonly secret: string; readonly team: DashboardTeam };
  /**
   * The path every page lives under (default none): `comity status --web` serves under a random one, which its cookie
   * is scoped to, so that no other server on the machine's loopback receives the cookie.
   */
  readonly base?: string;
  /**
   * Where events are applied by other processes (the embedded store): polled every second while a page is open;
   * a new value is a change. The server calls {@link Dashboard.notify} itself instead.
   */
  readonly changeStamp?: () => Promise<string>;
  readonly streamLimits?: Partial<StreamLimits>;
  readonly signInLimits?: SignInLimits;
  /** Where sign-ins are kept (default: this process's memory); a server's replicas share its database's. */
  readonly signIns?: SignIns;
  /** A sign-in ended here (its hash): the server tells its other replicas, whose streams of it end too. */
  readonly onSignOut?: (hash: string) => void;
  /** The dashboard changed something of a team (its policy): the server tells its other replicas. */
  readonly onChange?: (teamId: string) => void;
}

export interface Dashboard {
  /** Answers a request for the dashboard; false when the path is not the dashboard's (the API's `/v1/`). */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<boolean>;
  /** Something changed for this team: its open pages update. */
  notify(teamId: string): void;
  /** Every open page updates (what changed meanwhile was not heard). */
  notifyAll(): void;
  /** A sign-in (by its hash) ended elsewhere: its streams here end. */
  endSignIn(hash: string): void;
  /** A token (by its hash) was revoked elsewhere: the streams of its sign-ins here end. */
  endKey(key: string): void;
  /** Ends every open event stream (before the server closes). */
  close(): void;
}

/** How long a sign-in lasts. */
export const DASHBOARD_SESSION_MS = SIGN_IN_LIMITS.ttlMs;
const COOKIE = "comity_dashboard";
/** The sign-in form's own token, in a cookie and in the form: a page of another site cannot post it (login CSRF). */
const FORM_COOKIE = "comity_signin";
/** Failed sign-ins allowed from one address in {@link SIGNIN_WINDOW_MS}: past that, a wrong token gets 429 (a right one still signs in). */
export const SIGNIN_LIMIT = 20;
export const SIGNIN_WINDOW_MS = 10_000;

/**
 * The dashboard of `comity serve` (and of `comity status --web`): server-rendered pages of what every agent of a
 * team is doing (overview, repo, session), live over Server-Sent Events, behind a sign-in with a team token. The
 * sign-in is an HttpOnly, SameSite=Strict cookie naming a sign-in held in memory (it ends with the process, after 8
 * hours, or when its token is revoked); each page reads only the signed-in team's rows; the policy switch, the one
 * thing that changes state, takes a form token and a token that is not read-only. Its live streams are bounded
 * (`STREAM_LIMITS`), so that no sign-in can take the server's connections from the API.
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const now = options.now ?? Date.now;
  const base = options.base ?? "";
  const signIns = options.signIns ?? createSignIns(now, options.signInLimits);
  const streams = createEventStreams({ now, ...(options.streamLimits === undefined ? {} : { limits: options.streamLimits }), ...(options.validKey === undefined ? {} : { valid: options.validKey }) });
  const failures = new Map<string, number[]>();
  let oneTimeUsed = false;
  let lastStamp: string | null = null;
  const poll =
    options.changeStamp === undefined
      ? null
      : setInterval(() => {
          // Polled whether or not a page is open, so that a page opened just before an event still sees it.
          void options.changeStamp?.().then(
            (stamp) => {
              if (lastStamp !== null && stamp !== lastStamp) for (const team of streams.teams()) streams.notify(team);
              lastStamp = stamp;
            },
            () => undefined,
          );
        }, 1000);
  poll?.unref();
  // The baseline at once: an event written before the first tick is a change for a page opened meanwhile.
  void options.changeStamp?.().then(
    (stamp) => (lastStamp ??= stamp),
    () => undefined,
  );

  /** The request's sign-in, if it has one that is live and whose token is still valid (a revoked token's end now). */
  const signedIn = async (req: http.IncomingMessage): Promise<{ id: string; me: SignIn } | null> => {
    const id = cookieOf(req, COOKIE);
    const me = id === undefined ? null : await signIns.get(id);
    if (me === null || id === undefined) return null;
    if (me.key !== null && options.validKey !== undefined && !(await options.validKey(me.key))) {
      await signIns.endKey(me.key);
      streams.endKey(me.key);
      return null;
    }
    return { id, me };
  };
  const cookie = (name: string, value: string, maxAgeS: number, scope = `${base}/`): string =>
    `${name}=${value}; Path=${scope}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${options.secureCookies === true ? "; Secure" : ""}`;
  const startSession = async (res: http.ServerResponse, team: DashboardTeam, key: string | null): Promise<void> => {
    const id = await signIns.start(team, key);
    res.setHeader("set-cookie", cookie(COOKIE, id, Math.floor(SIGN_IN_LIMITS.ttlMs / 1000)));
  };
  const signInPage = (req: http.IncomingMessage, res: http.ServerResponse, status: number, error: string | null): true => {
    // This machine's dashboard (`comity status --web`) has no tokens: its one-time link is the only way in.
    if (options.oneTime !== undefined) {
      send(res, status, renderLinkOnly(base));
      return true;
    }
    // The same token while the browser keeps its cookie: another load of the page (a favicon redirected here, a
    // second tab) must not void a form already shown.
    const form = cookieOf(req, FORM_COOKIE) ?? randomBytes(18).toString("base64url");
    res.setHeader("set-cookie", cookie(FORM_COOKIE, form, 600, `${base}/signin`));
    send(res, status, renderSignIn(error, base, form));
    return true;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname.startsWith("/v1/") || url.pathname === "/v1") return false;
    if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
      req.resume();
      send(res, 404, "not found\n", "text/plain");
      return true;
    }
    const p = url.pathname.slice(base.length) || "/";
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
          await startSession(res, options.oneTime.team, null);
          return redirect(res, `${base}/`);
        }
        // The link opened again by the browser it signed in (from the terminal's history): it is still signed in.
        if (once !== null && (await signedIn(req)) !== null) return redirect(res, `${base}/`);
        return signInPage(req, res, 200, once !== null ? "That sign-in link was used already, or is not this server's." : null);
      }
      if (method === "POST") {
        const body = await readForm(req);
        // A sign-in posted from another site's page (login CSRF): its browser says where it came from, and it cannot
        // have the form's own token.
        const formToken = body?.get("form") ?? "";
        if (!sameSite(req) || body === null || formToken === "" || !sameSecret(formToken, cookieOf(req, FORM_COOKIE) ?? "")) {
          send(res, 403, "sign in from this server's own page\n", "text/plain");
          return true;
        }
        const address = req.socket.remoteAddress ?? "?";
        const recent = (failures.get(address) ?? []).filter((t) => t > now() - SIGNIN_WINDOW_MS);
        const token = (body.get("token") ?? "").trim();
        // Looked up even while the address is slowed down: a right token signs in (behind a proxy, everyone shares
        // the address), a wrong one waits.
        const team = token === "" ? undefined : await options.teamForToken(token);
        if (team === undefined) {
          if (recent.length >= SIGNIN_LIMIT) {
            res.setHeader("retry-after", String(Math.ceil(SIGNIN_WINDOW_MS / 1000)));
            return signInPage(req, res, 429, "Too many failed sign-ins from here: wait a few seconds.");
          }
          failures.set(address, [...recent, now()]);
          if (failures.size > 10_000) failures.clear();
          return signInPage(req, res, 401, "That token is not one of this server's.");
        }
        await startSession(res, team, team.key);
        return redirect(res, `${base}/`);
      }
    }
    const who = await signedIn(req);
    const fragment = url.searchParams.get("fragment") === "1";
    if (who === null) {
      req.resume();
      res.setHeader("set-cookie", cookie(COOKIE, "", 0));
      if (p === "/events" || fragment || method !== "GET") {
        send(res, 401, "sign in first\n", "text/plain");
        return true;
      }
      return redirect(res, `${base}/signin`);
    }
    const { me } = who;
    if (method === "POST") {
      const body = await readForm(req);
      if (body === null || !sameSecret(body.get("csrf") ?? "", me.csrf)) {
        send(res, 403, "the form is stale: reload the page\n", "text/plain");
        return true;
      }
      if (p === "/signout") {
        await signIns.end(who.id);
        const hash = signInHash(who.id);
        streams.endSignIn(hash);
        options.onSignOut?.(hash);
        res.setHeader("set-cookie", cookie(COOKIE, "", 0));
        return redirect(res, `${base}/signin`);
      }
      if (p === "/policy") {
        const policy = body.get("policy") ?? "";
        if (me.readOnly || !(POLICIES as readonly string[]).includes(policy)) {
          send(res, 403, me.readOnly ? "a read-only token cannot change the policy\n" : "unknown policy\n", "text/plain");
          return true;
        }
        await options.setPolicy(me.teamId, policy as TeamPolicy);
        streams.notify(me.teamId);
        options.onChange?.(me.teamId);
        return redirect(res, `${base}/`);
      }
      send(res, 404, "not found\n", "text/plain");
      return true;
    }
    req.resume();
    if (p === "/events") {
      streams.open(req, res, { signIn: signInHash(who.id), teamId: me.teamId, key: me.key });
      return true;
    }
    const ctx: ViewContext = { now: now(), team: me.team, csrf: me.csrf, readOnly: me.readOnly, base };
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
    const body = main ?? `<h1>Not found</h1><p>Nothing of team ${esc(me.team)} here. <a href="${esc(base)}/">Overview</a></p>`;
    send(res, status, fragment ? body : renderPage(title, body, ctx));
    return true;
  };

  return {
    handle,
    notify: (teamId) => streams.notify(teamId),
    notifyAll: () => {
      for (const team of streams.teams()) streams.notify(team);
    },
    endSignIn: (hash) => streams.endSignIn(hash),
    endKey: (key) => streams.endKey(key),
    close() {
      if (poll !== null) clearInterval(poll);
      streams.close();
    },
  };
}

/**
 * Whether a form post comes from this server's own pages, as far as the browser says: no `Sec-Fetch-Site` other than
 * same-origin (or none: typed by the person), and an `Origin`, if any, naming the host the request was sent to.
 * (`Origin: null` says nothing: browsers send it for a page's own form under `Referrer-Policy: no-referrer`, which
 * these pages have; the form's own token decides then.)
 */
function sameSite(req: http.IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = req.headers.origin;
  if (origin === undefined || origin === "null") return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** A cookie's value in the request, if it carries one of the shape Comity's cookies have. */
function cookieOf(req: http.IncomingMessage, name: string): string | undefined {
  return new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]{20,})`).exec(req.headers.cookie ?? "")?.[1];
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
