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
  // The tool list is the same for every caller of a build: the SDK's own answer, kept, is given again with the
  // request's id (making it costs the daemon's thread 10-20 ms, at every session start of every agent).
  const listId = toolsListId(request);
  if (listId !== undefined && toolsList !== null) return { status: 200, body: JSON.stringify({ result: toolsList, jsonrpc: "2.0", id: listId }) };
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
    if (listId !== undefined && response.status === 200) {
      const result = (JSON.parse(body) as { result?: unknown }).result;
      if (typeof result === "object" && result !== null) toolsList = result;
    }
    return { status: response.status, body };
  } finally {
    await server.close();
  }
}

/** The result of `tools/list` as the SDK answered it first in this process (null until then). */
let toolsList: unknown = null;

/** The id of a POSTed `tools/list` request of the first page (no cursor), else undefined. */
function toolsListId(request: McpHttpRequest): string | number | undefined {
  if (request.method !== "POST" || !request.body.includes('"tools/list"')) return undefined;
  try {
    const m = JSON.parse(request.body) as { method?: unknown; id?: unknown; params?: { cursor?: unknown } };
    if (m.method !== "tools/list" || m.params?.cursor !== undefined) return undefined;
    return typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined;
  } catch {
    return undefined;
  }
}
