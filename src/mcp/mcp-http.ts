import { createComityMcpServer, type McpContext } from "./mcp-server.js";

/** One HTTP request to Comity's MCP server, as the daemon's HTTP front passes it on. */
export interface McpHttpRequest {
  readonly method: string;
  /** The request target (path and query); the front has checked its host. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/**
 * Answers one Streamable HTTP request to Comity's MCP server (the SDK's transport, stateless, answering in JSON): a
 * server is made for the request and closed after it, as its tools keep nothing between calls. The daemon serves it
 * this way, so a host that takes MCP servers over HTTP starts no process for Comity's.
 */
export async function answerMcpHttp(request: McpHttpRequest, ctx: McpContext): Promise<{ readonly status: number; readonly body: string }> {
  // What is the same for every caller of a build (the handshake, the tool list) is the SDK's own first answer, kept
  // and given again with the request's id: making each costs the daemon's only thread 5-20 ms, at every session
  // start of every agent. A notification wants no answer from a server that keeps no state.
  const asked = keptQuestion(request);
  if (asked === "notification") return { status: 202, body: "" };
  const kept = asked === null ? undefined : answers.get(asked.key);
  if (asked !== null && kept !== undefined) return { status: 200, body: JSON.stringify({ result: kept, jsonrpc: "2.0", id: asked.id }) };
  const { WebStandardStreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
  const server = createComityMcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const response = await transport.handleRequest(new Request(new URL(request.url, "http://127.0.0.1"), { method: request.method, headers, ...(hasBody ? { body: request.body } : {}) }));
    const body = await response.text();
    if (asked !== null && response.status === 200 && answers.size < 16) {
      const result = (JSON.parse(body) as { result?: unknown }).result;
      if (typeof result === "object" && result !== null) answers.set(asked.key, result);
    }
    return { status: response.status, body };
  } finally {
    await server.close();
  }
}

/** The SDK's first result to each question {@link keptQuestion} names, in this process (a few protocol versions). */
const answers = new Map<string, unknown>();

/**
 * A POSTed message whose answer depends on nothing but the build: `initialize` (by the protocol version asked for) and
 * the first page of `tools/list`, with its key and id; "notification" for a notification; null for anything else.
 */
function keptQuestion(request: McpHttpRequest): { readonly key: string; readonly id: string | number } | "notification" | null {
  if (request.method !== "POST") return null;
  let m: { method?: unknown; id?: unknown; params?: { cursor?: unknown; protocolVersion?: unknown } };
  try {
    m = JSON.parse(request.body) as typeof m;
  } catch {
    return null;
  }
  if (typeof m !== "object" || m === null || Array.isArray(m) || typeof m.method !== "string") return null;
  if (m.id === undefined) return m.method.startsWith("notifications/") ? "notification" : null;
  if (typeof m.id !== "string" && typeof m.id !== "number") return null;
  if (m.method === "tools/list" && m.params?.cursor === undefined) return { key: "tools/list", id: m.id };
  if (m.method === "initialize" && typeof m.params?.protocolVersion === "string") return { key: `initialize ${m.params.protocolVersion}`, id: m.id };
  return null;
}
