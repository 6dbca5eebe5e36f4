import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { relativePosix } from "../../analyze/analyze-workspace.js";
import { configDir } from "../../config/config-dir.js";
import { compareDiagnostics, type Diagnostic } from "../../errors/diagnostic.js";
import { changesAfterCommand, snapshotBeforeCommand } from "../../snapshot/command-snapshots.js";
import { loadContentHasher } from "../../snapshot/content-hasher.js";
import type { ChangeKind } from "../../snapshot/snapshot.js";
import { createSnapshotStore } from "../../snapshot/snapshot-store.js";
import { discoverRepos } from "../../workspace/discover-repos.js";
import type { CliIo } from "../io.js";

export const SNAPSHOT_USAGE = `usage: comity snapshot take --id ID [DIR] [--session S] [--json]
       comity snapshot diff --id ID [DIR] [--session S] [--json]

take: snapshots every repo under DIR (and the one holding it) and stores the
      snapshots under the config folder, keyed by session and ID.
diff: snapshots again and prints exactly the paths that changed since 'take'
      (A added, M modified, D deleted, T type changed, X executable bit),
      then removes the stored snapshot.
`;

const LETTER: Readonly<Record<ChangeKind, string>> = { added: "A", modified: "M", deleted: "D", type_changed: "T", mode_changed: "X" };

export async function snapshotCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      id: { type: "string" },
      session: { type: "string", default: "cli" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [action, dir = ".", ...extra] = positionals;
  if (values.help) {
    io.stdout.write(SNAPSHOT_USAGE);
    return 0;
  }
  if ((action !== "take" && action !== "diff") || values.id === undefined || extra.length > 0) {
    io.stderr.write(SNAPSHOT_USAGE);
    return 2;
  }
  const { root, repos } = discoverRepos(dir, { cwd: io.cwd });
  const usable = repos.filter((r) => r.gitDir !== null);
  if (usable.length === 0) {
    io.stderr.write(`comity: no git repository in or under ${dir}\n`);
    return 2;
  }
  const store = createSnapshotStore({ dir: path.join(configDir(io.env, io.env["HOME"] ?? os.homedir()), "snapshots") });
  const hasher = await loadContentHasher();
  const common = { store, hasher, sessionId: values.session, toolUseId: values.id, configEnv: { env: io.env, homeDir: io.env["HOME"] ?? os.homedir() } };
  const rel = (p: string): string => relativePosix(root, p);

  if (action === "take") {
    const results = [];
    for (const repo of usable) results.push({ root: rel(repo.root), ...(await snapshotBeforeCommand(repo, common)) });
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ schema: "comity.snapshot-take/1", id: values.id, repos: results.map((r) => ({ root: r.root, entries: r.entries, counts: r.counts, diagnostics: r.diagnostics.map((d) => ({ ...d })).sort(compareDiagnostics) })) }, null, 2)}\n`);
    } else {
      for (const r of results) {
        io.stdout.write(`${r.root}: ${r.entries} paths (${r.counts.hashed} hashed, ${r.counts.fromPrevious} from the last snapshot, ${r.counts.fromIndex} from the git index)\n`);
      }
    }
    return 0;
  }

  const repoResults: Array<{ root: string; found: boolean; changes: Array<{ path: string; change: ChangeKind }>; diagnostics: Diagnostic[] }> = [];
  for (const repo of usable) {
    const r = await changesAfterCommand(repo, common);
    repoResults.push({ root: rel(repo.root), found: r.changes !== null, changes: [...(r.changes ?? [])], diagnostics: [...r.diagnostics].sort(compareDiagnostics) });
  }
  if (!repoResults.some((r) => r.found)) {
    io.stderr.write(`comity: no snapshot '${values.id}' for ${dir} (take one first; they expire after an hour)\n`);
    return 2;
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ schema: "comity.snapshot-diff/1", id: values.id, repos: repoResults }, null, 2)}\n`);
  } else {
    for (const r of repoResults) {
      if (!r.found) io.stderr.write(`${r.root}: no snapshot taken before\n`);
      const prefix = r.root === "." ? "" : `${r.root}/`;
      for (const c of r.changes) io.stdout.write(`${LETTER[c.change]} ${prefix}${c.path}\n`);
    }
  }
  return 0;
}
