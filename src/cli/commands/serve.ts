import * as os from "node:os";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { asPolicy, POLICIES } from "../../coordination/wire.js";
import { ComityError } from "../../errors/comity-error.js";
import type { CliIo } from "../io.js";

export const SERVE_USAGE = `usage: comity serve [--port N] [--host ADDR] [--db URL] [--lease-seconds S] [--replica NAME]
       comity serve token create --team NAME [--name LABEL] [--read-only] [--db URL]
       comity serve token list --team NAME [--db URL]
       comity serve token revoke ID [--db URL]
       comity serve policy --team NAME [first_contact|advisory|block] [--db URL]

Runs the coordination API the hooks talk to (POST /v1/hooks/evaluate,
GET /v1/sessions, GET /v1/health), and the team's live dashboard at / (sign
in with a team token; a --read-only token can look but not change the policy,
and cannot be used by hooks).

  --port N           port to listen on (default 7373; 0 picks a free one)
  --host ADDR        address to listen on (default 127.0.0.1; 0.0.0.0 for a team)
  --db URL           postgres://user:pass@host/db for a team; a SQLite file path
                     otherwise (default: serve.sqlite in the config folder)
  --lease-seconds S  a session silent this long releases its files (default 600)
  --secure-cookies   mark the dashboard's sign-in cookie Secure (behind TLS)
  --replica NAME     this replica's name among the servers sharing one
                     PostgreSQL (default HOST:PORT); /v1/health lists the live
                     ones. SIGTERM drains it: no new connections, requests
                     under way answered, streams ended, then it exits.

token create  prints a new token for the team (created if new) once; it is
              stored hashed. Hooks send it as COMITY_TOKEN. --name says whose
              it is (a person, a machine).
token list    the team's tokens: id, name, created, last used (never a secret)
token revoke  deletes a token by its id: its next request gets 401, and the
              dashboard sign-ins made with it end at their next request
policy        shows or sets the team's policy, effective at the next request:
              first_contact (the default: the first edit that meets a conflict
              is denied once, with the whole warning; the retry is allowed),
              advisory (warnings as context only), or block (as first_contact,
              and editing a file another active session holds is denied).
`;

