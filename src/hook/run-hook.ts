import { readdirSync, readFileSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { configDir as configDirOf } from "../config/config-dir.js";
import { isHookConfigFile } from "../config/hook-config-files.js";
import { coordinationMode, type CoordinationMode } from "../config/coordination-mode.js";
import type { EvaluateRequest } from "../coordination/wire.js";
import { compareStrings } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { readRepoState } from "../state/read-repo-state.js";
import { findOwningRepo, reposAtOrUnder } from "../workspace/discover-repos.js";
import type { Repo } from "../workspace/repo.js";
import { carriesPatch, parseApplyPatch, patchPaths } from "./apply-patch.js";
import { editPaths, shellCommand } from "./collect-paths.js";
import { sendEvaluate, type EvaluateResponse } from "./evaluate-response.js";
import { logFailOpen } from "./hook-log.js";
import { classifyTool, detectHost, HOOK_TOOLS, isKnownTool, mapEvent, normalizeTool } from "./hosts.js";
import { hostView } from "./host-view.js";
import { bodyFor, MAX_PATHS } from "./build-request.js";
import type { Ctx, RepoRequest } from "./hook-context.js";
import type { HookInput, HookOutput } from "./hook-input.js";
import { renderForHost, type HookVerdict } from "./render-output.js";
import { eventHash, turnOf } from "./identity.js";
import { readSessionState, updateSessionState, type SessionState } from "./session-state.js";
import { CONFIG_LAYOUT } from "../config/config-layout.js";

export { MAX_PATHS } from "./build-request.js";
export type { HookInput, HookOutput } from "./hook-input.js";

/** Stdin larger than this is not parsed: the hook fails open. */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;
/** How long the API gets before an edit or shell command, and for other events. */
export const PRE_TIMEOUT_MS = 400;
export const OTHER_TIMEOUT_MS = 1500;

/**
 * How long a hook's analysis (symbols of the files an edit or a command changed; the session-start briefing's) may
 * take, from the hook's start: the hosts' shortest timeout is 5 s (Comity's own hook configs give 5 to 10), and the
 * request and the answer need their share of it.
 */
export const ANALYSIS_BUDGET_MS = 3000;

/** A condition under which the hook prints nothing and logs one line. */
class FailOpen extends Error {}

/**
 * The whole hook pipeline for one host event: parse the payload, detect the
 * host, map the event, collect and route paths, build one request per repo,
 * send them in parallel under the event's deadline, and render the host's
 * native answer. Any failure prints nothing and appends one `fail-open` line
 * to `hook.log`. Never throws.
 *
 * @example
 * const out = await runHook({ tool: "claude_code", event: "PreToolUse", stdin, env: process.env, cwd: process.cwd() });
 * process.stdout.write(out.stdout);
 */
export async function runHook(input: HookInput): Promise<HookOutput> {
  const env = input.env;
  const configDir = configDirOf(env, env["HOME"] ?? os.homedir());
  const now = input.now ?? (() => new Date());
  try {
    return { stdout: await pipeline(input, configDir), exitCode: 0, failedOpen: null };
  } catch (error) {
    const reason = error instanceof FailOpen ? error.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
    logFailOpen(configDir, { time: now(), tool: input.tool || "?", event: input.event || "?", reason });
    return { stdout: "", exitCode: 0, failedOpen: reason };
  }
}

async function pipeline(input: HookInput, configDir: string): Promise<string> {
  const startedAt = Date.now();
  if (!isKnownTool(input.tool)) throw new FailOpen(`unknown --tool '${input.tool}' (known: ${HOOK_TOOLS.join(", ")}): fix the hook's command, or run comity init again`);
  if (Buffer.byteLength(input.stdin) > MAX_STDIN_BYTES) throw new FailOpen(`stdin over ${MAX_STDIN_BYTES} bytes`);
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(input.stdin);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    payload = parsed as Record<string, unknown>;
  } catch {
    throw new FailOpen(input.stdin.trim() === "" ? "empty stdin" : "stdin is not a JSON object");
  }
  const host = detectHost(input.tool, payload, input.env);
  const named = host === "compozy" ? payload["event"] : payload["hook_event_name"];
  const nativeEvent = typeof named === "string" && named !== "" ? named : input.event;
  const view = hostView(host, nativeEvent, payload);
  const roots = view.roots.length > 0 ? view.roots : [input.cwd];
  // Cursor and Copilot CLI also run Claude Code's hooks: with Comity in the host's own config, the Claude Code one steps aside.
  if ((host === "cursor" || host === "copilot") && input.tool.toLowerCase().replace(/-/g, "_") !== host && hostRunsComity(host, roots, input.env["HOME"] ?? os.homedir())) return "";
  const toolInput = view.toolInput;
  let tool = normalizeTool(view.toolName);
  let toolClass = classifyTool(tool);
  // A shell command carrying an apply_patch envelope is an edit of the files it names.
  if (toolClass === "shell" && carriesPatch(shellCommand(toolInput))) {
    tool = "apply_patch";
    toolClass = "edit";
  }
  const event = mapEvent(view.event, toolClass);
  // Codex's Stop needs JSON; a CompozyOS event Comity does not act on gets the empty patch.
  if (event === null) return (host === "codex" && nativeEvent === "Stop") || host === "compozy" ? "{}\n" : "";

  const cwd = view.cwd ?? input.cwd;
  const sessionId = view.sessionId ?? "unknown";
  const agentId = typeof payload["agent_id"] === "string" ? payload["agent_id"] : null;
  const stateKey = agentId === null ? sessionId : `${sessionId}:${agentId}`;
  const configEnv: GitConfigEnv = { env: input.env, homeDir: input.env["HOME"] ?? os.homedir() };
  const state = readSessionState(configDir, stateKey);
  const hash = eventHash(host, nativeEvent, payload);
  const ctx: Ctx = {
    input,
    payload,
    host,
    nativeEvent,
    event,
    tool,
    toolInput,
    cwd,
    roots,
    sessionId,
    prompt: view.prompt,
    agentId,
    configDir,
    configEnv,
    state,
    turn: turnOf(state, event, hash),
    eventHash: hash,
    deadlineAt: startedAt + ANALYSIS_BUDGET_MS,
  };

  const mode = coordinationMode(input.env, configDir);
  // With coordination off, only a session start has something to say (the engine's briefing).
  const { requests, repos } = mode.kind === "off" && event !== "session_start" ? { requests: [], repos: [] } : await buildRequests(ctx, mode);
  const coordinator = mode.kind === "off" || requests.length === 0 ? null : coordinatorFor(ctx, mode);
  let verdict: HookVerdict = { block: null, context: null };
  try {
    if (event === "session_start") {
      // The engine's own briefing of the session's repos, after the coordinator's text when it answers, alone
      // when there is none or it fails.
      const local = localBriefings(ctx, repos);
      let remote: Map<string, string> = new Map();
      if (coordinator !== null) {
        try {
          remote = await evaluateBriefings(ctx, requests, coordinator);
        } catch (error) {
          logFailOpen(configDir, { time: new Date(), tool: input.tool, event: nativeEvent, reason: `${error instanceof Error ? error.message : String(error)}; the local briefing is given alone` });
        }
      }
      verdict = { block: null, context: await mergeSessionBriefings(ctx, repos, remote, await local) };
    } else if (coordinator !== null) {
      verdict = await evaluate(ctx, requests, coordinator);
    }
  } finally {
    await coordinator?.close();
  }
  const rendered = renderForHost(host, nativeEvent, verdict, state.queued, payload);
  updateSessionState(configDir, stateKey, (current) => nextState(current, { state, event, rendered, requests, turn: ctx.turn, eventHash: ctx.eventHash }));
  return rendered.stdout;
}

