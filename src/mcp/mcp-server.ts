import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { httpRequest } from "../api/http-request.js";
import { configDir as configDirOf } from "../config/config-dir.js";
import { type CoordinationMode, coordinationMode } from "../config/coordination-mode.js";
import type { ActiveSession } from "../coordination/list-sessions.js";
import type { StatusReport } from "../coordination/read-status.js";
import { ComityError } from "../errors/comity-error.js";
import { CLI_VERSION } from "../version.js";
import { findOwningRepo } from "../workspace/discover-repos.js";
import { API_TIMEOUT_MS, callerSession, inboxForCaller, releaseForCaller, reserveForCaller } from "./claims.js";

/** What `comity mcp` runs in: the host's environment and folder, and which host started it (`--host`). */
export interface McpContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The folder the host started the server in: its project. */
  readonly cwd: string;
  /** The host whose session calls the tools (`claude_code`, `codex`, ...), when `comity init` wrote it. */
  readonly host: string | null;
  readonly now?: () => number;
}

/**
 * Claude Code defers an MCP server's tools behind its tool search unless told otherwise: a model that never searches
 * for "collision" never learns Comity can be asked. Comity's seven tools are small, and worth their place in the
 * prompt from the first turn.
 */
const ALWAYS_LOADED = { "anthropic/alwaysLoad": true } as const;

/** One symbol an agent changed, as `status` and `impact` give it: what changed, and its signature before and after. */
const symbolChange = z.object({
  path: z.string(),
  qualified_name: z.string(),
  change: z.string(),
  compatibility: z.string(),
  state: z.string(),
  signature_before: z.string().nullable().optional(),
  signature_after: z.string().nullable().optional(),
});

/**
 * Comity's MCP server: the tools a model calls to ask Comity before it acts (`who`, `status`, `check_edit`,
 * `impact`, `analyze`) and to reach the other agents (`send_message`, `inbox`), answered from where this machine's
 * hooks coordinate: the embedded store, or the team's `comity serve`. Each tool answers in text for the model and
 * the same facts as structured content. A tool that cannot answer says why, as an error result; nothing a tool
 * refuses is recorded.
 */