/** `comity serve`: runs until SIGINT/SIGTERM; exit 0 on a clean stop, 2 on bad arguments or storage. */
export async function serveCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      port: { type: "string", default: "7373" },
      host: { type: "string", default: "127.0.0.1" },
      db: { type: "string" },
      team: { type: "string" },
      name: { type: "string" },
      "read-only": { type: "boolean", default: false },
      "secure-cookies": { type: "boolean", default: false },
      "lease-seconds": { type: "string", default: "600" },
      replica: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(SERVE_USAGE);
    return 0;
  }
  const home = io.env["HOME"] ?? os.homedir();
  const open = async (server = false) => {
    const { openDatabase } = await import("../../store/open-database.js");
    return openDatabase(values.db ?? io.env["COMITY_SERVE_DB"], { configDir: configDir(io.env, home), cwd: io.cwd, server });
  };
  const [sub, action, ...extra] = positionals;

  if (sub === "token" && action === "revoke") {
    if (extra.length !== 1) return usageError(io, "the command is 'token revoke ID' (ids: comity serve token list --team NAME)");
    const db = await open();
    try {
      const { revokeToken } = await import("../../serve/teams.js");
      const gone = await revokeToken(db, extra[0] as string);
      io.stdout.write(
        `revoked token ${extra[0]}${gone.name === null ? "" : ` (${gone.name})`} of team '${gone.team}': its next request gets 401, and its dashboard sign-ins end at their next request\n`,
      );
      return 0;
    } finally {
      await db.close();
    }
  }
  if (sub === "token" || sub === "policy") {
    if (values.team === undefined) return usageError(io, `${sub} needs --team NAME`);
    if (sub === "token" && ((action !== "create" && action !== "list") || extra.length > 0))
      return usageError(io, "the token commands are 'token create --team NAME', 'token list --team NAME' and 'token revoke ID'");
    if (sub === "policy" && (extra.length > 0 || (action !== undefined && !(POLICIES as readonly string[]).includes(action)))) return usageError(io, `policy is ${POLICIES.join(", ")}`);
    const db = await open();
    try {
      if (sub === "token" && action === "list") {
        const { listTokens } = await import("../../serve/teams.js");
        const tokens = await listTokens(db, values.team);
        const when = (ms: number | null): string => (ms === null ? "never" : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z"));
        const rows = [["ID", "NAME", "CREATED", "LAST USED"], ...tokens.map((t) => [t.id, t.name ?? "-", when(t.created_at), when(t.last_used_at)])];
        const { alignColumns } = await import("../align-columns.js");
        for (const line of alignColumns(rows)) io.stdout.write(`${line}\n`);
      } else if (sub === "token") {
        const { createToken } = await import("../../serve/teams.js");
        const { team, token, id } = await createToken(db, values.team, Date.now, values.name ?? null, values["read-only"]);
        io.stderr.write(
          `comity serve: new ${values["read-only"] ? "read-only (dashboard) " : ""}token ${id}${values.name === undefined ? "" : ` (${values.name})`} for team '${team.name}' (shown once; stored hashed in ${db.location}):\n`,
        );
        io.stdout.write(`${token}\n`);
      } else {
        const { setTeamPolicy, teamPolicy } = await import("../../serve/teams.js");
        const team = action === undefined ? await teamPolicy(db, values.team) : await setTeamPolicy(db, values.team, asPolicy(action));
        io.stdout.write(`${team.name}: ${team.policy}\n`);
      }
      return 0;
    } finally {
      await db.close();
    }
  }
  if (sub !== undefined) return usageError(io, `unknown subcommand '${sub}'`);

  const port = Number(values.port);
  const lease = Number(values["lease-seconds"]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usageError(io, `--port: '${values.port}' is not a port`);
  if (!(lease > 0)) return usageError(io, `--lease-seconds: '${values["lease-seconds"]}' is not a positive number`);
  const db = await open(true);
  // On PostgreSQL (replicas, started and restarted under load): each connection warmed before the first request.
  if (db.dialect === "postgres") {
    const { warmUp } = await import("../../serve/warm-up.js");
    const { POSTGRES_POOL_SIZE } = await import("../../store/postgres-database.js");
    const problem = await warmUp(db, POSTGRES_POOL_SIZE, Date.now());
    if (problem !== null) io.stderr.write(`comity serve: warming up failed (the first requests are slower): ${problem.message}\n`);
  }
  const { createCoordinationServer } = await import("../../serve/create-server.js");
  if (values.replica !== undefined && !/^[\w.:@-]{1,100}$/.test(values.replica)) return usageError(io, `--replica: '${values.replica}' is not a name (letters, digits, . : @ - _)`);
  const server = await createCoordinationServer({
    database: db,
    leaseMs: Math.round(lease * 1000),
    log: (line) => io.stderr.write(`${line}\n`),
    secureCookies: values["secure-cookies"],
    ...(values.replica === undefined ? {} : { replica: { id: values.replica, address: `${values.host}:${port}` } }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, values.host, () => resolve());
  }).catch(async (error: NodeJS.ErrnoException) => {
    await db.close();
    throw new ComityError("INVALID_ARGUMENT", `cannot listen on ${values.host}:${port}: ${error.code ?? error.message}`);
  });
  const { pruneExpired, PRUNE_EVERY_MS } = await import("../../store/prune.js");
  const prune = () => pruneExpired(db, Date.now()).catch((error: Error) => io.stderr.write(`comity serve: pruning failed: ${error.message}\n`));
  await prune();
  // Each minute from a moment of its own: replicas started together (a deployment, a restart) do not prune together.
  let pruning: NodeJS.Timeout | null = null;
  const first = setTimeout(
    () => {
      void prune();
      pruning = setInterval(prune, PRUNE_EVERY_MS);
      pruning.unref();
    },
    Math.round(PRUNE_EVERY_MS * (0.5 + Math.random())),
  );
  first.unref();
  const address = server.address();
  const where = typeof address === "object" && address !== null ? `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  io.stdout.write(
    `comity serve: listening on ${where} (${db.dialect} ${db.location}${values.replica === undefined ? "" : `, replica ${values.replica}`})\ncomity serve: the team's dashboard is at ${where}/ (sign in with a team token; comity serve token create --team T --read-only makes one that can only look)\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      // Requests in flight are answered (a restart must not drop an event a hook is waiting on); idle
      // connections close now, and whatever still hangs after 2 s is cut.
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  clearTimeout(first);
  if (pruning !== null) clearInterval(pruning);
  await db.close();
  return 0;
}

function usageError(io: CliIo, message: string): number {
  io.stderr.write(`comity serve: ${message}\n${SERVE_USAGE}`);
  return 2;
}
