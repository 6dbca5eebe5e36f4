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

/** Connections a long-lived process keeps for reuse between requests ({@link keptConnections}). */
export interface KeptConnections {
  readonly http: import("node:http").Agent;
  readonly https: import("node:https").Agent;
  /** Ends the idle connections (a process that ends). */
  close(): void;
}

/**
 * For a long-lived process (`comity daemon`): requests given these reuse a server's connections (one TCP and TLS
 * handshake per server, not per event). A one-shot process must not: an idle kept socket would hold it open.
 * Idle connections are dropped after 4 s, before a server's usual 5 s keep-alive timeout closes them under a request.
 */
export async function keptConnections(): Promise<KeptConnections> {
  const [http, https] = await Promise.all([import("node:http"), import("node:https")]);
  const options = { keepAlive: true, maxSockets: 8, timeout: 4000 };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** What one request is: without `connections`, it opens and closes its own connection. */
export interface HttpRequestOptions {
  readonly method: "GET" | "POST";
  readonly token?: string | undefined;
  readonly body?: unknown;
  readonly timeoutMs: number;
  readonly maxBytes?: number;
  readonly connections?: KeptConnections | undefined;
}

export async function httpRequest(url: URL, options: HttpRequestOptions): Promise<HttpAnswer> {
  try {
    return await requestOnce(url, options);
  } catch (error) {
    // A kept connection the server closed just as it was reused: the request never reached it; once more, on a new one.
    if (error instanceof StaleConnection) return requestOnce(url, options);
    throw error;
  }
}

class StaleConnection extends Error {}

async function requestOnce(url: URL, options: HttpRequestOptions): Promise<HttpAnswer> {
  const max = options.maxBytes ?? MAX_ANSWER_BYTES;
  const https = url.protocol === "https:";
  const { request } = https ? await import("node:https") : await import("node:http");
  const payload = options.body === undefined ? null : JSON.stringify(options.body);
  const kept = options.connections;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method,
        agent: kept === undefined ? false : https ? kept.https : kept.http,
        headers: {
          ...(payload === null ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          connection: kept === undefined ? "close" : "keep-alive",
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
