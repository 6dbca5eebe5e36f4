import { parseArgs } from "node:util";
import { analyzeWorkspace } from "../../analyze/analyze-workspace.js";
import { DEFAULT_PRUNE } from "../../workspace/discover-repos.js";
import { formatAnalyzeJson, formatAnalyzeTable } from "../format-analyze.js";
import type { CliIo } from "../io.js";

export const ANALYZE_USAGE = `usage: comity analyze [DIR] [--json] [--max-depth N] [--follow-symlinks] [--prune NAME ...]

Lists the git repos under DIR (default: the current folder) with their kind,
remote fingerprints, branch, HEAD, merge base and diagnostics.
`;

/** `comity analyze`: exit 0 when something was analysed, 2 when nothing could be. */
export async function analyzeCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      "max-depth": { type: "string" },
      "follow-symlinks": { type: "boolean", default: false },
      prune: { type: "string", multiple: true },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(ANALYZE_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    io.stderr.write(`comity analyze: one folder at most\n${ANALYZE_USAGE}`);
    return 2;
  }
  const dir = positionals[0] ?? ".";
  const maxDepth = values["max-depth"] === undefined ? undefined : Number(values["max-depth"]);
  if (maxDepth !== undefined && !(Number.isInteger(maxDepth) && maxDepth >= 0)) {
    io.stderr.write("comity analyze: --max-depth takes a whole number\n");
    return 2;
  }
  const report = await analyzeWorkspace(dir, {
    cwd: io.cwd,
    followSymlinks: values["follow-symlinks"],
    ...(maxDepth === undefined ? {} : { maxDepth }),
    prune: [...DEFAULT_PRUNE, ...(values.prune ?? [])],
  });
  io.stdout.write(values.json ? formatAnalyzeJson(report) : formatAnalyzeTable(report, dir));
  const analysed = report.repos.filter((r) => !r.diagnostics.some((d) => d.severity === "error"));
  return report.repos.length > 0 && analysed.length === 0 ? 2 : 0;
}
