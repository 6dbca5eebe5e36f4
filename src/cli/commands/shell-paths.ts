import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { loadShellParser } from "../../shell/load-shell-parser.js";
import { isDirectory, readPatchFile } from "../../shell/fs-probes.js";
import { shellWritePaths } from "../../shell/shell-write-paths.js";
import type { CliIo } from "../io.js";

export const SHELL_PATHS_USAGE = `usage: comity shell-paths [--cwd DIR] [--json] -- 'COMMAND'

Prints the files COMMAND visibly writes (redirections and tee), one absolute
path per line; targets that cannot be resolved are counted on stderr.
`;

export async function shellPathsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(SHELL_PATHS_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write(SHELL_PATHS_USAGE);
    return 2;
  }
  const parser = await loadShellParser();
  const cwd = path.resolve(io.cwd, values.cwd ?? ".");
  const r = shellWritePaths(parser, positionals[0] ?? "", { cwd, homeDir: io.env["HOME"] ?? os.homedir(), isDirectory, readFile: readPatchFile });
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ paths: r.paths, unresolved: r.unresolved, truncated: r.truncated, parse_error: r.parseError }, null, 2)}\n`);
    return 0;
  }
  for (const p of r.paths) io.stdout.write(`${p}\n`);
  if (r.unresolved > 0) io.stderr.write(`${r.unresolved} target(s) not resolved (variables, globs or an unknown folder)\n`);
  if (r.parseError) io.stderr.write("the command did not fully parse: these are the paths that could be read\n");
  return 0;
}
