import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../src/store/database.js";
import { createCoordinationServer } from "../../src/serve/create-server.js";
import { openDatabase } from "../../src/store/open-database.js";
import { createToken } from "../../src/serve/teams.js";

let dir: string;
let db: Database;
let server: http.Server;
let port: number;
let token: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-limits-"));
  db = await openDatabase(path.join(dir, "s.sqlite"), { configDir: dir, cwd: dir });
  ({ token } = await createToken(db, "acme"));
  // The real limits, scaled down 10 times so the test is quick: 500 ms for headers, 1 s for a request.
  server = await createCoordinationServer({ database: db, limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000, checkEveryMs: 100, maxConnections: 8 } });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Opens a socket, writes `head`, and resolves with what came back once the server closed it. */
function rawSocket(head: string, keepWriting = false): Promise<{ text: string }> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => s.write(head));
    let text = "";
    let timer: NodeJS.Timeout | undefined;
    if (keepWriting) timer = setInterval(() => s.writable && s.write("x"), 100);
    s.on("data", (c) => (text += c.toString("latin1")));
    s.on("error", () => undefined);
    s.on("close", () => {
      clearInterval(timer);
      resolve({ text });
    });
  });
}

describe("comity serve: limits that hold", () => {
  it("closes a socket that sends its headers too slowly, and one whose body never ends, within the configured time", async () => {
    // The client never closes these sockets: that they close at all (before the test's own timeout) is the server's doing.
    const slowHeaders = await rawSocket("POST /v1/hooks/evaluate HTTP/1.1\r\nHost: x\r\n");
    expect(slowHeaders.text).toMatch(/^HTTP\/1\.1 408|^$/);
    const slowBody = await rawSocket(`POST /v1/hooks/evaluate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 100000\r\n\r\n{`, true);
    expect(slowBody.text).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it("answers 413 to a body over the limit whatever its size, and 400 to a request target that is not a path", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path: "/v1/hooks/evaluate", method: "POST", headers: { authorization: `Bearer ${token}`, "content-length": 9 * 1024 * 1024 } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(Buffer.alloc(9 * 1024 * 1024, 0x20));
    });
    expect(status).toBe(413);
    const bad = await rawSocket("GET //x:99999/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(bad.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad.text).toContain("bad_request_target");
  });

  it("caps concurrent connections", () => {
    expect(server.maxConnections).toBe(8);
  });
});
