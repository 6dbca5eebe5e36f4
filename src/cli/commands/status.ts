import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { coordinationMode, type CoordinationMode } from "../../config/coordination-mode.js";
import type { CliIo } from "../io.js";

export const STATUS_USAGE = `usage: comity status [DIR] [--json]

What the agents are doing: the active sessions (host, label, branch, folder,
since when, the files they hold, the symbols they changed), the open conflicts
between them, and what is queued for a session that has not been told yet.
From this machine's embedded store, or from the team's API when one is
configured (COMITY_API_URL or comity login).

DIR (default: the current folder) narrows it to DIR's repo, or to the repos
under DIR; a folder without repos shows every repo.
  --json   the report as JSON (schema comity.status/1)
`;

/** `comity status`: 0, or 2 on bad arguments or an API that does not answer. */
export async function statusCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
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
  const dir = path.resolve(io.cwd, positionals[0] ?? ".");
  const { readStatus } = await import("../../coordination/read-status.js");
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

/** The fingerprints of DIR's repo, or of the repos under it (null when there are none: every repo). */
async function fingerprintsUnder(dir: string, mode: CoordinationMode, env: Readonly<Record<string, string | undefined>>): Promise<string[] | null> {
  const { discoverRepos, findOwningRepo } = await import("../../workspace/discover-repos.js");
  const { readRepoState } = await import("../../state/read-repo-state.js");
  const { rootCommitFingerprints } = await import("../../remotes/root-commit-fingerprints.js");
  let repos;
  try {
    const owner = findOwningRepo(dir);
    repos = owner !== null ? [owner] : discoverRepos(dir, { maxDepth: 4, walkUp: false }).repos.filter((r) => r.gitDir !== null);
  } catch {
    return null;
  }
  if (repos.length === 0) return null;
  const fps = new Set<string>();
  for (const repo of repos.slice(0, 200)) {
    const state = await readRepoState(repo).catch(() => null);
    const own = state?.remote_fingerprints ?? [];
    for (const f of own.length > 0 || mode.kind !== "embedded" ? own : await rootCommitFingerprints(repo.root, env)) fps.add(f);
  }
  return [...fps].sort();
}