export function createComityMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer({ name: "comity", version: CLI_VERSION }, { capabilities: { tools: {} } });
  const now = ctx.now ?? Date.now;
  const home = ctx.env["HOME"] ?? os.homedir();
  const mode = (): CoordinationMode => coordinationMode(ctx.env, configDirOf(ctx.env, home));
  const get = (url: URL, token: string) => httpRequest(url, { method: "GET", token, timeoutMs: API_TIMEOUT_MS });
  const within = (p: string | undefined): string => path.resolve(ctx.cwd, p ?? ".");

  /** The active sessions of the repos at or under `dir`. */
  const status = async (dir: string): Promise<StatusReport> => {
    const { fingerprintsUnder } = await import("../workspace/repo-fingerprints.js");
    const { readStatus } = await import("../coordination/read-status.js");
    const m = mode();
    return readStatus({ mode: m, fingerprints: await fingerprintsUnder(dir, m, ctx.env), now: now(), get });
  };

  const caller = (): Promise<ActiveSession | null> => callerSession(ctx);

  server.registerTool(
    "who",
    {
      title: "Who works on a file",
      description:
        "Which other coding agents hold or changed a file right now (in this repo, its clones and worktrees): each one's session id, who runs it, branch and folder, the line ranges it works on, since when, and its last status. Ask before editing a file another agent may be on.",
      inputSchema: { path: z.string().min(1).max(4096).describe("The file, relative to the project folder or absolute.") },
      outputSchema: {
        summary: z.string(),
        path: z.string(),
        sessions: z.array(
          z.object({
            session: z.string(),
            description: z.string(),
            holds: z.boolean(),
            changed: z.boolean(),
            lines: z.string().nullable(),
            since: z.number(),
            status: z.string().nullable(),
            reserved: z.string().nullable().optional(),
          }),
        ),
      },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path: file }) =>
      answer(async () => {
        const abs = within(file);
        const repo = findOwningRepo(existingDir(abs));
        if (repo === null) throw new ComityError("INVALID_ARGUMENT", `${file} is in no git repo`);
        const rel = path.relative(repo.root, abs).split(path.sep).join("/");
        const { fingerprintsUnder } = await import("../workspace/repo-fingerprints.js");
        const { askWho } = await import("../coordination/reach-agents.js");
        const m = mode();
        const who = await askWho({ mode: m, fingerprints: (await fingerprintsUnder(repo.root, m, ctx.env)) ?? [], path: rel, now: now(), get });
        const text =
          who.sessions.length === 0
            ? `Nobody active holds or changed ${rel}.`
            : [
                `${rel}:`,
                ...who.sessions.map(
                  (s) =>
                    `- ${s.description} (session ${s.session}): ${[s.holds ? "holds it" : null, s.changed ? "changed it" : null, s.reserved == null ? null : `reserved it (${s.reserved})`].filter((x) => x !== null).join(" and ")}${s.lines === null ? "" : `, lines ${s.lines}`}${s.status === null || s.status === "" ? "" : `; last status: ${s.status}`}`,
                ),
              ].join("\n");
        return { text, structured: { path: who.path, sessions: who.sessions.map((s) => ({ ...s })) } };
      }),
  );

  server.registerTool(
    "status",
    {
      title: "What the agents are doing",
      description:
        "The coding agents active in this project's repos now: for each, its host, who runs it, branch and folder, the files it changed and the symbols it changed (breaking changes first), and the open conflicts between them. Call it at the start of a task that spans several files.",
      inputSchema: { folder: z.string().max(4096).optional().describe("A repo or a folder of repos; the project folder when left out.") },
      outputSchema: {
        summary: z.string(),
        sessions: z.array(
          z.object({
            session: z.string(),
            tool: z.string(),
            label: z.string().nullable(),
            branch: z.string().nullable(),
            worktree: z.string().nullable(),
            files: z.array(z.string()),
            changes: z.array(symbolChange),
            reservations: z.array(z.object({ ref: z.string(), pattern: z.string(), exclusive: z.boolean(), reason: z.string().nullable(), expires_at: z.string() })),
            you: z.boolean(),
          }),
        ),
        conflicts: z.array(z.record(z.string(), z.unknown())),
      },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ folder }) =>
      answer(async () => {
        const [report, me] = await Promise.all([status(within(folder)), caller()]);
        const sessions = report.sessions.map((s) => ({
          session: s.external_id,
          tool: s.tool,
          label: s.label,
          branch: s.branch,
          worktree: s.worktree,
          files: [...s.files],
          changes: s.changes.map((c) => ({ ...c })),
          reservations: s.reservations.map((r) => ({ ...r })),
          you: me !== null && s.session_id === me.session_id,
        }));
        const lines = sessions.map((s) => {
          const breaking = s.changes.filter((c) => c.compatibility === "breaking");
          const parts = [
            `${s.files.length} file${s.files.length === 1 ? "" : "s"}${s.files.length > 0 ? ` (${s.files.slice(0, 8).join(", ")}${s.files.length > 8 ? ", ..." : ""})` : ""}`,
            ...(breaking.length > 0
              ? [
                  `breaking changes: ${breaking
                    .map((c) => `${c.qualified_name} in ${c.path}`)
                    .slice(0, 8)
                    .join(", ")}`,
                ]
              : []),
            ...(s.reservations.length > 0 ? [`reserved: ${s.reservations.map((r) => `${r.pattern} (${r.ref}, ${r.exclusive ? "exclusive" : "shared"}, until ${r.expires_at})`).join(", ")}`] : []),
          ];
          return `- ${s.you ? "(you) " : ""}${s.tool} session ${s.session}${s.label === null ? "" : ` run by ${s.label}`}${s.branch === null ? "" : `, branch ${s.branch}`}${s.worktree === null ? "" : `, in ${s.worktree}`}: ${parts.join("; ")}`;
        });
        const text =
          sessions.length === 0
            ? "No agent is active in these repos."
            : [
                `${sessions.length} active session${sessions.length === 1 ? "" : "s"}:`,
                ...lines,
                ...(report.conflicts.length > 0 ? [`${report.conflicts.length} open conflict${report.conflicts.length === 1 ? "" : "s"}.`] : []),
              ].join("\n");
        return { text, structured: { sessions, conflicts: report.conflicts.map((c) => ({ ...c }) as Record<string, unknown>) } };
      }),
  );

  server.registerTool(
    "check_edit",
    {
      title: "Would this edit collide",
      description:
        "Asks whether an edit you are about to make collides with another agent's work (the same lines, the same file, a breaking change another agent made to what you use), in the words Comity would use to stop it, without recording anything. Give the file and either the text you will replace and its replacement, or the whole new content.",
      inputSchema: {
        path: z.string().min(1).max(4096).describe("The file to edit, relative to the project folder or absolute."),
        old_string: z.string().max(1_000_000).optional().describe("The exact text the edit replaces."),
        new_string: z.string().max(1_000_000).optional().describe("What replaces it."),
        content: z.string().max(4_000_000).optional().describe("The file's whole new content (a write), instead of old_string/new_string."),
      },
      outputSchema: { summary: z.string(), verdict: z.enum(["deny", "warn", "clear"]), message: z.string().nullable(), as_session: z.string().nullable() },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path: file, old_string, new_string, content }) =>
      answer(async () => {
        if (content === undefined && (old_string === undefined || new_string === undefined)) throw new ComityError("INVALID_ARGUMENT", "give old_string and new_string, or content");
        if (content !== undefined && (old_string !== undefined || new_string !== undefined)) throw new ComityError("INVALID_ARGUMENT", "give old_string and new_string, or content, not both");
        const abs = within(file);
        if (findOwningRepo(existingDir(abs)) === null) throw new ComityError("INVALID_ARGUMENT", `${file} is in no git repo`);
        const me = await caller();
        // The event a PreToolUse hook would send (in Claude Code's words, which the pipeline reads for every host;
        // the session is the caller's, whichever its host), run through the hook's pipeline as a dry run: the
        // verdict is the hook's, to the word.
        const payload = {
          session_id: me?.external_id ?? `mcp-${process.pid}`,
          hook_event_name: "PreToolUse",
          cwd: ctx.cwd,
          tool_name: content === undefined ? "Edit" : "Write",
          tool_input: content === undefined ? { file_path: abs, old_string, new_string } : { file_path: abs, content },
          tool_use_id: `comity-check-${now()}`,
        };
        const { checkHookEvent } = await import("../hook/run-hook.js");
        const { verdict } = await checkHookEvent({ tool: "claude_code", event: "PreToolUse", stdin: JSON.stringify(payload), env: ctx.env, cwd: ctx.cwd });
        const v = verdict.block !== null ? "deny" : verdict.context !== null && verdict.context.trim() !== "" ? "warn" : "clear";
        const message = verdict.block ?? (v === "warn" ? verdict.context : null);
        const text = v === "clear" ? "Clear: nothing collides with this edit now." : `${v === "deny" ? "Comity would stop this edit once" : "Comity would warn about this edit"}:\n${message ?? ""}`;
        return { text, structured: { verdict: v, message, as_session: me?.external_id ?? null } };
      }),
  );

  server.registerTool(
    "impact",
    {
      title: "Changes to a symbol or file, and who uses it",
      description:
        "What the active agents changed in a symbol (a function, class, type, route or field, by name) or a file, before and after, whether it breaks its users, and which files use it: in this repo and in the other repos of the folder. Call it before relying on code another agent is changing.",
      inputSchema: {
        symbol: z.string().min(1).max(2048).optional().describe("A qualified name (parseConfig, Config.load, GET /orders/{id}, User.email)."),
        path: z.string().min(1).max(4096).optional().describe("A file, relative to the project folder or absolute."),
        folder: z.string().max(4096).optional().describe("The folder whose repos are searched for users; the project folder when left out."),
      },
      outputSchema: {
        summary: z.string(),
        changes: z.array(symbolChange.extend({ session: z.string(), description: z.string() })),
        users: z.array(z.object({ qualified_name: z.string(), publisher: z.string(), path: z.string(), consumer: z.string(), files: z.array(z.string()) })),
      },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ symbol, path: file, folder }) =>
      answer(async () => {
        if (symbol === undefined && file === undefined) throw new ComityError("INVALID_ARGUMENT", "give a symbol or a path");
        const dir = within(folder);
        const repo = findOwningRepo(ctx.cwd);
        const rel = file === undefined || repo === null ? null : path.relative(repo.root, within(file)).split(path.sep).join("/");
        const matches = (qualified: string, p: string): boolean =>
          (symbol === undefined || qualified === symbol || qualified.startsWith(`${symbol}.`) || qualified.endsWith(`.${symbol}`)) && (rel === null || p === rel);
        const report = await status(dir);
        const { describeSession } = await import("../coordination/coordination-text.js");
        const changes = report.sessions.flatMap((s) => s.changes.filter((c) => matches(c.qualified_name, c.path)).map((c) => ({ session: s.external_id, description: describeSession(s), ...c })));
        const analysed = await analyzeAt(ctx, dir);
        const users = [...analysed.cross_repo, ...analysed.in_repo, ...analysed.contract_users]
          .filter((u) => matches(u.qualified_name, u.path))
          .map((u) => ({ qualified_name: u.qualified_name, publisher: u.publisher, path: u.path, consumer: u.consumer, files: [...u.files] }));
        const text = [
          changes.length === 0 ? `No active agent changed ${symbol ?? rel}.` : `Changed by the active agents:`,
          ...changes.map(
            (c) =>
              `- ${c.qualified_name} in ${c.path}: ${c.change}, ${c.compatibility} (${c.state}), by ${c.description}${c.signature_before != null || c.signature_after != null ? `; ${c.signature_before ?? "(none)"} → ${c.signature_after ?? "(none)"}` : ""}`,
          ),
          ...(users.length === 0 ? [] : ["Used by (this machine's changes, across the folder's repos):"]),
          ...users.map(
            (u) =>
              `- ${u.qualified_name} (${u.publisher}: ${u.path}) is used by ${u.consumer === u.publisher ? "the same repo" : u.consumer} in ${u.files.slice(0, 10).join(", ")}${u.files.length > 10 ? `, and ${u.files.length - 10} more` : ""}`,
          ),
        ].join("\n");
        return { text, structured: { changes, users } };
      }),
  );

  server.registerTool(
    "send_message",
    {
      title: "Message another agent",
      description:
        "Leaves a short message for another coding agent (by its session id, its first characters, or the label Comity's warnings name it by): it is given to that agent at its next prompt, tool use or session start, once. Use it to agree on who changes what.",
      inputSchema: { to: z.string().min(1).max(256).describe("The other session's id (4 characters at least) or label."), text: z.string().min(1).max(2000) },
      outputSchema: { summary: z.string(), to: z.object({ session: z.string(), description: z.string() }) },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    async ({ to, text }) =>
      answer(async () => {
        const repo = findOwningRepo(ctx.cwd);
        const { fingerprintsUnder } = await import("../workspace/repo-fingerprints.js");
        const { agentLabel, worktreeFolder } = await import("../hook/build-request.js");
        const { readRepoState } = await import("../state/read-repo-state.js");
        const { leaveMessage } = await import("../coordination/reach-agents.js");
        const m = mode();
        const branch = repo === null ? null : ((await readRepoState(repo).catch(() => null))?.branch ?? null);
        const sent = await leaveMessage({
          mode: m,
          request: {
            repo: { remote_fingerprints: repo === null ? [] : ((await fingerprintsUnder(repo.root, m, ctx.env)) ?? []) },
            to,
            text,
            from: { label: agentLabel(ctx.env), worktree: repo === null ? null : worktreeFolder(repo.root, home), branch },
          },
          now: now(),
          post: (url, token, body) => httpRequest(url, { method: "POST", token, body, timeoutMs: API_TIMEOUT_MS }),
        });
        return { text: `Left for ${sent.to.description}: it is given at its next prompt, tool use or session start.`, structured: { to: { ...sent.to } } };
      }),
  );

  server.registerTool(
    "inbox",
    {
      title: "Messages for you",
      description:
        "The latest messages other agents left for you (this session), newest last, and whether your hooks had already shown each; the new ones count as given, so your hooks do not show them again.",
      inputSchema: {},
      outputSchema: { summary: z.string(), session: z.string().nullable(), messages: z.array(z.object({ from: z.string(), text: z.string(), at: z.string(), delivered: z.boolean() })) },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async () =>
      answer(async () => {
        const mine = await inboxForCaller(ctx);
        if (mine === null) return { text: "No session of this folder is active yet: there is no inbox to read.", structured: { session: null, messages: [] } };
        const me = { external_id: mine.session };
        const messages = mine.messages.map((m) => ({ ...m }));
        const text = messages.length === 0 ? "No messages." : messages.map((m) => `- from ${m.from} at ${m.at}${m.delivered ? "" : " (new)"}: ${m.text}`).join("\n");
        return { text, structured: { session: me.external_id, messages } };
      }),
  );

  server.registerTool(
    "reserve",
    {
      title: "Reserve files before changing them",
      description:
        "Claims files of this repo for a while before a larger change (a file, a folder such as src/billing/, or a glob such as src/**/*.sql): another agent's edit there is told, and denied once (exclusive, the default) or only told (shared). It ends after the minutes given, at release, or when your session ends. An exclusive reservation that meets another agent's is refused, naming it.",
      inputSchema: {
        paths: z.array(z.string().min(1).max(512)).min(1).max(32).describe("Repo-relative files, folders (ending in /) or globs."),
        minutes: z.number().int().min(1).max(480).default(30).describe("How long: 1 to 480 minutes (default 30)."),
        mode: z.enum(["exclusive", "shared"]).default("exclusive"),
        reason: z.string().max(500).optional().describe("What you are doing there, for the agents who meet it."),
      },
      outputSchema: {
        summary: z.string(),
        reservations: z.array(z.object({ ref: z.string(), pattern: z.string(), exclusive: z.boolean(), reason: z.string().nullable(), expires_at: z.number() })),
        overlapping: z.array(
          z.object({ ref: z.string(), pattern: z.string(), exclusive: z.boolean(), reason: z.string().nullable(), expires_at: z.number(), session: z.string(), description: z.string() }),
        ),
      },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ paths, minutes, mode: how, reason }) => answer(() => reserveForCaller(ctx, { paths, minutes, exclusive: how === "exclusive", reason: reason ?? null })),
  );

  server.registerTool(
    "release",
    {
      title: "Release reserved files",
      description: "Ends your reservations: those named (by ref, RSV-3, or by the path you reserved), or all of them when none is named.",
      inputSchema: {
        refs: z
          .array(z.string().regex(/^RSV-\d{1,15}$/))
          .max(64)
          .optional(),
        paths: z.array(z.string().min(1).max(512)).max(32).optional(),
      },
      outputSchema: { summary: z.string(), released: z.array(z.string()) },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ refs, paths }) => answer(() => releaseForCaller(ctx, { ...(refs === undefined ? {} : { refs }), ...(paths === undefined ? {} : { paths }) })),
  );

  server.registerTool(
    "analyze",
    {
      title: "Briefing of the workspace",
      description:
        "Comity's briefing of a folder of repos: uncommitted and unpushed work, files changed in several clones or worktrees of one repo, breaking changes and the code in other repos or packages that uses them, service contracts (OpenAPI, GraphQL, protobuf, HTTP routes) changed and who calls them.",
      inputSchema: { folder: z.string().max(4096).optional().describe("A repo or a folder of repos; the project folder when left out.") },
      outputSchema: { summary: z.string(), briefing: z.string(), repos: z.number() },
      _meta: ALWAYS_LOADED,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ folder }) =>
      answer(async () => {
        const report = await analyzeAt(ctx, within(folder));
        return { text: report.briefing === "" ? "Nothing to report." : report.briefing, structured: { briefing: report.briefing, repos: report.repos.length } };
      }),
  );

  return server;
}