/**
 * What this event changes in the session's state, applied to the state as it is now (another hook of the session
 * may have changed it since this one read it): the queued context it delivered leaves the queue and what it
 * could not show joins it; this turn's files grow (a prompt, stop or end starts afresh); files with symbol
 * changes and HEAD per repo; the turn counter and the last event, for dedupe keys.
 */
function nextState(
  current: SessionState,
  mine: { state: SessionState; event: string; rendered: { queue: string | null; deliveredQueue: boolean }; requests: readonly RepoRequest[]; turn: number; eventHash: string },
): SessionState {
  if (mine.event === "session_end") return { queued: [], touched: {} };
  const queued = [...current.queued];
  if (mine.rendered.deliveredQueue) {
    for (const q of mine.state.queued) {
      const i = queued.indexOf(q);
      if (i >= 0) queued.splice(i, 1);
    }
  }
  if (mine.rendered.queue !== null && mine.rendered.queue.trim() !== "") queued.push(mine.rendered.queue);
  const touched: Record<string, readonly string[]> = mine.event === "prompt" || mine.event === "stop" ? {} : { ...current.touched };
  const changed: Record<string, readonly string[]> = { ...(current.changed ?? {}) };
  const heads: Record<string, string> = { ...(current.heads ?? {}) };
  for (const r of mine.requests) {
    const paths = r.body.paths ?? [];
    if ((mine.event === "pre_edit" || mine.event === "post_edit" || mine.event === "pre_shell") && paths.length > 0) {
      touched[r.repo.root] = [...new Set([...(touched[r.repo.root] ?? []), ...paths])].sort(compareStrings).slice(0, MAX_PATHS);
    }
    if (r.state.head_sha !== null) heads[r.repo.root] = r.state.head_sha;
    const analysed = r.body.analysis ?? [];
    if (analysed.length === 0) continue;
    const withChanges = new Set([...(changed[r.repo.root] ?? [])]);
    for (const a of analysed) {
      if ((a.changes ?? []).length > 0) withChanges.add(a.path);
      else withChanges.delete(a.path);
    }
    changed[r.repo.root] = [...withChanges].sort(compareStrings).slice(0, 50);
  }
  return { queued, touched, changed, heads, turn: Math.max(current.turn ?? 0, mine.turn), last: mine.eventHash };
}

