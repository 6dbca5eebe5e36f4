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

export async function httpRequest(url: URL, options: { method: "GET" | "POST"; token?: string | undefined; body?: unknown; timeoutMs: number; maxBytes?: number }): Promise<HttpAnswer> {
  const max = options.maxBytes ?? MAX_ANSWER_BYTES;
  const { request } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const payload = options.body === undefined ? null : JSON.stringify(options.body);
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method,
        agent: false,
        headers: {
          ...(payload === null ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          connection: "close",
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
    req.on("error", (e: NodeJS.ErrnoException) => reject(new Error(`cannot reach the API (${e.code ?? e.message})`)));
    req.end(payload ?? undefined);
  });
}

/** `<base>/<path>`, whatever slashes the configured base URL ends with. */
export function apiUrl(baseUrl: string, apiPath: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, "")}${apiPath}`);
}
