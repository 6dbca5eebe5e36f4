import type * as http from "node:http";

/**
 * How many live streams (`/events`) the dashboard holds, and for how long. A stream holds a connection for as long as
 * it is open: unbounded, one signed-in browser (or a script with its cookie) could take every connection of the
 * server, and every team's hooks would fail open. The server's connections beyond `total` stay for the API.
 */
export interface StreamLimits {
  /** Streams of one sign-in at once (a person with a few tabs). */
  readonly perSignIn: number;
  /** Streams of one team at once. */
  readonly perTeam: number;
  /** Streams at once, every team together: a share of the server's connections, the rest kept for the API. */
  readonly total: number;
  /** A stream ends after this long; the page's EventSource connects again at once, signed in or not. */
  readonly maxAgeMs: number;
  /** A comment line keeps proxies from closing a quiet stream. */
  readonly heartbeatMs: number;
}

export const STREAM_LIMITS: StreamLimits = { perSignIn: 4, perTeam: 32, total: 256, maxAgeMs: 15 * 60 * 1000, heartbeatMs: 15_000 };

interface Stream {
  readonly res: http.ServerResponse;
  readonly teamId: string;
  readonly signIn: string;
  /** The token its sign-in was made with (null: none to check). */
  readonly key: string | null;
  readonly opened: number;
}

export interface EventStreams {
  /**
   * Opens a stream for a sign-in; at one of the limits, it ends the sign-in's oldest stream first (its last event,
   * `replaced`, tells the page to stop rather than connect again), or answers 429 (with `Retry-After`) where the
   * sign-in holds none. The stream ends when the client goes, after `maxAgeMs`, when a newer stream of its sign-in
   * takes its place, or when the token it was signed in with stops being valid.
   */
  open(req: http.IncomingMessage, res: http.ServerResponse, who: { readonly signIn: string; readonly teamId: string; readonly key: string | null }): void;
  /** Something changed for this team: its open streams say so (at most a few times a second). */
  notify(teamId: string): void;
  /** Ends the streams of a sign-in (by its hash). */
  endSignIn(signIn: string): void;
  /** Ends the streams of the sign-ins made with a token (by its hash). */
  endKey(key: string): void;
  /** The teams with open streams. */
  teams(): string[];
  close(): void;
}

/**
 * The dashboard's Server-Sent Events, bounded (`StreamLimits`). `valid`: whether a token still is (a revoked one's
 * streams end at the next heartbeat).
 */
export function createEventStreams(options: { readonly now: () => number; readonly limits?: Partial<StreamLimits>; readonly valid?: (key: string) => Promise<boolean> }): EventStreams {
  const limits = { ...STREAM_LIMITS, ...(options.limits ?? {}) };
  const open = new Set<Stream>();
  const pending = new Map<string, NodeJS.Timeout>();
  const count = (test: (s: Stream) => boolean): number => {
    let n = 0;
    for (const s of open) if (test(s)) n++;
    return n;
  };
  const end = (s: Stream, event?: string): void => {
    open.delete(s);
    s.res.end(event === undefined ? undefined : `event: ${event}\ndata: \n\n`);
  };
  const heartbeat = setInterval(() => {
    const t = options.now();
    for (const s of [...open]) {
      if (t - s.opened >= limits.maxAgeMs) end(s);
      else s.res.write(": ping\n\n");
    }
    const check = options.valid;
    if (check === undefined) return;
    for (const key of new Set([...open].flatMap((s) => (s.key === null ? [] : [s.key])))) {
      void check(key).then(
        (ok) => {
          if (!ok) for (const s of [...open]) if (s.key === key) end(s);
        },
        () => undefined,
      );
    }
  }, limits.heartbeatMs);
  heartbeat.unref();
  return {
    open(req, res, who) {
      // At a limit, a sign-in's newest page wins over its oldest stream: behind a proxy, a page the person has left
      // keeps its stream here until a write to it fails (the next heartbeat, up to 15 s), and a few reloads through
      // a balancer could otherwise leave that person's current page refused and "reconnecting". The counts never grow
      // past the limits; a sign-in that holds no stream is refused when its team or the server is full.
      const teamFull = count((s) => s.teamId === who.teamId) >= limits.perTeam;
      if (teamFull || open.size >= limits.total || count((s) => s.signIn === who.signIn) >= limits.perSignIn) {
        // (the first in the set is the oldest: streams are added as they open)
        let oldest: Stream | undefined;
        for (const s of open)
          if (s.signIn === who.signIn) {
            oldest = s;
            break;
          }
        // (told so, the page stops instead of connecting again, which would end another of its sign-in's pages)
        if (oldest !== undefined) end(oldest, "replaced");
        else {
          const over = teamFull ? "this team has as many live pages open as it may" : "the server has as many live pages open as it may";
          res.writeHead(429, { "content-type": "text/plain; charset=utf-8", "retry-after": "30", "cache-control": "no-store", connection: "close" });
          res.end(`${over}: close one, or wait\n`);
          return;
        }
      }
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
      res.write("retry: 2000\n\n");
      const stream: Stream = { res, teamId: who.teamId, signIn: who.signIn, key: who.key, opened: options.now() };
      open.add(stream);
      req.socket.setTimeout(0);
      res.on("close", () => open.delete(stream));
    },
    notify(teamId) {
      if (pending.has(teamId) || count((s) => s.teamId === teamId) === 0) return;
      pending.set(
        teamId,
        setTimeout(() => {
          pending.delete(teamId);
          for (const s of open) if (s.teamId === teamId) s.res.write(`event: change\ndata: ${options.now()}\n\n`);
        }, 200),
      );
    },
    endSignIn(signIn) {
      for (const s of [...open]) if (s.signIn === signIn) end(s);
    },
    endKey(key) {
      for (const s of [...open]) if (s.key === key) end(s);
    },
    teams() {
      return [...new Set([...open].map((s) => s.teamId))];
    },
    close() {
      clearInterval(heartbeat);
      for (const t of pending.values()) clearTimeout(t);
      for (const s of [...open]) end(s);
    },
  };
}