/** `comity analyze` of a folder, with the config folder's caches, as the command runs it. */
async function analyzeAt(ctx: McpContext, dir: string): Promise<import("../analyze/analyze-workspace.js").AnalyzeReport> {
  const home = ctx.env["HOME"] ?? os.homedir();
  const config = configDirOf(ctx.env, home);
  const [{ analyzeWorkspace }, { CONFIG_LAYOUT }, { createSnapshotStore }, { createDiscoveryCache }] = await Promise.all([
    import("../analyze/analyze-workspace.js"),
    import("../config/config-layout.js"),
    import("../snapshot/snapshot-store.js"),
    import("../workspace/discovery-cache.js"),
  ]);
  return analyzeWorkspace(dir, {
    cwd: ctx.cwd,
    configEnv: { env: ctx.env, homeDir: home },
    symbolCacheDir: path.join(config, CONFIG_LAYOUT.symbols),
    snapshotStore: createSnapshotStore({ dir: path.join(config, CONFIG_LAYOUT.snapshots) }),
    statusIndex: { dir: path.join(config, CONFIG_LAYOUT.statusIndex) },
    cache: createDiscoveryCache(path.join(config, CONFIG_LAYOUT.discovery)),
  });
}

/** The nearest folder that exists at or above a path (a file about to be created lives in one). */
function existingDir(abs: string): string {
  let dir = abs;
  while (dir !== path.dirname(dir) && !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) dir = path.dirname(dir);
  return dir;
}

/**
 * A tool's result: its text for the model and its structured content; a `ComityError` (bad input, no such session,
 * an API that does not answer) as an error result with its message, so the model reads why.
 */
async function answer(run: () => Promise<{ text: string; structured: Record<string, unknown> }>): Promise<CallToolResult> {
  try {
    const { text, structured } = await run();
    // The text rides in the structured content too: a host that gives its model the structured content (Claude Code
    // does) shows it Comity's sentences, not only the fields.
    return { content: [{ type: "text", text }], structuredContent: { summary: text, ...structured } };
  } catch (error) {
    const message = error instanceof ComityError ? error.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
    return { content: [{ type: "text", text: message }], isError: true };
  }
}
