import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

export interface Reply {
  readonly status?: number;
  readonly body?: unknown;
  /** Raw text instead of JSON. */
  readonly raw?: string;
  readonly delayMs?: number;
}

/** An HTTP server on 127.0.0.1 that records each request and answers with what the test says. */
export interface RecordingServer {
  readonly url: string;
  readonly requests: Recorded[];
  reply: (req: Recorded) => Reply;
  close(): Promise<void>;
}

export const ALLOW = { decision: "allow", reason: null, inject_context: null, conflicts: [], session_id: "srv-1", index_version: 1 };

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const state: { reply: (req: Recorded) => Reply } = { reply: () => ({ body: ALLOW }) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        // recorded as empty
      }
      const rec: Recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(rec);
      const r = state.reply(rec);
      const send = (): void => {
        res.writeHead(r.status ?? 200, { "content-type": "application/json" });
        res.end(r.raw ?? JSON.stringify(r.body ?? ALLOW));
      };
      if ((r.delayMs ?? 0) > 0) setTimeout(send, r.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get reply() {
      return state.reply;
    },
    set reply(fn) {
      state.reply = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
