import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { httpRequest, keptConnections } from "../../src/api/http-request.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A server that answers every request and counts the connections it was opened. */
async function countingServer(): Promise<{ url: URL; connections: () => number; dropIdle: () => void }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end('{"ok":true}'));
  });
  servers.push(server);
  server.on("connection", () => n++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/health`), connections: () => n, dropIdle: () => server.closeIdleConnections() };
}

describe("httpRequest", () => {
  it("opens and closes a connection per request without kept connections, even after another caller kept some", async () => {
    const other = await keptConnections();
    const s = await countingServer();
    expect((await httpRequest(s.url, { method: "GET", timeoutMs: 2000, connections: other })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect(await httpRequest(s.url, { method: "GET", timeoutMs: 2000 })).toEqual({ status: 200, text: '{"ok":true}' });
    expect(s.connections()).toBe(5);
    other.close();
  });

  it("in a long-lived process, reuses one connection, and goes on when the server closed an idle one", async () => {
    const connections = await keptConnections();
    const s = await countingServer();
    for (let i = 0; i < 4; i++) expect((await httpRequest(s.url, { method: "POST", body: { i }, timeoutMs: 2000, connections })).status).toBe(200);
    expect(s.connections()).toBe(1);
    // The server drops its idle connections: the next request still gets its answer, on a new one.
    s.dropIdle();
    expect((await httpRequest(s.url, { method: "GET", timeoutMs: 2000, connections })).status).toBe(200);
    expect(s.connections()).toBe(2);
    connections.close();
  });

  it("in a long-lived process, sends a request once more on a new connection when the kept one is closed under it", async () => {
    const connections = await keptConnections();
    // A server that closes a connection as its second request arrives (as one whose keep-alive just ran out does).
    let n = 0;
    const served = new WeakMap<object, number>();
    const server = http.createServer((req, res) => {
      const before = served.get(req.socket) ?? 0;
      served.set(req.socket, before + 1);
      if (before >= 1) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on("end", () => res.end("{}"));
    });
    servers.push(server);
    server.on("connection", () => n++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/hooks/evaluate`);
    expect((await httpRequest(url, { method: "POST", body: { a: 1 }, timeoutMs: 2000, connections })).status).toBe(200);
    expect((await httpRequest(url, { method: "POST", body: { a: 2 }, timeoutMs: 2000, connections })).status).toBe(200);
    expect(n).toBe(2);
    connections.close();
  });
});
