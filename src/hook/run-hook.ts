import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import { gitFactsFile } from "../git/git-facts-file.js";
import { configDir as configDirOf } from "../config/config-dir.js";
import { coordinationMode } from "../config/coordination-mode.js";
import { sessionEnvOf, withSessionEnv } from "../config/session-env.js";
import { ComityError } from "../errors/comity-error.js";
import { compareStrings } from "../errors/diagnostic.js";
import type { GitConfigEnv } from "../git/load-git-config.js";
import { carriesPatch } from "./apply-patch.js";
import { shellCommand } from "./collect-paths.js";
import { logFailOpen } from "./hook-log.js";
import { classifyTool, detectHost, HOOK_TOOLS, isKnownTool, mapEvent, normalizeTool } from "./hosts.js";
import { hostView } from "./host-view.js";
import { MAX_PATHS } from "./build-request.js";
import type { Ctx, RepoRequest } from "./hook-context.js";
import type { HookInput, HookOutput } from "./hook-input.js";
import { renderForHost, type HookVerdict } from "./render-output.js";
import { eventHash, turnOf } from "./identity.js";
import { readSessionState, updateSessionState, type SessionState } from "./session-state.js";
import { coordinatorFor, evaluateRequests } from "./coordinator.js";
import { buildRequests } from "./event-requests.js";
import { FailOpen } from "./fail-open.js";
import { hostRunsComity } from "./host-runs-comity.js";
import { evaluateBriefings, localBriefings, mergeSessionBriefings } from "./session-briefing.js";

export { MAX_PATHS } from "./build-request.js";
export type { HookInput, HookOutput } from "./hook-input.js";

/** Stdin larger than this is not parsed: the hook fails open. */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;
export { OTHER_TIMEOUT_MS, PRE_TIMEOUT_MS } from "./coordinator.js";

/**
 * How long a hook's analysis (symbols of the files an edit or a command changed; the session-start briefing's) may
 * take, from the hook's start: the hosts' shortest timeout is 5 s (Comity's own hook configs give 5 to 10), and the
 * request and the answer need their share of it.
 */
export const ANALYSIS_BUDGET_MS = 3000;

/** How long after the hook's start a git it waits on may still run: within the 4.8 s watchdog, with time to answer. */
export const HOOK_GIT_BUDGET_MS = 3500;

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
    return { stdout: (await pipeline(input, configDir)).stdout, exitCode: 0, failedOpen: null };
  } catch (error) {
    const reason = error instanceof FailOpen ? error.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
    logFailOpen(configDir, { time: now(), tool: input.tool || "?", event: input.event || "?", reason });
    return { stdout: "", exitCode: 0, failedOpen: reason };
  }
}

/**
 * What a host's `PreToolUse` (or another host's like event) would be told now, with nothing recorded: the same
 * pipeline as {@link runHook}, its requests evaluated as dry runs (`EvaluateRequest.dry_run`) and the session's state
 * not written. Throws a `ComityError` where the hook would fail open, so that a caller hears why.
 */
export async function checkHookEvent(input: Omit<HookInput, "dryRun">): Promise<{ readonly verdict: HookVerdict; readonly event: string | null }> {
  const env = input.env;
  const configDir = configDirOf(env, env["HOME"] ?? os.homedir());
  try {
    const { verdict, event } = await pipeline({ ...input, dryRun: true }, configDir);
    return { verdict, event };
  } catch (error) {
    if (error instanceof FailOpen) throw new ComityError("INVALID_ARGUMENT", error.message, { cause: error });
    throw error;
  }
}

