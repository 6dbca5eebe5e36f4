import net = require("node:net");
import type { DaemonAnswer, DaemonCall, DaemonMiss } from "./daemon-wire.js";

/**
 * Sends one call to the daemon at `socket` and waits for its answer line. Never throws: a daemon that is not there,
 * slow to accept (`connectMs`), slow to answer (`answerMs`) or answering garbage is a miss, and the caller runs the
 * event itself (or, past its time, fails open). With `stopped`, a daemon still silent after `afterMs` whose `check`
 * says why it never will answer is a miss at once.
 *
 * CommonJS, as the rest of the hook's thin path (`daemon-client.cts`).
 */
function callDaemon(
  socket: string,
  call: DaemonCall,
  limits: { connectMs: number; answerMs: number; stopped?: { readonly afterMs: number; readonly check: () => string | null } },
): Promise<DaemonAnswer | DaemonMiss> {
  return new Promise((resolve) => {
    let settled = false;
    let connected = false;
    const chunks: Buffer[] = [];
    const done = (value: DaemonAnswer | DaemonMiss): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(value);
    };
    const conn = net.createConnection(socket);
    let timer = setTimeout(() => done({ miss: "absent", reason: `no connection within ${limits.connectMs} ms` }), limits.connectMs);
    conn.on("connect", () => {
      connected = true;
      clearTimeout(timer);
      timer = setTimeout(() => done({ miss: "failed", reason: `no answer within ${limits.answerMs} ms` }), limits.answerMs);
      // A daemon whose process is stopped accepts connections (the kernel does) and never answers: asked once, early,
      // so that the caller does not wait out the whole answer time for it.
      const stopped = limits.stopped;
      if (stopped !== undefined) {
        setTimeout(() => {
          const why = settled ? null : stopped.check();
          if (why !== null) done({ miss: "stopped", reason: why });
        }, stopped.afterMs).unref();
      }
      // Written, not ended: the daemon answers on the same connection, then closes it.
      conn.write(`${JSON.stringify(call)}\n`);
    });
    conn.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\n");
      if (end < 0) return;
      try {
        done(JSON.parse(text.slice(0, end)) as DaemonAnswer);
      } catch {
        done({ miss: "failed", reason: "an answer that is not JSON" });
      }
    });
    conn.on("error", (error: NodeJS.ErrnoException) => done({ miss: connected ? "failed" : "absent", reason: error.code ?? error.message }));
    conn.on("close", () => done({ miss: connected ? "failed" : "absent", reason: "closed without an answer" }));
  });
}

export = { callDaemon };
