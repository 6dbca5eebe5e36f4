import * as path from "node:path";
import { CLI_VERSION } from "../version.js";
import type { RepoState } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import type { Ctx } from "./hook-context.js";
import { dedupeKey, machineIdHash } from "./identity.js";

/** At most this many paths go in one request. */
export const MAX_PATHS = 500;

/**
 * The request body for one repo (`../shared/reference/comity-hook-events.md`,
 * "What each event sends"): identity and state for every event, and each
 * event's own fields, capped. Loads snapshot, symbol and package code only for
 * the events that need it. Null when the event does not concern this repo
 * after all (a shell command in another root of a multi-root workspace).
 */
export async function bodyFor(ctx: Ctx, repo: Repo, state: RepoState, paths: string[], shell: { command: string; paths: string[]; unresolved: number } | null): Promise<Record<string, unknown> | null> {
  const { payload, event } = ctx;
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const cwdPath = path.relative(repo.root, ctx.cwd).split(path.sep).join("/");
  const body: Record<string, unknown> = {
    event,
    dedupe_key: dedupeKey(ctx.host, ctx.nativeEvent, payload, repo.root),
    session: {
      external_id: ctx.agentId === null ? ctx.sessionId : `${ctx.sessionId}:${ctx.agentId}`,
      tool: ctx.host,
      model: str(payload["model"]),
      surface: "hook",
      // Subagents carry the parent's session id plus an agent_id: the parent is that session.
      parent_external_id: ctx.agentId === null ? null : ctx.sessionId,
    },
    client: { cli_version: CLI_VERSION, os: process.platform, tool_version: str(payload["version"]) ?? str(payload["cli_version"]), machine_id_hash: machineIdHash() },
    repo: {
      remote_fingerprints: state.remote_fingerprints,
      branch: state.branch,
      head_sha: state.head_sha,
      base_sha: state.base_sha,
      worktree_hash: null as string | null,
      cwd_path: cwdPath.startsWith("..") ? null : cwdPath === "" ? "." : cwdPath,
    },
  };
  const repoBody = body["repo"] as Record<string, unknown>;
  switch (event) {
    case "session_start": {
      const { discoverPackages } = await import("../packages/discover-packages.js");
      const pk = discoverPackages(repo.root);
      repoBody["packages"] = pk.packages;
      repoBody["packages_truncated"] = pk.truncated;
      repoBody["worktree_hash"] = await worktreeHashOf(repo, ctx);
      break;
    }
    case "prompt":
      body["prompt_excerpt"] = takeChars(ctx.prompt ?? "", 2000);
      break;
    case "plan":
      body["plan_text"] = takeChars(str(ctx.toolInput["plan"]) ?? "", 32768);
      break;
    case "pre_edit":
      body["paths"] = paths.slice(0, MAX_PATHS);
      break;
    case "pre_shell": {
      body["paths"] = paths.slice(0, MAX_PATHS);
      body["shell"] = { command: takeChars(shell?.command ?? "", 4000), paths: paths.slice(0, MAX_PATHS), unresolved: shell?.unresolved ?? 0 };
      await snapshotBefore(ctx, repo);
      break;
    }
    case "post_edit": {
      const after = ctx.tool === "Bash" ? await changesAfter(ctx, repo) : paths;
      // In a multi-root workspace, a shell command concerns the roots snapshotted before it, not every root.
      if (after === null && ctx.roots.length > 1) return null;
      const changed = after ?? [];
      body["paths"] = changed.slice(0, MAX_PATHS);
      body["analysis"] = await analyses(ctx, repo, state, changed);
      break;
    }
    case "stop":
      if ((ctx.input.env["COMITY_SHARE_STATUS"] ?? "1") !== "0") {
        body["status"] = { excerpt: takeChars(str(payload["last_assistant_message"]) ?? "", 500), files: [...(ctx.state.touched[repo.root] ?? [])] };
      }
      repoBody["worktree_hash"] = await worktreeHashOf(repo, ctx);
      break;
    case "session_end":
      break;
  }
  return body;
}

