import type { KeptConnections } from "../api/http-request.js";

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
export async function sendEvaluate(baseUrl: string, token: string | undefined, body: unknown, timeoutMs: number, connections?: KeptConnections): Promise<EvaluateResponse> {
  const { apiUrl, httpRequest } = await import("../api/http-request.js");
  const answer = await httpRequest(apiUrl(baseUrl, "/v1/hooks/evaluate"), { method: "POST", token, body, timeoutMs, connections });
  if (answer.status < 200 || answer.status > 299) throw new Error(`HTTP ${answer.status}`);
  const text = answer.text;
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
