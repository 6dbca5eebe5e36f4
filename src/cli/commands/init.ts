import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { applyInit } from "../../init/apply-init.js";
import { INIT_HOSTS, type InitHost } from "../../init/host-configs.js";
import { planInit } from "../../init/plan-init.js";
import { findOwningRepo } from "../../workspace/discover-repos.js";
import type { CliIo } from "../io.js";

export const INIT_USAGE = `usage: comity init [--tool T ...] [--dry-run] [--user | --each | --here] [--command CMD] [--http] [DIR]

Writes Comity's hooks into each host's hook config, merged with the hooks
already there: the project's .claude/settings.json, .codex/hooks.json,
.cursor/hooks.json, .github/hooks/comity.json (the project is the git repo
holding DIR, default the current folder). A host loads a project's hooks
from the folder it was opened in, and the user's from ~; so in a folder that
holds repos but is not one:
  --each   write each repo's own config (for agents opened in a repo; the
           default in a folder of repos)
  --user   write the user-level files under ~ (every project of this user)
  --here   write this folder's (for agents opened in this folder itself)
Without --tool, the hosts found (config folders, binaries on PATH). Prints
the full path of every file; a changed file is backed up beside itself; a
second run changes nothing. --dry-run prints the diff.
The hooks run comity-hook (the package's native client: it hands an event
to the running daemon without starting Node, and runs comity hook
otherwise) where it is on PATH, else comity hook. --command CMD names the
command instead (a full path, npx comity, or a comity-hook).
  --http   Claude Code posts the events of each tool call to the per-user
           daemon (comity daemon) on 127.0.0.1 instead of starting a
           process; session start and prompts stay commands, which start
           the daemon. The hooks carry the daemon's secret, so they go to
           the user's own .claude/settings.local.json (or, with --user,
           ~/.claude/settings.json). Comity's MCP server is then reached
           on the daemon too (Streamable HTTP), from this project's entry
           in ~/.claude.json.
Hosts in this version: ${INIT_HOSTS.join(", ")}.
`;

/** `comity init`: 0 done (or nothing to do), 1 a file could not be merged or no host found, 2 bad arguments. */
export async function initCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      tool: { type: "string", multiple: true },
      "dry-run": { type: "boolean", default: false },
      user: { type: "boolean", default: false },
      each: { type: "boolean", default: false },
      here: { type: "boolean", default: false },
      command: { type: "string" },
      http: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(INIT_USAGE);
    return 0;
  }
  const tools = values.tool?.map((t) => t.replace(/-/g, "_"));
  const unknown = tools?.filter((t) => !(INIT_HOSTS as readonly string[]).includes(t)) ?? [];
  if (unknown.length > 0) {
    io.stderr.write(`comity init: ${unknown.join(", ")}: not supported by this version (hosts: ${INIT_HOSTS.join(", ")})\n`);
    return 2;
  }
  if (positionals.length > 1) {
    io.stderr.write(`comity init: one folder at most\n${INIT_USAGE}`);
    return 2;
  }
  if ([values.user, values.each, values.here].filter(Boolean).length > 1) {
    io.stderr.write(`comity init: --user, --each and --here are three different places: choose one\n${INIT_USAGE}`);
    return 2;
  }
  if (values.http && tools !== undefined && !tools.includes("claude_code")) {
    io.stderr.write("comity init: --http is for Claude Code's hooks (the other hosts run commands only): add --tool claude_code\n");
    return 2;
  }
  const dir = path.resolve(io.cwd, positionals[0] ?? ".");
  const home = io.env["HOME"] ?? os.homedir();
  let claudeHttp: Awaited<ReturnType<typeof httpHooks>> | undefined;
  if (values.http) {
    claudeHttp = await httpHooks(io, home, values["dry-run"]);
    if (claudeHttp === null) return 1;
  }
  const owner = findOwningRepo(dir);
  let roots = [owner?.root ?? dir];
  if (owner === null && !values.user && !values.here) {
    const { reposAtOrUnder } = await import("../../workspace/discover-repos.js");
    const repos = reposAtOrUnder(dir)
      .filter((r) => r.kind !== "submodule")
      .map((r) => r.root)
      .sort();
    // A host loads a project's hooks from the folder it is opened in: in a folder of repos, agents are usually opened
    // in one of the repos, so each repo's own config is the default; the note says how to choose otherwise.
    if (repos.length > 0 && !values.each) {
      const names =
        repos
          .slice(0, 5)
          .map((r) => path.relative(dir, r))
          .join(", ") + (repos.length > 5 ? ` and ${repos.length - 5} more` : "");
      io.stderr.write(
        `comity init: ${dir} is not a git repo; it holds ${repos.length} (${names}): writing each repo's own config (as --each), for agents opened in a repo.\n` +
          `  For agents opened in ${dir} itself: comity init --here; for every project of yours: comity init --user\n`,
      );
    }
    if (values.each || repos.length > 0) roots = repos.length > 0 ? repos : [dir];
  }
  let status = 0;
  let wrote = false;
  for (const root of values.user ? [dir] : roots) {
    const plan = planInit({
      root,
      home,
      user: values.user,
      pathEnv: io.env["PATH"] ?? "",
      ...(tools === undefined ? {} : { tools: tools as InitHost[] }),
      ...(values.command === undefined ? {} : { command: values.command }),
      ...(claudeHttp === undefined || claudeHttp === null ? {} : { claudeHttp: claudeHttp.hooks, claudeMcpHttp: claudeHttp.mcp }),
    });
    for (const d of plan.diagnostics) io.stderr.write(`comity init: ${d.message}\n`);
    if (plan.diagnostics.length > 0) status = 1;
    if (plan.hosts.length === 0) continue;
    wrote = true;
    // Full paths: which file each host will load is the whole point.
    if (values["dry-run"]) {
      const { createTwoFilesPatch } = await import("diff");
      for (const f of plan.files) {
        if (!f.changed) io.stdout.write(`${f.file}: up to date\n`);
        else
          io.stdout.write(
            createTwoFilesPatch(f.file, f.file, f.before ?? "", f.after, f.before === null ? "(new file)" : "", f.kind === "mcp" ? "(with Comity's MCP server)" : "(with Comity's hooks)"),
          );
      }
    } else {
      for (const a of applyInit(plan)) {
        if (!a.written) io.stdout.write(`${a.file}: up to date\n`);
        else io.stdout.write(`${a.file}: ${a.kind === "mcp" ? "Comity's MCP server" : "hooks"} written${a.backup === null ? " (new file)" : `, backup in ${a.backup}`}\n`);
      }
    }
    for (const n of plan.notes) io.stdout.write(`note: ${n}\n`);
  }
  if (claudeHttp?.restart !== undefined && wrote && !values["dry-run"]) io.stdout.write(`note: ${await claudeHttp.restart()}\n`);
  if (!wrote) {
    io.stderr.write(`comity init: no host found (no .claude/, .codex/ or .cursor/ here or in your home, no claude, codex or cursor on PATH); pass --tool ${INIT_HOSTS.join(" or --tool ")}\n`);
    return 1;
  }
  return status;
}

