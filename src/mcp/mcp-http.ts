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
    return { status: response.status, body: await response.text() };
  } finally {
    await server.close();
  }
}
