import { ComityError } from "../errors/comity-error.js";
import type { CliIo } from "./io.js";

const USAGE = `usage: comity <command> [options]

commands:
  analyze [DIR] [--json]            the git repos under DIR, their remotes and state
  snapshot take|diff --id ID [DIR]  which files a command changed, between two snapshots
  shell-paths [--cwd DIR] -- CMD    the files a shell command visibly writes
  symbols FILE... | --diff OLD NEW  symbols, signature hashes, API compatibility
  hook --tool T --event E           a host's hook event in (stdin), its answer out
  init [--tool T] [--each|--user]   writes Comity's hooks into each host's hook config (--each: every repo under DIR)
  doctor [--json]                   whether hooks, API, config folder and repos are in order
  status [DIR] [--json | --web]     the active sessions, their files and changes, open conflicts (--web: live page)
  policy [POLICY]                   this machine's coordination policy (first_contact, advisory, block)
  who FILE                          which agents hold or changed a file, and how to reach them
  reserve PATH... | release [REF]   claims files for your session before a larger change (others are told), or ends it
  mcp [--host H]                    Comity's MCP server on stdio: tools a model calls to ask and reach other agents
  message SESSION TEXT              a few words for another agent, given at its next prompt or tool use
  daemon [status|start|stop]        the per-user process that answers hook events in milliseconds
  serve [--port N] [--db URL]       a team's coordination API, across machines (SQLite or PostgreSQL)
  login --url URL --token T         saves the API and token for hooks (when env vars are not seen)

Run 'comity <command> --help' for a command's options.
`;

const COMMANDS = ["analyze", "daemon", "doctor", "hook", "init", "login", "mcp", "message", "policy", "release", "reserve", "serve", "shell-paths", "snapshot", "status", "symbols", "who"];

/** The command `typed` is most likely a typo of: within two edits (one for short words), else null. */
export function nearestCommand(typed: string): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of COMMANDS) {
    const d = editDistance(typed.toLowerCase(), name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= (typed.length <= 4 ? 1 : 2) ? best : null;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit (`statsu`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * Runs the CLI with injected streams and returns the exit code: 0 fine,
 * 1 findings, 2 error. Commands are imported lazily so each process loads
 * only what it runs.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "analyze": {
        const { analyzeCommand } = await import("./commands/analyze.js");
        return await analyzeCommand(rest, io);
      }
      case "snapshot": {
        const { snapshotCommand } = await import("./commands/snapshot.js");
        return await snapshotCommand(rest, io);
      }
      case "hook": {
        const { hookCommand } = await import("./commands/hook.js");
        return await hookCommand(rest, io);
      }
      case "doctor": {
        const { doctorCommand } = await import("./commands/doctor.js");
        return await doctorCommand(rest, io);
      }
      case "init": {
        const { initCommand } = await import("./commands/init.js");
        return await initCommand(rest, io);
      }
      case "serve": {
        const { serveCommand } = await import("./commands/serve.js");
        return await serveCommand(rest, io);
      }
      case "policy": {
        const { policyCommand } = await import("./commands/policy.js");
        return await policyCommand(rest, io);
      }
      case "status": {
        const { statusCommand } = await import("./commands/status.js");
        return await statusCommand(rest, io);
      }
      case "login": {
        const { loginCommand } = await import("./commands/login.js");
        return await loginCommand(rest, io);
      }
      case "symbols": {
        const { symbolsCommand } = await import("./commands/symbols.js");
        return await symbolsCommand(rest, io);
      }
      case "message": {
        const { messageCommand } = await import("./commands/message.js");
        return await messageCommand(rest, io);
      }
      case "daemon": {
        const { daemonCommand } = await import("./commands/daemon.js");
        return await daemonCommand(rest, io);
      }
      case "who": {
        const { whoCommand } = await import("./commands/who.js");
        return await whoCommand(rest, io);
      }
      case "reserve":
      case "release": {
        const { reserveCommand } = await import("./commands/reserve.js");
        return await reserveCommand(command, rest, io);
      }
      case "mcp": {
        const { mcpCommand } = await import("./commands/mcp.js");
        return await mcpCommand(rest, io);
      }
      case "shell-paths": {
        const { shellPathsCommand } = await import("./commands/shell-paths.js");
        return await shellPathsCommand(rest, io);
      }
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      case "--version":
      case "-v": {
        const { CLI_VERSION } = await import("../version.js");
        io.stdout.write(`${CLI_VERSION}\n`);
        return 0;
      }
      default:
        {
          const near = nearestCommand(command);
          io.stderr.write(`comity: unknown command '${command}'${near === null ? "" : ` (did you mean '${near}'?)`}\n${USAGE}`);
        }
        return 2;
    }
  } catch (error) {
    // A hook never reports an error as one: its entry (bin/comity.cjs) logs it to hook.log and exits 0.
    if (command === "hook") throw error;
    const option = optionError(error);
    if (option !== null && command !== undefined) {
      // In Comity's voice, with the command's usage: never Node's parseArgs text.
      io.stderr.write(`comity ${command}: ${option}\n${await usageOf(command)}`);
      return 2;
    }
    io.stderr.write(`comity: ${describe(error)}\n`);
    return 2;
  }
}

function describe(error: unknown): string {
  if (error instanceof ComityError) return error.message;
  return error instanceof Error ? `internal error: ${error.message}` : String(error);
}

/** What was wrong with the options, said briefly (`unknown option --jsno`), or null for another error. */
export function optionError(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) return null;
  const message = error instanceof Error ? error.message : "";
  const named = /'(-[^']*)'/.exec(message)?.[1] ?? "";
  const tokens = named.split(/[ ,]+/).filter((t) => t.startsWith("-"));
  const option = tokens.find((t) => t.startsWith("--")) ?? tokens[0] ?? named;
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(message) ? `option ${option} needs a value` : `option ${option} takes no value`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ""}`.trimEnd();
    default:
      return "bad options";
  }
}

/** The usage text of a command, from its module. */
async function usageOf(command: string): Promise<string> {
  const modules: Record<string, () => Promise<Record<string, unknown>>> = {
    analyze: () => import("./commands/analyze.js"),
    snapshot: () => import("./commands/snapshot.js"),
    doctor: () => import("./commands/doctor.js"),
    init: () => import("./commands/init.js"),
    serve: () => import("./commands/serve.js"),
    login: () => import("./commands/login.js"),
    symbols: () => import("./commands/symbols.js"),
    "shell-paths": () => import("./commands/shell-paths.js"),
    message: () => import("./commands/message.js"),
    who: () => import("./commands/who.js"),
    status: () => import("./commands/status.js"),
    policy: () => import("./commands/policy.js"),
    hook: () => import("./commands/hook.js"),
  };
  const load = modules[command];
  if (load === undefined) return USAGE;
  const mod = await load();
  const usage = Object.entries(mod).find(([k, v]) => k.endsWith("_USAGE") && typeof v === "string")?.[1];
  return typeof usage === "string" ? usage : USAGE;
}
