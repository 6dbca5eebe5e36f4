/** The coordination API's answer (`POST /v1/hooks/evaluate`). */
export interface EvaluateResponse {
  readonly decision: "allow" | "warn" | "block";
  readonly reason: string | null;
  readonly inject_context: string | null;
  readonly session_id: string;
  readonly index_version: number;
}

/** Checks an answer's shape; null when it is not the documented one (the hook then fails open). */
export function parseEvaluateResponse(value: unknown): EvaluateResponse | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (v["decision"] !== "allow" && v["decision"] !== "warn" && v["decision"] !== "block") return null;
  const optionalString = (x: unknown): string | null | undefined => (x === undefined || x === null ? null : typeof x === "string" ? x : undefined);
  const reason = optionalString(v["reason"]);
  const inject = optionalString(v["inject_context"]);
  if (reason === undefined || inject === undefined) return null;
  if (typeof v["session_id"] !== "string" || typeof v["index_version"] !== "number") return null;
  return { decision: v["decision"], reason, inject_context: inject, session_id: v["session_id"], index_version: v["index_version"] };
}

/**
 * POSTs a request with a deadline; resolves to the parsed answer, or throws
 * with a short reason (timeout, connection error, HTTP status, bad shape).
 * Uses `node:http`/`node:https` rather than `fetch`: loading and tearing down
 * undici cost about 140 ms per hook process here (benchmarks/README.md).
 */
export async function sendEvaluate(baseUrl: string, token: string | undefined, body: unknown, timeoutMs: number): Promise<EvaluateResponse> {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1/hooks/evaluate`);
  const { request } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const payload = JSON.stringify(body);
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          connection: "close",
          ...(token === undefined || token === "" ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) reject(new Error(`HTTP ${status}`));
          else resolve(Buffer.concat(chunks).toString("utf8"));
        });
        res.on("error", (e) => reject(new Error(`cannot reach the API (${e.message})`)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on("close", () => clearTimeout(timer));
    req.on("error", (e: NodeJS.ErrnoException) => reject(new Error(`cannot reach the API (${e.code ?? e.message})`)));
    req.end(payload);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("answer is not JSON");
  }
  const parsed = parseEvaluateResponse(json);
  if (parsed === null) throw new Error("answer does not have the documented shape");
  return parsed;
}