/**
 * The HTTP hooks of `init --http`, from the config folder's daemon settings (made here the first time), and how to
 * get a daemon that answers them: the running one is restarted, since a daemon reads its HTTP settings when it starts.
 * Null (said on stderr) where the daemon cannot be used.
 */
async function httpHooks(io: CliIo, home: string, dryRun: boolean) {
  const { configDir } = await import("../../config/config-dir.js");
  const { CONFIG_LAYOUT } = await import("../../config/config-layout.js");
  const { claudeHttpHooks, ensureDaemonHttpConfig, mcpHttpServer, readDaemonHttpConfig } = await import("../../daemon/daemon-http.js");
  const daemonClient = (await import("../../daemon/daemon-client.cjs")).default;
  const socket = daemonClient.daemonSocketFor(io.env);
  if (socket === null) {
    io.stderr.write("comity init: --http needs the daemon, which is off here (COMITY_DAEMON=off, or a config folder path too long for a socket)\n");
    return null;
  }
  const config = configDir(io.env, home);
  const settings = dryRun ? (readDaemonHttpConfig(config) ?? { port: 0, secret: "(made when you run it without --dry-run)" }) : await ensureDaemonHttpConfig(config);
  const restart = async (): Promise<string> => {
    const { daemonStatusAt, startDaemonAndWait, stopDaemonAndWait } = await import("../../daemon/daemon-control.js");
    const where = `Claude Code's tool calls are posted to the daemon on 127.0.0.1:${settings.port} (the hooks' secret is in ${path.join(config, CONFIG_LAYOUT.daemonHttp)}, 0600)`;
    const before = await daemonStatusAt(socket);
    if (before?.httpPort === settings.port) return `${where}: it runs.`;
    // A daemon reads its HTTP settings when it starts: the one running lets its socket go, and a new one starts.
    const restarted = await stopDaemonAndWait(socket);
    let after = await startDaemonAndWait(socket, io.env);
    // Its socket answers before its HTTP front listens: give the front a moment before saying it cannot.
    for (let i = 0; i < 30 && after !== null && after.httpPort !== settings.port; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = (await daemonStatusAt(socket)) ?? after;
    }
    if (after === null) return `${where}, but it did not start within 5 s (comity daemon run shows why); the next session start tries again.`;
    return after.httpPort === settings.port ? `${where}: it ${restarted ? "restarted" : "started"} now.` : `${where}, but it cannot listen there (hook.log says why; comity doctor).`;
  };
  // Comity's MCP server too, on the same front: no process per session.
  return { hooks: claudeHttpHooks(settings), mcp: (root: string) => mcpHttpServer(settings, root, "claude_code"), restart };
}