async function pipeline(given: HookInput, configDir: string): Promise<{ stdout: string; verdict: HookVerdict; event: string | null }> {
  const startedAt = Date.now();
  if (!isKnownTool(given.tool)) throw new FailOpen(`unknown --tool '${given.tool}' (known: ${HOOK_TOOLS.join(", ")}): fix the hook's command, or run comity init again`);
  if (Buffer.byteLength(given.stdin) > MAX_STDIN_BYTES) throw new FailOpen(`stdin over ${MAX_STDIN_BYTES} bytes`);
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(given.stdin);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    payload = parsed as Record<string, unknown>;
  } catch {
    throw new FailOpen(given.stdin.trim() === "" ? "empty stdin" : "stdin is not a JSON object");
  }
  const host = detectHost(given.tool, payload, given.env);
  const named = host === "compozy" ? payload["event"] : payload["hook_event_name"];
  const nativeEvent = typeof named === "string" && named !== "" ? named : given.event;
  const view = hostView(host, nativeEvent, payload);
  const roots = view.roots.length > 0 ? view.roots : [given.cwd];
  // Cursor and Copilot CLI also run Claude Code's hooks: with Comity in the host's own config, the Claude Code one steps aside.
  if ((host === "cursor" || host === "copilot") && given.tool.toLowerCase().replace(/-/g, "_") !== host && hostRunsComity(host, roots, given.env["HOME"] ?? os.homedir()))
    return { stdout: "", verdict: { block: null, context: null }, event: null };
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
  if (event === null) return { stdout: (host === "codex" && nativeEvent === "Stop") || host === "compozy" ? "{}\n" : "", verdict: { block: null, context: null }, event };
  if (given.dryRun === true && event !== "pre_edit" && event !== "pre_shell") throw new FailOpen(`a dry run is of an edit or a shell command before it runs, not of ${event}`);

  const cwd = view.cwd ?? given.cwd;
  const sessionId = view.sessionId ?? "unknown";
  const agentId = typeof payload["agent_id"] === "string" ? payload["agent_id"] : null;
  const stateKey = agentId === null ? sessionId : `${sessionId}:${agentId}`;
  const state = readSessionState(configDir, stateKey);
  // A Claude Code HTTP hook carries none of the session's own variables: they are those its session's last event run
  // as a command recorded (a subagent's are its parent session's).
  const input: HookInput = given.runtime?.sessionEnvFromState === true ? { ...given, env: withSessionEnv(given.env, (agentId === null ? state : readSessionState(configDir, sessionId)).env) } : given;
  // Every git this hook runs while holding its thread (a snapshot's status) ends with the hook's budget: a hung git
  // must not outlast the watchdog, which cannot fire while the thread waits on it.
  const spawnGit = input.runtime?.spawnGit;
  const configEnv: GitConfigEnv = {
    env: input.env,
    homeDir: input.env["HOME"] ?? os.homedir(),
    deadlineAt: startedAt + HOOK_GIT_BUDGET_MS,
    // (a hook without the daemon is a new process each event: what git said about itself is kept on disk)
    gitFacts: gitFactsFile(path.join(configDir, CONFIG_LAYOUT.gitFacts)),
    ...(spawnGit === undefined ? {} : { spawn: spawnGit }),
  };
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
    statusViews: new Map(),
  };

  const mode = coordinationMode(input.env, configDir);
  // With coordination off, only a session start has something to say (the engine's briefing).
  const built = mode.kind === "off" && event !== "session_start" ? { requests: [], repos: [] } : await buildRequests(ctx, mode);
  const repos = built.repos;
  const requests = input.dryRun === true ? built.requests.map((r) => ({ ...r, body: { ...r.body, dry_run: true } })) : built.requests;
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
      verdict = await evaluateRequests(ctx, requests, coordinator);
    }
  } finally {
    await coordinator?.close();
  }
  const rendered = renderForHost(host, nativeEvent, verdict, state.queued, payload);
  if (input.dryRun !== true) {
    const save = (): void => {
      // Claude Code's own variables, from an event it ran as a command, for its HTTP hooks (which carry none): only
      // where `init --http` made the daemon's HTTP settings (the team token is not written down for nothing).
      const env = host === "claude_code" && given.runtime?.sessionEnvFromState !== true && fs.existsSync(path.join(configDir, CONFIG_LAYOUT.daemonHttp)) ? sessionEnvOf(given.env) : null;
      updateSessionState(configDir, stateKey, (current) => nextState(current, { state, event, rendered, requests, turn: ctx.turn, eventHash: ctx.eventHash, env }));
    };
    const defer = input.runtime?.defer;
    if (defer === undefined) save();
    else
      defer(() => {
        try {
          save();
        } catch (error) {
          // The answer has gone: the state is as the event before left it, which the next event reads as it would
          // after a hook that failed open.
          logFailOpen(configDir, { time: new Date(), tool: input.tool, event: nativeEvent, reason: `the session's state was not saved: ${error instanceof Error ? error.message : String(error)}` });
        }
      });
  }
  return { stdout: rendered.stdout, verdict, event };
}

/**
 * What this event changes in the session's state, applied to the state as it is now (another hook of the session
 * may have changed it since this one read it): the queued context it delivered leaves the queue and what it
 * could not show joins it; this turn's files grow (a prompt, stop or end starts afresh); files with symbol
 * changes and HEAD per repo; the turn counter and the last event, for dedupe keys.
 */
function nextState(
  current: SessionState,
  mine: {
    state: SessionState;
    event: string;
    rendered: { queue: string | null; deliveredQueue: boolean };
    requests: readonly RepoRequest[];
    turn: number;
    eventHash: string;
    /** The session's variables where this event saw them (run as a command), else null: the recorded ones stay. */
    env: Readonly<Record<string, string>> | null;
  },
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
  // The last event's hash tells a redelivered prompt from a new one with the same text: kept from a prompt until the
  // next event of any kind, so the tool calls in between leave the state as it was (and its file unwritten).
  const env = mine.env ?? current.env ?? {};
  return {
    queued,
    touched,
    changed,
    heads,
    turn: Math.max(current.turn ?? 0, mine.turn),
    ...(mine.event === "prompt" ? { last: mine.eventHash } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
}
