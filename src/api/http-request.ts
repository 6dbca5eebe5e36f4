/** The status and body of one HTTP answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

/**
 * One HTTP request with a deadline, bearer token and optional JSON body;
 * resolves with any status, rejects with a short reason on a timeout or a
 * connection error. Uses `node:http`/`node:https` rather than `fetch`:
 * loading and tearing down undici costs about 140 ms of a hook process.
 */
/** An answer larger than this is refused: the hook fails open rather than hold hundreds of megabytes. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Connections kept for reuse ({@link keepConnectionsAlive}); null: each request opens and closes its own. */
let kept: { readonly http: import("node:http").Agent; readonly https: import("node:https").Agent } | null = null;

/**
 * For a long-lived process (`comity daemon`): from now on, requests to a server reuse its connections (one TCP and
 * TLS handshake per server, not per event). A one-shot process must not: an idle kept socket would hold it open.
 * Idle connections are dropped after 4 s, before a server's usual 5 s keep-alive timeout closes them under a request.
 */
export async function keepConnectionsAlive(): Promise<void> {
  const [http, https] = await Promise.all([import("node:http"), import("node:https")]);
  const options = { keepAlive: true, maxSockets: 8, timeout: 4000 };
  kept = { http: new http.Agent(options), https: new https.Agent(options) };
}

export async function httpRequest(url: URL, options: { method: "GET" | "POST"; token?: string | undefined; body?: unknown; timeoutMs: number; maxBytes?: number }): Promise<HttpAnswer> {
  try {
    return await requestOnce(url, options);
  } catch (error) {
    // A kept connection the server closed just as it was reused: the request never reached it; once more, on a new one.
    if (error instanceof StaleConnection) return requestOnce(url, options);
    throw error;
  }
}

class StaleConnection extends Error {}

async function requestOnce(url: URL, options: { method: "GET" | "POST"; token?: string | undefined; body?: unknown; timeoutMs: number; maxBytes?: number }): Promise<HttpAnswer> {
  const max = options.maxBytes ?? MAX_ANSWER_BYTES;
  const https = url.protocol === "https:";
  const { request } = https ? await import("node:https") : await import("node:http");
  const payload = options.body === undefined ? null : JSON.stringify(options.body);
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method,
        agent: kept === null ? false : https ? kept.https : kept.http,
        headers: {
          ...(payload === null ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          connection: kept === null ? "close" : "keep-alive",
          ...(options.token === undefined || options.token === "" ? {} : { authorization: `Bearer ${options.token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        if (Number(res.headers["content-length"]) > max) {
          req.destroy();
          reject(new Error(`answer over ${max} bytes`));
          return;
        }
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > max) {
            req.destroy();
            reject(new Error(`answer over ${max} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (e) => reject(new Error(`cannot reach the API (${e.message})`)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on("close", () => clearTimeout(timer));
    req.on("error", (e: NodeJS.ErrnoException) =>
      reject(req.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE") ? new StaleConnection(e.code) : new Error(`cannot reach the API (${e.code ?? e.message})`)),
    );
    req.end(payload ?? undefined);
  });
}

/** `<base>/<path>`, whatever slashes the configured base URL ends with. */
export function apiUrl(baseUrl: string, apiPath: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, "")}${apiPath}`);
}
