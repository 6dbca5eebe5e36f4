import * as http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { httpRefusal, type DaemonHttpConfig } from "./daemon-http.js";

/**
 * The daemon's HTTP front, on a thread of its own. The daemon's thread runs one hook event at a time, and some of
 * its work holds it (git status with its deadline, SQLite waiting out another process's write lock): an HTTP server on
 * that thread could not even accept a connection then, and Claude Code would wait out the hook's timeout on every
 * tool call. Here a request is read, refused or passed to the daemon's thread; that thread acknowledges it as soon as
 * it takes it (the event then waits its turn as any other), and where no acknowledgement comes within `ackMs` the
 * front answers 503 at once (Claude Code goes on without the hook's answer). The request stays with the daemon's
 * thread, which runs the event when it is free: the event is recorded late rather than lost, and its answer is dropped.
 */
export interface HttpFrontData {
  readonly config: DaemonHttpConfig;
  readonly hosts: readonly string[];
  readonly maxBytes: number;
  readonly requestMs: number;
  readonly ackMs: number;
}

/** What the front sends the daemon's thread. */
export type FrontMessage =
  | { readonly type: "listening" }
  | { readonly type: "problem"; readonly problem: string }
  | {
      readonly type: "request";
      readonly id: number;
      readonly request: { readonly method: string; readonly url: string; readonly headers: Record<string, string | string[] | undefined>; readonly body: string };
    }
  | { readonly type: "closed" };

/** What the daemon's thread sends the front. */
export type DaemonMessage =
  | { readonly type: "ack"; readonly id: number }
  | { readonly type: "answer"; readonly id: number; readonly status: number; readonly body: string }
  | { readonly type: "close" };

const data = workerData as HttpFrontData;
const port = parentPort;
if (port === null) throw new Error("the HTTP front runs as a worker thread");
const post = (m: FrontMessage): void => port.postMessage(m);

interface Pending {
  readonly send: (status: number, body: string) => void;
  timer: NodeJS.Timeout | null;
}
const pending = new Map<number, Pending>();
/** What a refused caller may still send, discarded, before its connection is closed anyway. */
const LINGER_BYTES = 8 * 1024 * 1024;
const LINGER_MS = 2000;
let nextId = 1;
/** Requests passed to the daemon's thread that it has not taken yet, and how many may be. */
let unacked = 0;
const MAX_UNACKED = 8;

const server = http.createServer({ requestTimeout: data.requestMs, headersTimeout: data.requestMs, maxHeaderSize: 16 * 1024 }, (req, res) => {
  const send = (status: number, body: string): void => {
    if (res.headersSent) return;
    res.writeHead(status, { "content-type": status === 200 ? "application/json" : "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(body);
  };
  // A refusal, on the headers alone: what the caller still sends is discarded, never kept, and the refusal is said
  // once it has sent it all (8 MiB or 2 s at most, then the connection goes). Closing a socket with unread bytes
  // resets it, and a caller still writing would never read its 401 or 413.
  let refused = false;
  const refuse = (status: number, reason: string): void => {
    if (refused) return;
    refused = true;
    res.setHeader("connection", "close");
    let discarded = 0;
    let said = false;
    const say = (): void => {
      if (said) return;
      said = true;
      clearTimeout(linger);
      send(status, `${reason}\n`);
    };
    const linger = setTimeout(() => {
      say();
      req.socket.destroy();
    }, LINGER_MS);
    req.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) {
        say();
        req.socket.destroy();
      }
    });
    req.on("end", say);
    req.resume();
  };
  req.on("error", () => undefined);
  const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers };
  const refusal = httpRefusal(request, data.config, data.hosts);
  if (refusal !== null) {
    refuse(refusal.status, refusal.reason);
    return;
  }
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > data.maxBytes) {
    refuse(413, `request over ${data.maxBytes} bytes`);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > data.maxBytes) {
      refuse(413, `request over ${data.maxBytes} bytes`);
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    if (refused) return;
    // The daemon's thread held, and as many requests already waiting for it as its queue takes: this one is not
    // passed on at all (a caller that keeps asking must not pile up work for later).
    if (unacked >= MAX_UNACKED) {
      send(503, "the daemon is busy\n");
      return;
    }
    const id = nextId++;
    const entry: Pending = { send, timer: null };
    entry.timer = setTimeout(() => {
      entry.timer = null;
      send(503, "the daemon is busy\n");
    }, data.ackMs);
    pending.set(id, entry);
    // The connection gone (the host's own timeout): nothing is sent, the answer is dropped when it comes.
    res.on("close", () => {
      if (entry.timer === null) pending.delete(id);
    });
    unacked++;
    post({ type: "request", id, request: { ...request, headers: { ...req.headers }, body: Buffer.concat(chunks).toString("utf8") } });
  });
});
server.on("clientError", (_error, socket) => socket.destroy());
// A caller that ends its side after its request (a half-close) still gets the answer, which now comes a message
// round-trip later: Node's HTTP server would otherwise end the socket at the caller's FIN, before it is written.
(server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
// Connections past these are closed at once rather than held: a flood cannot take the daemon's descriptors.
server.maxConnections = 64;
server.once("error", (error: NodeJS.ErrnoException) => post({ type: "problem", problem: `127.0.0.1:${data.config.port}: ${error.code ?? error.message}` }));
server.listen(data.config.port, "127.0.0.1", () => post({ type: "listening" }));

port.on("message", (m: DaemonMessage) => {
  if (m.type === "close") {
    server.closeAllConnections();
    server.close(() => {
      post({ type: "closed" });
      port.close();
    });
    return;
  }
  // Every request passed on is acknowledged once, answered or not by then.
  if (m.type === "ack") unacked--;
  const entry = pending.get(m.id);
  if (entry === undefined) return;
  if (m.type === "ack") {
    // Taken by the daemon's thread: the event waits its turn there, the host's own timeout bounding the wait.
    if (entry.timer !== null) clearTimeout(entry.timer);
    entry.timer = null;
    return;
  }
  pending.delete(m.id);
  if (entry.timer !== null) clearTimeout(entry.timer);
  entry.send(m.status, m.body);
});
