import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { applyInit } from "../../init/apply-init.js";
import { INIT_HOSTS, type InitHost } from "../../init/host-configs.js";
import { planInit } from "../../init/plan-init.js";
import { findOwningRepo } from "../../workspace/discover-repos.js";
import type { CliIo } from "../io.js";

export const INIT_USAGE = `usage: comity init [--tool T ...] [--dry-run] [--user] [--command CMD] [DIR]

Writes Comity's hooks into each host's hook config, merged with the hooks
already there: the project's .claude/settings.json, .codex/hooks.json and
.cursor/hooks.json (the project is the git repo holding DIR, default the
current folder), or with --user the same files under ~. Without --tool, the
hosts found (config folders, binaries on PATH). A changed file is backed up
beside itself; a second run changes nothing. --dry-run prints the diff.
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
      command: { type: "string" },
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
  const dir = path.resolve(io.cwd, positionals[0] ?? ".");
  const root = findOwningRepo(dir)?.root ?? dir;
  const home = io.env["HOME"] ?? os.homedir();
  const plan = planInit({
    root,
    home,
    user: values.user,
    pathEnv: io.env["PATH"] ?? "",
    ...(tools === undefined ? {} : { tools: tools as InitHost[] }),
    ...(values.command === undefined ? {} : { command: values.command }),
  });
  for (const d of plan.diagnostics) io.stderr.write(`comity init: ${d.message}\n`);
  if (plan.hosts.length === 0) {
    io.stderr.write(`comity init: no host found (no .claude/, .codex/ or .cursor/ here or in your home, no claude, codex or cursor on PATH); pass --tool ${INIT_HOSTS.join(" or --tool ")}\n`);
    return 1;
  }
  const shown = (f: string) => (values.user ? f.replace(home, "~") : path.relative(io.cwd, f) || f);
  if (values["dry-run"]) {
    const { createTwoFilesPatch } = await import("diff");
    for (const f of plan.files) {
      if (!f.changed) io.stdout.write(`${shown(f.file)}: up to date\n`);
      else io.stdout.write(createTwoFilesPatch(shown(f.file), shown(f.file), f.before ?? "", f.after, f.before === null ? "(new file)" : "", "(with Comity's hooks)"));
    }
  } else {
    for (const a of applyInit(plan)) {
      if (!a.written) io.stdout.write(`${shown(a.file)}: up to date\n`);
      else io.stdout.write(`${shown(a.file)}: hooks written${a.backup === null ? " (new file)" : `, backup in ${shown(a.backup)}`}\n`);
    }
  }
  for (const n of plan.notes) io.stdout.write(`note: ${n}\n`);
  return plan.diagnostics.length > 0 ? 1 : 0;
}
