import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { relativePosix } from "../../fs/relative-posix.js";
import { configDir } from "../../config/config-dir.js";
import { compareDiagnostics, compareStrings, type Diagnostic } from "../../errors/diagnostic.js";
import { changesAfterCommand, snapshotBeforeCommand } from "../../snapshot/command-snapshots.js";
import { loadContentHasher } from "../../snapshot/content-hasher.js";
import type { ChangeKind } from "../../snapshot/snapshot.js";
import { createSnapshotStore } from "../../snapshot/snapshot-store.js";
import { discoverRepos, findOwningRepo } from "../../workspace/discover-repos.js";
import type { Repo } from "../../workspace/repo.js";
import type { CliIo } from "../io.js";
import { CONFIG_LAYOUT } from "../../config/config-layout.js";

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
  // Inside a repo, its snapshot walk finds the nested repos: no separate discovery walk of a large tree.
  const owner = findOwningRepo(dir, { cwd: io.cwd });
  const root = fs.realpathSync(path.resolve(io.cwd, dir));
  const usable = (owner === null ? discoverRepos(dir, { cwd: io.cwd }).repos : [owner]).filter((r) => r.gitDir !== null);
  if (usable.length === 0) {
    io.stderr.write(`comity: no git repository in or under ${dir}\n`);
    return 2;
  }
  const config = configDir(io.env, io.env["HOME"] ?? os.homedir());
  const store = createSnapshotStore({ dir: path.join(config, CONFIG_LAYOUT.snapshots) });
  const hasher = await loadContentHasher();
  const statusIndex = { dir: path.join(config, CONFIG_LAYOUT.statusIndex) };
  const common = { store, hasher, sessionId: values.session, toolUseId: values.id, configEnv: { env: io.env, homeDir: io.env["HOME"] ?? os.homedir() }, statusIndex };
  const rel = (p: string): string => relativePosix(root, p);

  // Each repo once, nested ones as their parents' walks meet them.
  const seen = new Set(usable.map((r) => r.root));
  const queue: Repo[] = [...usable];
  const enqueue = (nested: readonly string[]): void => {
    for (const n of nested) {
      const repo = seen.has(n) ? null : findOwningRepo(n);
      seen.add(n);
      if (repo !== null && repo.root === n && repo.gitDir !== null) queue.push(repo);
    }
  };

  if (action === "take") {
    const results = [];
    for (let repo = queue.shift(); repo !== undefined; repo = queue.shift()) {
      const r = await snapshotBeforeCommand(repo, common);
      results.push({ root: rel(repo.root), ...r });
      enqueue(r.nested);
    }
    results.sort((a, b) => compareStrings(a.root, b.root));
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify({ schema: "comity.snapshot-take/1", id: values.id, repos: results.map((r) => ({ root: r.root, entries: r.entries, counts: r.counts, diagnostics: r.diagnostics.map((d) => ({ ...d })).sort(compareDiagnostics) })) }, null, 2)}\n`,
      );
    } else {
      for (const r of results) {
        const walked = r.diagnostics.find((d) => d.code === "snapshot_walked");
        io.stdout.write(
          `${r.root}: ${r.entries} paths (${r.counts.hashed} hashed, ${r.counts.fromPrevious} from the last snapshot, ${r.counts.fromIndex} from the git index)${walked === undefined ? "" : `; ${walked.message}`}\n`,
        );
      }
    }
    return 0;
  }

  const repoResults: Array<{ root: string; found: boolean; changes: Array<{ path: string; change: ChangeKind }>; diagnostics: Diagnostic[] }> = [];
  for (let repo = queue.shift(); repo !== undefined; repo = queue.shift()) {
    const r = await changesAfterCommand(repo, common);
    enqueue(r.nested);
    repoResults.push({ root: rel(repo.root), found: r.changes !== null, changes: [...(r.changes ?? [])], diagnostics: [...r.diagnostics].sort(compareDiagnostics) });
  }
  repoResults.sort((a, b) => compareStrings(a.root, b.root));
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
