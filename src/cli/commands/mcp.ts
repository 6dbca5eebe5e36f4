import { parseArgs } from "node:util";
import type { CliIo } from "../io.js";

export const MCP_USAGE = `usage: comity mcp [--host HOST]

Comity's MCP server, on stdin and stdout, for as long as the host that started
it keeps them open. Its tools let a model ask before it acts and reach the
other agents: who, status, check_edit, impact, reserve, release, analyze,
send_message, inbox.
They answer from where this machine's hooks coordinate (the embedded store, or
the team's API). comity init writes it into each host's MCP configuration.
  --host HOST   the host that starts it (claude_code, codex, cursor, copilot,
                omp, compozy): the caller is that host's latest session in
                this folder's working tree
`;

/** `comity mcp`: 0 once the host closes the stream, 2 on bad arguments. */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { host: { type: "string" }, help: { type: "boolean", short: "h", default: false } } });
  if (values.help) {
    io.stdout.write(MCP_USAGE);
    return 0;
  }
  const { HOOK_TOOLS } = await import("../../hook/hosts.js");
  if (positionals.length > 0 || (values.host !== undefined && !(HOOK_TOOLS as readonly string[]).includes(values.host))) {
    io.stderr.write(`comity mcp: ${positionals.length > 0 ? `unexpected ${positionals.join(" ")}` : `unknown host '${values.host}' (known: ${HOOK_TOOLS.join(", ")})`}\n${MCP_USAGE}`);
    return 2;
  }
  if (io.stdio === undefined) {
    io.stderr.write("comity mcp: runs on the process's own stdin and stdout\n");
    return 2;
  }
  const [{ createComityMcpServer }, { StdioServerTransport }] = await Promise.all([import("../../mcp/mcp-server.js"), import("@modelcontextprotocol/sdk/server/stdio.js")]);
  const server = createComityMcpServer({ env: io.env, cwd: io.cwd, host: values.host ?? null });
  const transport = new StdioServerTransport(io.stdio.stdin, io.stdio.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdio?.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return 0;
}
