import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { coordinationMode, type CoordinationMode } from "../../config/coordination-mode.js";
import type { CliIo } from "../io.js";

export const STATUS_USAGE = `usage: comity status [DIR] [--json | --web [--port N]]

What the agents are doing: the active sessions (host, label, branch, folder,
since when, the files they hold, the symbols they changed), the open conflicts
between them, and what is queued for a session that has not been told yet.
From this machine's embedded store, or from the team's API when one is
configured (COMITY_API_URL or comity login).

DIR (default: the current folder) narrows it to DIR's repo, or to the repos
under DIR; a folder without repos shows every repo.
  --json   the report as JSON (schema comity.status/1)
  --web    this machine's live dashboard (the embedded store's), on
           127.0.0.1: prints a one-time sign-in link, runs until Ctrl-C
           (with a team server, its dashboard is at the server's address)
`;

/** `comity status`: 0, or 2 on bad arguments or an API that does not answer. */
export async function statusCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, web: { type: "boolean", default: false }, port: { type: "string", default: "0" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.stdout.write(STATUS_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    io.stderr.write(`comity status: one folder at most\n${STATUS_USAGE}`);
    return 2;
  }
  const home = io.env["HOME"] ?? os.homedir();
  const mode = coordinationMode(io.env, configDir(io.env, home));
  if (values.web) return serveLocalDashboard(io, mode, Number(values.port));
  const dir = path.resolve(io.cwd, positionals[0] ?? ".");
  const { readStatus } = await import("../../coordination/read-status.js");
  const { fingerprintsUnder } = await import("../../workspace/repo-fingerprints.js");
  const { httpRequest } = await import("../../api/http-request.js");
  const now = Date.now();
  const report = await readStatus({
    mode,
    fingerprints: await fingerprintsUnder(dir, mode, io.env),
    now,
    get: (url, token) => httpRequest(url, { method: "GET", token, timeoutMs: 3000 }),
  });
  if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const { formatStatus } = await import("../format-status.js");
    io.stdout.write(formatStatus(report, { now, colour: io.stdout.isTTY === true && io.env["NO_COLOR"] === undefined }));
  }
  return 0;
}

/** `comity status --web`: the dashboard over this machine's embedded store, on loopback, until Ctrl-C. */
async function serveLocalDashboard(io: CliIo, mode: CoordinationMode, port: number): Promise<number> {
  if (mode.kind === "off") {
    io.stderr.write("comity status: coordination is off (COMITY_API_URL=off): there is nothing to show\n");
    return 2;
  }
  if (mode.kind === "served") {
    io.stdout.write(`Hooks coordinate through the team server: its dashboard is at ${new URL("/", mode.url).toString()} (sign in with a token of the team)\n`);
    return 0;
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr.write(`comity status: --port: '${port}' is not a port\n`);
    return 2;
  }
  const http = await import("node:http");
  const { randomBytes } = await import("node:crypto");
  const { openEmbeddedStore, LOCAL_TEAM } = await import("../../coordination/embedded-store.js");
  const { createDashboard } = await import("../../dashboard/create-dashboard.js");
  const { DEFAULT_LEASE_MS } = await import("../../coordination/evaluate-event.js");
  const store = await openEmbeddedStore(mode.file);
  const secret = randomBytes(24).toString("base64url");
  // Every page under a path of its own for this launch, which the sign-in cookie is scoped to: a browser sends a
  // cookie of 127.0.0.1 to every port of it, so any other local server could otherwise receive (and replay) it.
  const base = `/${randomBytes(12).toString("base64url")}`;
  const dashboard = createDashboard({
    base,
    read: (fn) => store.database.read(fn),
    teamForToken: async () => undefined,
    setPolicy: (_team, policy) => store.setPolicy(policy),
    leaseMs: DEFAULT_LEASE_MS,
    oneTime: { secret, team: { id: LOCAL_TEAM.id, name: "this machine", readOnly: false } },
    // Hooks write the store from their own processes: a new event is seen by polling.
    changeStamp: async () => {
      // The last row's id: one index probe, however long the history.
      const rows = await store.database.read((sql) => sql.all<{ n: number | null }>("SELECT MAX(rowid) AS n FROM session_events"));
      return String(rows[0]?.n ?? 0);
    },
  });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    dashboard.handle(req, res, url).then(
      (handled) => {
        if (!handled && !res.headersSent) {
          res.writeHead(404, { "content-type": "text/plain" });
          res.end("not found\n");
        }
      },
      (error: unknown) => {
        io.stderr.write(`comity status: ${error instanceof Error ? error.message : String(error)}\n`);
        if (!res.headersSent) res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const where = typeof address === "object" && address !== null ? `http://127.0.0.1:${address.port}` : String(address);
  io.stdout.write(`comity status: this machine's dashboard (embedded store ${mode.file})\nOpen once to sign in: ${where}${base}/signin?once=${secret}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      dashboard.close();
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await store.close();
  return 0;
}