function takeChars(s: string, max: number): string {
  let out = "";
  let n = 0;
  for (const ch of s) {
    if (n >= max) break;
    out += ch;
    n++;
  }
  return out;
}

async function worktreeHashOf(repo: Repo, ctx: Ctx): Promise<string | null> {
  const { worktreeHash } = await import("../snapshot/worktree-hash.js");
  return (await worktreeHash(repo, { configEnv: ctx.configEnv, statusIndex: statusIndexOf(ctx) })).worktree_hash;
}

function toolUseId(ctx: Ctx): string {
  const id = ctx.payload["tool_use_id"];
  return typeof id === "string" && id !== "" ? id : "no-tool-use-id";
}

/** Where git status keeps private copies of large repos' indexes (see `privateStatusIndex`). */
function statusIndexOf(ctx: Ctx): { dir: string } {
  return { dir: path.join(ctx.configDir, "status-index") };
}

async function snapshotStore(ctx: Ctx) {
  const { createSnapshotStore } = await import("../snapshot/snapshot-store.js");
  return createSnapshotStore({ dir: path.join(ctx.configDir, "snapshots") });
}

/** Before a shell command: a snapshot of the repo, for the process after it. */
async function snapshotBefore(ctx: Ctx, repo: Repo): Promise<void> {
  const { snapshotBeforeCommand } = await import("../snapshot/command-snapshots.js");
  await snapshotBeforeCommand(repo, { store: await snapshotStore(ctx), sessionId: ctx.sessionId, toolUseId: toolUseId(ctx), configEnv: ctx.configEnv, statusIndex: statusIndexOf(ctx) });
}

/** After a shell command: exactly the paths it changed (null when no snapshot was taken before). */
async function changesAfter(ctx: Ctx, repo: Repo): Promise<string[] | null> {
  const { changesAfterCommand } = await import("../snapshot/command-snapshots.js");
  const r = await changesAfterCommand(repo, { store: await snapshotStore(ctx), sessionId: ctx.sessionId, toolUseId: toolUseId(ctx), configEnv: ctx.configEnv, statusIndex: statusIndexOf(ctx) });
  return r.changes === null ? null : r.changes.map((c) => c.path);
}

/** Symbol analysis of the changed files in supported languages (at most 50 a request). */
async function analyses(ctx: Ctx, repo: Repo, state: RepoState, paths: readonly string[]): Promise<unknown[]> {
  const { languageOf } = await import("../symbols/languages.js");
  const files = paths.filter((p) => languageOf(p) !== null).slice(0, 50);
  if (files.length === 0) return [];
  const { analyzeFile, headReader, stripLocal } = await import("../symbols/analyze-file.js");
  const { createSymbolExtractor } = await import("../symbols/symbol-extractor.js");
  const { createSymbolCache } = await import("../symbols/symbol-cache.js");
  const languages = [...new Set(files.map((f) => languageOf(f)?.id).filter((l) => l !== undefined))];
  // Loaded only if the cache cannot answer for a file: a repeated edit costs no grammar load.
  let loading: Promise<Awaited<ReturnType<typeof createSymbolExtractor>>> | null = null;
  const extractor = () => (loading ??= createSymbolExtractor({ languages }));
  const cache = createSymbolCache(path.join(ctx.configDir, "symbols"));
  const readHead = headReader(repo.commonDir ?? "", state.head_sha);
  const headHashes = state.head_sha === null ? null : (await import("../symbols/head-hashes.js")).createHeadHashes(path.join(ctx.configDir, "head-hashes"), state.head_sha);
  const out: unknown[] = [];
  for (const f of files) {
    const a = await analyzeFile(repo.root, f, { extractor, readHead, cache, headHashes });
    out.push({ path: a.path, language: a.language, symbols: a.symbols.map(stripLocal), changes: a.changes, new_references: a.new_references });
  }
  return out;
}

