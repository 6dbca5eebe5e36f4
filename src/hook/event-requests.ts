import { statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isHookConfigFile } from "../config/hook-config-files.js";
import type { CoordinationMode } from "../config/coordination-mode.js";
import { mapLimit } from "../async/map-limit.js";
import { compareStrings } from "../errors/diagnostic.js";
import { readRepoState } from "../state/read-repo-state.js";
import { findOwningRepo, reposAtOrUnder } from "../workspace/discover-repos.js";
import type { Repo } from "../workspace/repo.js";
import { carriesPatch, parseApplyPatch, patchPaths } from "./apply-patch.js";
import { bodyFor } from "./build-request.js";
import { editPaths, shellCommand } from "./collect-paths.js";
import { FailOpen } from "./fail-open.js";
import type { Ctx, RepoRequest } from "./hook-context.js";
import { logFailOpen } from "./hook-log.js";

/**
 * One request body per repo that the event concerns and that has an identity (a remote; on one machine, a root
 * commit), and every repo it concerns (a session start briefs them all, coordinated or not).
 */
export async function buildRequests(ctx: Ctx, mode: CoordinationMode): Promise<{ requests: RepoRequest[]; repos: Repo[] }> {
  const { event } = ctx;
  const byRepo = new Map<string, { repo: Repo; paths: Set<string> }>();
  const ownerCache = new Map<string, Repo | null>();
  const ownerOf = (dir: string): Repo | null => {
    if (!ownerCache.has(dir)) {
      let owner: Repo | null = null;
      try {
        owner = findOwningRepo(nearestExisting(dir));
      } catch {
        owner = null;
      }
      ownerCache.set(dir, owner);
    }
    return ownerCache.get(dir) ?? null;
  };
  const addPath = (abs: string): void => {
    const repo = ownerOf(path.dirname(abs));
    if (repo === null) return; // outside every repo: never sent
    const rel = path.relative(repo.root, abs).split(path.sep).join("/");
    if (rel.startsWith("..") || rel === ".git" || rel.startsWith(".git/")) return;
    // Comity's own hook configs are nobody's work (isHookConfigFile).
    if (isHookConfigFile(rel)) return;
    const entry = byRepo.get(repo.root) ?? { repo, paths: new Set<string>() };
    entry.paths.add(rel);
    byRepo.set(repo.root, entry);
  };
  const addRepo = (repo: Repo | null): void => {
    if (repo !== null && !byRepo.has(repo.root)) byRepo.set(repo.root, { repo, paths: new Set() });
  };

  let shell: { command: string; paths: string[]; unresolved: number } | null = null;
  if (event === "pre_edit" || (event === "post_edit" && ctx.tool !== "Bash")) {
    const text = ctx.tool === "apply_patch" && typeof ctx.toolInput["command"] === "string" ? ctx.toolInput["command"] : null;
    const paths = text !== null && carriesPatch(text) ? patchPaths(parseApplyPatch(text)).map((p) => path.resolve(ctx.cwd, p)) : editPaths(ctx.tool, ctx.toolInput, ctx.cwd);
    for (const p of paths) addPath(p);
  } else if (event === "pre_shell") {
    const command = shellCommand(ctx.toolInput);
    const { loadShellParser } = await import("../shell/load-shell-parser.js");
    const { shellWritePaths } = await import("../shell/shell-write-paths.js");
    const { isDirectory, readPatchFile } = await import("../shell/fs-probes.js");
    const written = shellWritePaths(await loadShellParser(), command, { cwd: ctx.cwd, homeDir: ctx.input.env["HOME"] ?? os.homedir(), isDirectory, readFile: readPatchFile });
    shell = { command, paths: [...written.paths], unresolved: written.unresolved };
    addRepo(ownerOf(ctx.cwd));
    for (const p of written.paths) addPath(p);
  } else if (event === "session_start") {
    for (const root of ctx.roots) {
      // A root of a multi-root workspace that is gone or unreadable is skipped, with a line in hook.log: the
      // other roots are still briefed.
      let found: Repo[];
      try {
        found = await sessionRepos(root);
      } catch (error) {
        logFailOpen(ctx.configDir, {
          time: new Date(),
          tool: ctx.input.tool,
          event: ctx.nativeEvent,
          reason: `workspace root ${root} skipped: ${error instanceof Error ? error.message : String(error)}`,
        });
        continue;
      }
      for (const repo of found) addRepo(repo);
    }
  } else {
    for (const root of ctx.roots) addRepo(ownerOf(root));
    if (byRepo.size === 0) for (const root of Object.keys(ctx.state.touched)) addRepo(ownerOf(root));
  }

  const out: RepoRequest[] = [];
  const repos = [...byRepo.values()].map((e) => e.repo);
  // Coordination off: a session start needs only the repos, for its briefing.
  if (mode.kind === "off") return { requests: [], repos };
  // At a session start (up to 8 repos), a few at once: each asks git for its status in a process of its own. Other
  // events touch a repo or two, one after the other.
  const built = await mapLimit([...byRepo.values()], event === "session_start" ? 4 : 1, async ({ repo, paths }): Promise<RepoRequest | null> => {
    let state = await readRepoState(repo, { configEnv: ctx.configEnv });
    // A repo without a remote has no identity to share with a server; on one machine, its root commit names it
    // (its worktrees and local clones share it).
    if (state.remote_fingerprints.length === 0 && mode.kind === "embedded") {
      const { rootCommitFingerprints } = await import("../remotes/root-commit-fingerprints.js");
      state = { ...state, remote_fingerprints: await rootCommitFingerprints(repo.root, ctx.configEnv, state.head_sha) };
    }
    if (state.remote_fingerprints.length === 0) return null;
    const body = await bodyFor(ctx, repo, state, [...paths].sort(compareStrings), shell);
    return body === null ? null : { repo, state, body };
  });
  for (const r of built) if (r !== null) out.push(r);
  if (event === "session_start") return { requests: out, repos };
  if (out.length === 0 && byRepo.size > 0) throw new FailOpen(mode.kind === "embedded" ? "no repo with a remote or a commit" : "no repo with a remote");
  if (out.length === 0) throw new FailOpen("not in a git repo");
  return { requests: out, repos };
}

/** The folder's own repo, or the 8 most recently active repos under it. */
async function sessionRepos(cwd: string): Promise<Repo[]> {
  const repos = reposAtOrUnder(cwd);
  if (repos.length <= 1) return repos;
  const { rankByActivity, repoActivityMs } = await import("../workspace/repo-activity.js");
  return rankByActivity(repos.map((r) => ({ root: r.root, repo: r, activityMs: repoActivityMs(r) })))
    .slice(0, 8)
    .map((r) => r.repo);
}

/** A file about to be created in a folder that does not exist yet belongs to the nearest existing folder. */
function nearestExisting(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      if (statSync(d).isDirectory()) return d;
    } catch {
      // keep going up
    }
    if (path.dirname(d) === d) return d;
  }
}
