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
 */
export async function sendEvaluate(baseUrl: string, token: string | undefined, body: unknown, timeoutMs: number): Promise<EvaluateResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, "")}/v1/hooks/evaluate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token === undefined || token === "" ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}`);
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new Error("answer is not JSON");
    }
    const parsed = parseEvaluateResponse(json);
    if (parsed === null) throw new Error("answer does not have the documented shape");
    return parsed;
  } catch (error) {
    if (controller.signal.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
    const cause = error instanceof Error ? ((error as { cause?: { code?: string } }).cause?.code ?? error.message) : String(error);
    throw new Error(cause.startsWith("HTTP") || cause.startsWith("answer") ? cause : `cannot reach the API (${cause})`);
  } finally {
    clearTimeout(timer);
  }
}
