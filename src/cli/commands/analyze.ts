import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { analyzeWorkspace } from "../../analyze/analyze-workspace.js";
import { configDir } from "../../config/config-dir.js";
import { createSnapshotStore } from "../../snapshot/snapshot-store.js";
import { DEFAULT_PRUNE } from "../../workspace/discover-repos.js";
import { createDiscoveryCache } from "../../workspace/discovery-cache.js";
import { formatAnalyzeJson, formatAnalyzeTable, paint } from "../format-analyze.js";
import type { CliIo } from "../io.js";
import { CONFIG_LAYOUT } from "../../config/config-layout.js";
import { nodeSyncFs } from "../../fs/sync-fs.js";
import { readGitEntry } from "../../workspace/read-git-entry.js";
import { tuneForPools } from "../tune-for-pools.js";

export const ANALYZE_USAGE = `usage: comity analyze [DIR] [--json] [--no-symbols] [--max-repos N] [--since REF]
                      [--jobs N] [--timings] [--max-depth N] [--follow-symlinks] [--prune NAME ...]

Lists the git repos under DIR (default: the current folder) with their kind,
remote fingerprints, branch, HEAD and merge base; for the N most recently
active (default 8): how far HEAD is from its base, the working tree hash, the
workspace packages, the files changed against HEAD (or --since REF) with
their symbol changes and compatibility; then one merged briefing.
--jobs N: worker threads for symbols (default: one per core; on 2 cores, only
for 1 MB or more to parse); --timings: each phase's duration on stderr.
`;

/** `comity analyze`: exit 0 when something was analysed, 2 when nothing could be. */
export async function analyzeCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      "no-symbols": { type: "boolean", default: false },
      "max-repos": { type: "string" },
      jobs: { type: "string" },
      timings: { type: "boolean", default: false },
      since: { type: "string" },
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
  const wholeNumber = (flag: string, v: string | undefined): number | undefined | null => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (Number.isInteger(n) && n >= 0) return n;
    io.stderr.write(`comity analyze: --${flag} takes a whole number\n`);
    return null;
  };
  const maxDepth = wholeNumber("max-depth", values["max-depth"]);
  const maxRepos = wholeNumber("max-repos", values["max-repos"]);
  const jobs = wholeNumber("jobs", values.jobs);
  if (maxDepth === null || maxRepos === null || jobs === null) return 2;
  const timings: Array<[string, number]> = [];
  const started = Date.now();
  const dir = positionals[0] ?? ".";
  const config = configDir(io.env, io.env["HOME"] ?? os.homedir());
  // Progress only where a person watches it: stderr on a terminal, never with --json.
  const showProgress = io.stderr.isTTY === true && !values.json;
  const report = await analyzeWorkspace(dir, {
    cwd: io.cwd,
    followSymlinks: values["follow-symlinks"],
    ...(maxDepth === undefined ? {} : { maxDepth }),
    ...(maxRepos === undefined ? {} : { maxRepos }),
    ...(values.since === undefined ? {} : { since: values.since }),
    prune: [...DEFAULT_PRUNE, ...(values.prune ?? [])],
    symbols: !values["no-symbols"],
    beforePool: tuneForPools,
    configEnv: { env: io.env, homeDir: io.env["HOME"] ?? os.homedir() },
    symbolCacheDir: path.join(config, CONFIG_LAYOUT.symbols),
    ...(jobs === undefined ? {} : { jobs }),
    ...(values.timings ? { onTiming: (phase: string, ms: number) => timings.push([phase, ms]) } : {}),
    snapshotStore: createSnapshotStore({ dir: path.join(config, CONFIG_LAYOUT.snapshots) }),
    statusIndex: { dir: path.join(config, CONFIG_LAYOUT.statusIndex) },
    // The last walk of this folder: unchanged folders are not read again.
    cache: createDiscoveryCache(path.join(config, CONFIG_LAYOUT.discovery)),
    ...(showProgress ? { onProgress: (done: number, total: number, root: string) => io.stderr.write(`\r\u001b[Kanalysing ${done}/${total}: ${root}${done === total ? "\n" : ""}`) } : {}),
  });
  const colour = io.stdout.isTTY === true && (io.env["NO_COLOR"] ?? "") === "";
  const printed = values.json ? formatAnalyzeJson(report) : formatAnalyzeTable(report, dir, paint(colour));
  io.stdout.write(printed);
  // Timings go to stderr, never into the report.
  if (values.timings) {
    const width = Math.max(...timings.map(([p]) => p.length), 5);
    io.stderr.write(`${timings.map(([p, ms]) => `${p.padEnd(width)}  ${String(ms).padStart(7)} ms`).join("\n")}\n${"total".padEnd(width)}  ${String(Date.now() - started).padStart(7)} ms\n`);
  }
  const analysed = report.repos.filter((r) => !r.diagnostics.some((d) => d.severity === "error"));
  const code = report.repos.length > 0 && analysed.length === 0 ? 2 : 0;
  // The daemon keeps the answer while nothing it read changes: the folder, each repo (the one that holds the folder
  // may be wider than it), and each repo's git folders (a linked worktree's live elsewhere). Never a reason to fail
  // the command.
  const roots =
    io.analyzeCache !== undefined && !values.timings && !values["follow-symlinks"]
      ? readRoots(
          path.resolve(io.cwd, dir),
          report.repos.map((r) => r.root),
        )
      : null;
  if (roots !== null) {
    try {
      await io.analyzeCache?.store(printed, code, roots);
    } catch {
      // the next run asks again
    }
  }
  return code;
}

/** The real paths an analysis read: the folder, each repo, and its git folder and common git folder; null where the folder has none. */
function readRoots(dir: string, repoRoots: readonly string[]): string[] | null {
  const real = (p: string): string | null => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  const out = [real(dir)];
  if (out[0] === null) return null;
  for (const root of repoRoots) {
    out.push(real(root));
    const isFile = fs.lstatSync(path.join(root, ".git"), { throwIfNoEntry: false })?.isFile() === true;
    const entry = readGitEntry(nodeSyncFs, root, isFile);
    out.push(entry.gitDir === null ? null : real(entry.gitDir), entry.commonDir === null ? null : real(entry.commonDir));
  }
  return [...new Set(out.filter((p): p is string => p !== null))].sort();
}