/**
 * One request body per repo that the event concerns and that has an identity (a remote; on one machine, a root
 * commit), and every repo it concerns (a session start briefs them all, coordinated or not).
 */
async function buildRequests(ctx: Ctx, mode: CoordinationMode): Promise<{ requests: RepoRequest[]; repos: Repo[] }> {
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
  for (const { repo, paths } of byRepo.values()) {
    let state = await readRepoState(repo, { configEnv: ctx.configEnv });
    // A repo without a remote has no identity to share with a server; on one machine, its root commit names it
    // (its worktrees and local clones share it).
    if (state.remote_fingerprints.length === 0 && mode.kind === "embedded") {
      const { rootCommitFingerprints } = await import("../remotes/root-commit-fingerprints.js");
      state = { ...state, remote_fingerprints: await rootCommitFingerprints(repo.root, ctx.input.env) };
    }
    if (state.remote_fingerprints.length === 0) continue;
    const body = await bodyFor(ctx, repo, state, [...paths].sort(compareStrings), shell);
    if (body !== null) out.push({ repo, state, body });
  }
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

/** Whether the host's own hook config runs `comity hook --tool <host>`: Cursor's hooks.json (roots, then ~), Copilot's .github/hooks/*.json (roots). */
function hostRunsComity(host: "cursor" | "copilot", roots: readonly string[], home: string): boolean {
  const files =
    host === "cursor"
      ? [...roots, home].map((d) => path.join(d, ".cursor", "hooks.json"))
      : roots.flatMap((d) => {
          const dir = path.join(findOwningRepo(d)?.root ?? d, ".github", "hooks");
          try {
            return readdirSync(dir)
              .filter((n) => n.endsWith(".json"))
              .map((n) => path.join(dir, n));
          } catch {
            return [];
          }
        });
  const ours = new RegExp(`comity(\\.js|\\.cmd|\\.mjs)?["']?\\s+hook\\s[^"]*--tool\\s+${host}\\b`);
  for (const file of files) {
    try {
      if (ours.test(readFileSync(file, "utf8"))) return true;
    } catch {
      // none there
    }
  }
  return false;
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

/** Who decides: the API over HTTP under a deadline, or the embedded store in this process. */
interface Coordinator {
  evaluate(body: EvaluateRequest, timeoutMs: number): Promise<EvaluateResponse>;
  close(): Promise<void>;
}

function coordinatorFor(ctx: Ctx, mode: Exclude<CoordinationMode, { kind: "off" }>): Coordinator {
  if (mode.kind === "served") return { evaluate: (body, timeoutMs) => sendEvaluate(mode.url, mode.token, body, timeoutMs), close: async () => undefined };
  // Opened at the first request and kept for the others of this event; requests are applied one after another.
  let store: Promise<import("../coordination/embedded-store.js").EmbeddedStore> | null = null;
  const open = () =>
    (store ??= import("../coordination/embedded-store.js").then(({ openEmbeddedStore }) =>
      openEmbeddedStore(mode.file, {
        onMovedAside: (reason, movedTo) =>
          logFailOpen(ctx.configDir, { time: new Date(), tool: ctx.input.tool, event: ctx.nativeEvent, reason: `embedded store unusable (${reason}): moved to ${movedTo} and rebuilt` }),
      }),
    ));
  let chain: Promise<unknown> = Promise.resolve();
  return {
    evaluate(body) {
      const next = chain.then(async () => (await open()).evaluate(body, Date.now()));
      chain = next.catch(() => undefined);
      return next;
    },
    async close() {
      if (store === null) return;
      await chain;
      const s = await store.catch(() => null);
      if (s === null) return;
      // Pruned at the quiet moments of a session (its start, each turn's end, its end), as the server does each minute.
      if (ctx.event === "session_start" || ctx.event === "stop" || ctx.event === "session_end") await s.prune(Date.now()).catch(() => undefined);
      await s.close().catch(() => undefined);
    },
  };
}

/** Sends every request at once under the event's deadline and merges the answers. */
async function evaluate(ctx: Ctx, requests: readonly RepoRequest[], coordinator: Coordinator): Promise<HookVerdict> {
  const timeout = ctx.event === "pre_edit" || ctx.event === "pre_shell" ? PRE_TIMEOUT_MS : OTHER_TIMEOUT_MS;
  const settled = await Promise.allSettled(requests.map((r) => coordinator.evaluate(r.body, timeout)));
  const answers: Array<{ repo: Repo; answer: EvaluateResponse }> = [];
  const failures: string[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") answers.push({ repo: (requests[i] as RepoRequest).repo, answer: s.value });
    else failures.push(s.reason instanceof Error ? s.reason.message : String(s.reason));
  });
  if (answers.length === 0) throw new FailOpen(failures[0] ?? "no answer");
  if (failures.length > 0) logFailOpen(ctx.configDir, { time: new Date(), tool: ctx.input.tool, event: ctx.nativeEvent, reason: `${failures.length} of ${requests.length} repos: ${failures[0]}` });
  const blocks = answers.filter((a) => a.answer.decision === "block").map((a) => a.answer.reason ?? "blocked by Comity");
  const texts = answers.flatMap((a) => [
    ...(a.answer.decision === "warn" && a.answer.reason !== null && a.answer.inject_context === null ? [a.answer.reason] : []),
    ...(a.answer.inject_context === null ? [] : [a.answer.inject_context]),
  ]);
  return { block: blocks.length > 0 ? blocks.join("\n") : null, context: texts.length > 0 ? texts.join("\n\n") : null };
}

/** How a repo is named in a briefing: its path relative to the session's folder (two `lib` folders stay two), else its folder's name. */
function repoName(ctx: Ctx, repo: Repo): string {
  const rel = path.relative(ctx.cwd, repo.root).split(path.sep).join("/");
  return rel === "" || rel.startsWith("..") ? path.basename(repo.root) : rel;
}

/** The coordinator's session-start text per repo root; throws when every repo's request failed. */
async function evaluateBriefings(ctx: Ctx, requests: readonly RepoRequest[], coordinator: Coordinator): Promise<Map<string, string>> {
  const settled = await Promise.allSettled(requests.map((r) => coordinator.evaluate(r.body, OTHER_TIMEOUT_MS)));
  const out = new Map<string, string>();
  const failures: string[] = [];
  settled.forEach((s, i) => {
    const root = (requests[i] as RepoRequest).repo.root;
    if (s.status === "fulfilled") out.set(root, s.value.inject_context ?? "");
    else failures.push(s.reason instanceof Error ? s.reason.message : String(s.reason));
  });
  if (out.size === 0) throw new Error(failures[0] ?? "no answer");
  if (failures.length > 0) logFailOpen(ctx.configDir, { time: new Date(), tool: ctx.input.tool, event: ctx.nativeEvent, reason: `${failures.length} of ${requests.length} repos: ${failures[0]}` });
  return out;
}

/** One section per repo: the API's text first, then the engine's own briefing of the repo. */
async function mergeSessionBriefings(ctx: Ctx, repos: readonly Repo[], remote: ReadonlyMap<string, string>, local: ReadonlyMap<string, string>): Promise<string | null> {
  const { mergeBriefings } = await import("../briefing/merge-briefings.js");
  const briefings = repos.map((repo, i) => ({
    repo: repoName(ctx, repo),
    markdown: remote.get(repo.root) ?? "",
    facts: local.get(repo.root) ?? "",
    activityMs: -i,
  }));
  const merged = mergeBriefings(briefings, { maxRepos: 8, maxChars: 6000 });
  return merged === "" ? null : merged;
}

/** The engine's own briefing of each repo (branch, uncommitted changes, changed symbols breaking first), by root. */
async function localBriefings(ctx: Ctx, repos: readonly Repo[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (repos.length === 0) return out;
  const { analyzeWorkspace } = await import("../analyze/analyze-workspace.js");
  const { buildLocalBriefing } = await import("../briefing/build-local-briefing.js");
  for (const repo of repos) {
    try {
      // Symbols of the changed files come from the per-repo analysis cache when nothing moved since the last one.
      const report = await analyzeWorkspace(repo.root, {
        walkUp: false,
        maxDepth: 0,
        symbols: true,
        maxRepos: 1,
        jobs: 1,
        symbolCacheDir: path.join(ctx.configDir, CONFIG_LAYOUT.symbols),
        deadlineAt: ctx.deadlineAt,
      });
      const r = report.repos.find((x) => x.root === ".");
      if (r?.analysed === true) out.set(repo.root, buildLocalBriefing(r));
    } catch {
      // one repo's problem is not the session's: the others are still briefed
    }
  }
  return out;
}
