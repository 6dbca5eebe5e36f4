import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { compareStrings } from "../errors/diagnostic.js";
import { nodeSyncFs } from "../fs/sync-fs.js";
import { gitConfigFiles, loadGitConfig, type GitConfigEnv } from "../git/load-git-config.js";
import { comityHooks, entryCommand, hookEntries, INIT_HOSTS, isComityHookCommand, type HttpHook, type InitHost } from "../init/host-configs.js";
import { hooksAreCurrent } from "../init/merge-hooks.js";
import { HOOK_TOOLS, isKnownTool } from "../hook/hosts.js";
import { ompExtensionSource } from "../init/omp-extension.js";
import { COMPOZY_BEGIN, COMPOZY_END, compozyBlock } from "../init/compozy-declarations.js";
import { hostConfigFile } from "../init/plan-init.js";
import { CODEX_MCP_BEGIN, mcpConfigFile } from "../init/mcp-configs.js";
import { comityHttpHookUrls } from "./claude-policy.js";
import { readRemotes } from "../remotes/read-remotes.js";
import { findOwningRepo, reposAtOrUnder } from "../workspace/discover-repos.js";
import type { HttpAnswer } from "../api/http-request.js";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import type { DaemonHttpConfig } from "../daemon/daemon-http.js";

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of the doctor's report. `fail` needs fixing (exit 1); `warn` is worth knowing. */
export interface DoctorCheck {
  readonly id: string;
  readonly status: CheckStatus;
  readonly title: string;
  readonly detail: string;
}

export interface DoctorReport {
  readonly checks: readonly DoctorCheck[];
  /** No check failed. */
  readonly ok: boolean;
}

export interface DoctorOptions {
  /** The folder the report is about (its repo, or the repos under it). */
  readonly cwd: string;
  readonly home: string;
  /** `COMITY_API_URL`, `COMITY_TOKEN` (else what `comity login` saved in the config folder), git config locations. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The config folder (hook.log, caches). */
  readonly configDir: string;
  /** HTTP, injected (tests, no network): GET of a URL with an optional token. */
  readonly get: (url: URL, token: string | undefined) => Promise<HttpAnswer>;
  readonly now?: () => Date;
  /** Claude Code's managed settings file (default: the platform's, `claudeManagedSettingsPath`). */
  readonly claudeManagedSettings?: string;
}

/**
 * Whether Comity works here: each host's hooks installed and current, the
 * coordination in use (the embedded store opening, or the API answering and
 * accepting the token), the config folder writable, the
 * repos in view and their remotes, and recent fail-open lines of hook.log.
 * Never throws: a check that cannot run is a failed check.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const owner = findOwningRepo(options.cwd);
  const root = owner?.root ?? options.cwd;
  // In a folder of repos (where `comity init --each` writes each repo's config), each repo's hooks are what count.
  const under = owner === null ? reposUnder(options.cwd) : [];
  // Claude Code's HTTP hooks (`comity init --http`) are current when they carry this config folder's port and secret.
  const { claudeHttpHooks, readDaemonHttpConfig } = await import("../daemon/daemon-http.js");
  const httpConfig = readDaemonHttpConfig(options.configDir);
  const claudeHttp = httpConfig === null ? null : claudeHttpHooks(httpConfig);
  for (const host of INIT_HOSTS) checks.push(under.length === 0 ? hostCheck(host, root, options.home, claudeHttp) : folderHostCheck(host, root, under, options.home, claudeHttp));
  // Comity's MCP server, for the hosts whose hooks are in place (where `comity init` wrote both).
  if (under.length === 0) {
    const hooked = INIT_HOSTS.filter((h) => checks.some((c) => c.id === `hooks.${h}` && c.status === "ok"));
    const mcp = mcpCheck(hooked, root, options.home);
    if (mcp !== null) checks.push(mcp);
  }
  // What Claude Code's own settings (an administrator's managed ones among them) let those hooks do.
  const { claudeManagedSettingsPath, claudePolicyCheck } = await import("./claude-policy.js");
  const settings = (file: string) => ({ file, doc: readJson(file) });
  const policy = claudePolicyCheck(settings(options.claudeManagedSettings ?? claudeManagedSettingsPath()), [
    settings(path.join(options.home, ".claude", "settings.json")),
    settings(path.join(root, ".claude", "settings.json")),
    settings(path.join(root, ".claude", "settings.local.json")),
  ]);
  if (policy !== null) checks.push(policy);
  const { coordinationMode } = await import("../config/coordination-mode.js");
  const mode = coordinationMode(options.env, options.configDir);
  checks.push(configDirCheck(options.configDir));
  checks.push(await symbolsParserCheck(options.env));
  checks.push(await daemonCheck(options.env, httpConfig));
  if (process.platform !== "win32") checks.push(hookClientCheck());
  if (mode.kind === "served") checks.push(...(await apiChecks(options)));
  else checks.push(await localCoordinationCheck(mode, options));
  checks.push(...repoChecks(options, mode.kind));
  checks.push(hookLogCheck(options.configDir, (options.now ?? (() => new Date()))()));
  return { checks, ok: checks.every((c) => c.status !== "fail") };
}

/** The repos under a folder that is not one, sorted (submodules are their parent's). */
function reposUnder(dir: string): string[] {
  try {
    return reposAtOrUnder(dir)
      .filter((r) => r.kind !== "submodule")
      .map((r) => r.root)
      .sort(compareStrings);
  } catch {
    return [];
  }
}

/**
 * A host's hooks seen from a folder of repos: fine when the folder's own or the user's config has them, or when every
 * repo that has the host has them; otherwise a failure naming the repos without them.
 */
function folderHostCheck(host: InitHost, folder: string, repos: readonly string[], home: string, claudeHttp: Readonly<Record<string, HttpHook>> | null): DoctorCheck {
  const here = hostCheck(host, folder, home, claudeHttp);
  if (here.status === "ok") return here;
  const each = repos.map((r) => ({ repo: r, check: hostCheck(host, r, home, claudeHttp) }));
  const failing = each.filter((e) => e.check.status === "fail");
  const fine = each.filter((e) => e.check.status === "ok");
  const name = (r: string): string => path.relative(folder, r) || ".";
  if (failing.length > 0) {
    const names =
      failing
        .slice(0, 5)
        .map((e) => name(e.repo))
        .join(", ") + (failing.length > 5 ? ` and ${failing.length - 5} more` : "");
    return {
      id: `hooks.${host}`,
      status: "fail",
      title: here.title,
      detail: `${failing.length} of ${repos.length} repos under ${folder} need it (${names}): ${failing[0]?.check.detail ?? ""}; comity init --each ${folder} writes each repo's`,
    };
  }
  if (fine.length > 0) return { id: `hooks.${host}`, status: "ok", title: here.title, detail: `installed and current in each of the ${fine.length} repos under ${folder}` };
  return here;
}

/**
 * Whether each hooked host would start Comity's MCP server: its entry (`comity mcp --host HOST`) in the project's or
 * the user's MCP config, and, for a project's `.mcp.json`, its approval in Claude Code's settings. A warning, not a
 * failure: the hooks work without it. Null where no host is hooked, or none takes an MCP config Comity writes.
 */
function mcpCheck(hosts: readonly InitHost[], root: string, home: string): DoctorCheck | null {
  const title = "MCP server";
  const found: string[] = [];
  const missing: string[] = [];
  for (const host of hosts) {
    const files = [mcpConfigFile(host, { root, home }), mcpConfigFile(host, { root, home, user: true })].filter((f): f is string => f !== null);
    if (files.length === 0) continue;
    const file = files.find((f) => mcpEntryIn(host, f));
    if (file === undefined) {
      missing.push(host);
      continue;
    }
    // A project's .mcp.json server waits for each user's approval; init approves it in the project's settings.
    if (host === "claude_code" && file === path.join(root, ".mcp.json")) {
      const approved = [path.join(root, ".claude", "settings.json"), path.join(root, ".claude", "settings.local.json"), path.join(home, ".claude", "settings.json")].some((f) => {
        const doc = readJson(f) as { enabledMcpjsonServers?: unknown; enableAllProjectMcpServers?: unknown } | null;
        return doc?.enableAllProjectMcpServers === true || (Array.isArray(doc?.enabledMcpjsonServers) && doc.enabledMcpjsonServers.includes("comity"));
      });
      if (!approved)
        return {
          id: "mcp",
          status: "warn",
          title,
          detail: `${file} names Comity's MCP server, but no settings approve it (enabledMcpjsonServers): Claude Code waits for a person's approval; run comity init`,
        };
    }
    found.push(`${host} (${file})`);
  }
  if (found.length === 0 && missing.length === 0) return null;
  if (missing.length > 0)
    return {
      id: "mcp",
      status: "warn",
      title,
      detail: `${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} Comity's hooks but not its MCP server: run comity init${found.length > 0 ? `; in place for ${found.join(", ")}` : ""}`,
    };
  return { id: "mcp", status: "ok", title, detail: `in place for ${found.join(", ")}` };
}

/** Whether an MCP config file names Comity's server (`comity mcp`), in the host's format. */
function mcpEntryIn(host: InitHost, file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false;
  }
  if (host === "codex") return text.includes(CODEX_MCP_BEGIN) || /^\s*\[\s*mcp_servers\.("?)comity\1\s*\]/m.test(text);
  try {
    const entry = (JSON.parse(text) as { mcpServers?: Record<string, { args?: unknown }> }).mcpServers?.["comity"];
    return Array.isArray(entry?.args) && entry.args[0] === "mcp";
  } catch {
    return false;
  }
}

function hostCheck(host: InitHost, root: string, home: string, claudeHttp: Readonly<Record<string, HttpHook>> | null): DoctorCheck {
  const title = `${host} hooks`;
  if (host === "omp") return ompCheck(root, home);
  if (host === "compozy") return compozyCheck(root, home);
  // Claude Code also reads the user's own .claude/settings.local.json, where `comity init --http` writes.
  const places =
    host === "copilot"
      ? [
          { user: false, local: false },
          { user: true, local: false },
        ]
      : host === "claude_code"
        ? [
            { user: false, local: false },
            { user: false, local: true },
            { user: true, local: false },
          ]
        : [
            { user: false, local: false },
            { user: true, local: false },
          ];
  // Each file read once: whether Claude Code would run Comity's hooks from two of its project files, then what each says.
  const read = places.map((p) => {
    const file = hostConfigFile(host, { root, home, user: p.user, local: p.local });
    try {
      return { ...p, file, doc: JSON.parse(fs.readFileSync(file, "utf8")) as unknown, error: null };
    } catch (error) {
      return { ...p, file, doc: undefined, error: (error as NodeJS.ErrnoException).code === "ENOENT" ? null : (error as Error) };
    }
  });
  const twice = read.filter((r) => !r.user && r.doc !== undefined && comityCommandIn(r.doc) !== null).map((r) => r.file);
  if (twice.length > 1)
    return { id: `hooks.${host}`, status: "warn", title, detail: `Comity's hooks are in both ${twice.join(" and ")}: Claude Code runs both; keep one (comity init, or comity init --http)` };
  for (const { user, file, doc, error } of read) {
    if (error !== null) return { id: `hooks.${host}`, status: "fail", title, detail: `${file} cannot be read as JSON: ${error.message}` };
    if (doc === undefined) continue;
    const command = comityCommandIn(doc);
    if (command === null) continue;
    const unknown = unknownTools(JSON.stringify(doc));
    if (unknown.length > 0)
      return {
        id: `hooks.${host}`,
        status: "fail",
        title,
        detail: `${file} runs comity hook with an unknown --tool ${unknown.map((t) => `'${t}'`).join(", ")} (known: ${HOOK_TOOLS.join(", ")}): those hooks do nothing (run comity init${user ? " --user" : ""})`,
      };
    const overHttp = host === "claude_code" && holdsHttpHooks(doc);
    const fix = `comity init${user ? " --user" : ""}${overHttp ? " --http" : ""}`;
    if (overHttp && claudeHttp === null)
      return { id: `hooks.${host}`, status: "fail", title, detail: `${file} posts tool calls to the daemon, but this config folder has no daemon-http.json (its port and secret): run ${fix}` };
    if (hooksAreCurrent(doc, comityHooks(host, command, overHttp ? (claudeHttp ?? {}) : {})))
      return { id: `hooks.${host}`, status: "ok", title, detail: `installed and current in ${file}${overHttp ? " (tool calls posted to the daemon over HTTP)" : ""}` };
    return {
      id: `hooks.${host}`,
      status: "fail",
      title,
      detail: `update available: ${file} holds hooks of another Comity version${overHttp ? ", or of another daemon port or secret" : ""} (run ${fix})`,
    };
  }
  const dirs = [root, home].map((d) => path.dirname(hostConfigFile(host, { root: d, home: d })));
  // Hooks in a parent folder (a folder of repos `comity init` was run in): the host does not load them here.
  for (let up = path.dirname(root); up !== path.dirname(up) && up !== home; up = path.dirname(up)) {
    const file = hostConfigFile(host, { root: up, home });
    try {
      if (comityCommandIn(JSON.parse(fs.readFileSync(file, "utf8"))) === null) continue;
    } catch {
      continue;
    }
    return {
      id: `hooks.${host}`,
      status: "fail",
      title,
      detail: `not installed: Comity's hooks are in ${file}, which ${host} does not load for ${root} (it reads the folder it is opened in, and ~): run comity init in ${root}, or comity init --user`,
    };
  }
  // A settings file without Comity's hooks lies in one of these folders, so they tell whether the host is here.
  return notInstalled(
    host,
    dirs.some((d) => fs.existsSync(d)),
    "comity init",
  );
}

/** Whether a settings document holds Claude Code HTTP hooks of Comity's (`comity init --http`). */
function holdsHttpHooks(doc: unknown): boolean {
  return comityHttpHookUrls(doc).length > 0;
}

/** The `--tool` values of `comity hook` (and `comity-hook`) commands in a config's text that `comity hook` does not know. */
function unknownTools(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/comity(?:(?:\.js|\.cjs|\.cmd|\.mjs)?\\?["']?\s+hook|-hook(?:\.cmd|\.exe)?\\?["']?)\s[^"]*?--tool[\s=]+([^\s"\\]+)/g))
    if (!isKnownTool(m[1] ?? "")) out.add(m[1] ?? "");
  return [...out].sort();
}

/** A host without Comity's hooks: a failure when the host is here (its folder exists), else nothing to check. */
function notInstalled(host: InitHost, present: boolean, fix: string): DoctorCheck {
  const title = `${host} hooks`;
  return present ? { id: `hooks.${host}`, status: "fail", title, detail: `not installed (run ${fix})` } : { id: `hooks.${host}`, status: "skip", title, detail: "host not found here" };
}

/** CompozyOS: Comity's declarations block in the workspace's or the user's config.toml, as this version writes it. */
function compozyCheck(root: string, home: string): DoctorCheck {
  for (const user of [false, true]) {
    const file = hostConfigFile("compozy", { root, home, user });
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const start = text.indexOf(COMPOZY_BEGIN);
    const end = start < 0 ? -1 : text.indexOf(COMPOZY_END, start);
    if (start < 0 || end < 0) continue;
    const block = `${text.slice(start, end + COMPOZY_END.length)}\n`;
    // The command it was written with: the executable, then the args before `hook`.
    const bin = /^command = (".*")$/m.exec(block)?.[1];
    const args = /^args = (\[.*\])$/m.exec(block)?.[1];
    let command = "";
    try {
      const argv = JSON.parse(args ?? "[]") as string[];
      command = [JSON.parse(bin ?? '""') as string, ...argv.slice(0, argv.indexOf("--tool"))].join(" ");
    } catch {
      command = "";
    }
    return block === compozyBlock(command)
      ? { id: "hooks.compozy", status: "ok", title: "compozy hooks", detail: `installed and current in ${file}` }
      : {
          id: "hooks.compozy",
          status: "fail",
          title: "compozy hooks",
          detail: `update available: ${file} holds hooks of another Comity version (run comity init --tool compozy${user ? " --user" : ""})`,
        };
  }
  return notInstalled(
    "compozy",
    [root, home].some((d) => fs.existsSync(path.join(d, ".compozy"))),
    "comity init --tool compozy",
  );
}

/** omp: Comity's extension in the project's extensions folder, as this version writes it. */
function ompCheck(root: string, home: string): DoctorCheck {
  const file = hostConfigFile("omp", { root, home });
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    text = null;
  }
  if (text === null) {
    return notInstalled(
      "omp",
      [root, home].some((d) => fs.existsSync(path.join(d, ".omp"))),
      "comity init --tool omp",
    );
  }
  // Current when it is byte for byte what this version writes for the command it holds.
  let argv: unknown = null;
  try {
    argv = JSON.parse(/^const COMMAND: string\[\] = (\[.*\]);$/m.exec(text)?.[1] ?? "null");
  } catch {
    argv = null;
  }
  return Array.isArray(argv) && text === ompExtensionSource(argv.join(" "))
    ? { id: "hooks.omp", status: "ok", title: "omp hooks", detail: `extension installed and current in ${file}` }
    : { id: "hooks.omp", status: "fail", title: "omp hooks", detail: `update available: ${file} was written by another Comity version (run comity init --tool omp)` };
}

/** The hook command of the first entry of Comity's (`comity hook`, `npx comity hook`, `comity-hook`, a full path), or null. */
function comityCommandIn(doc: unknown): string | null {
  for (const h of hookEntries(doc)) {
    const command = entryCommand(h);
    if (isComityHookCommand(command)) return (command as string).replace(/\s+--tool(\s.*)?$/, "");
  }
  return null;
}

/**
 * With no API: the embedded store, opened as a hook opens it (made if new; moved aside and rebuilt if unusable),
 * with its policy and who is active in it. With `COMITY_API_URL=off`: coordination off, said as a warning.
 */
async function localCoordinationCheck(mode: { kind: "off" } | { kind: "embedded"; file: string }, options: DoctorOptions): Promise<DoctorCheck> {
  const title = "coordination";
  if (mode.kind === "off") return { id: "coordination", status: "warn", title, detail: "off (COMITY_API_URL=off): hooks give session-start briefings only, no agent is told of another" };
  const { openEmbeddedStore, LOCAL_TEAM } = await import("../coordination/embedded-store.js");
  let moved = "";
  try {
    const store = await openEmbeddedStore(mode.file, { onMovedAside: (reason, to) => (moved = `; it was unusable (${reason}), moved to ${to} and rebuilt`) });
    try {
      const now = (options.now ?? (() => new Date()))().getTime();
      const { DEFAULT_LEASE_MS } = await import("../coordination/evaluate-event.js");
      const rows = await store.database.read((sql) =>
        sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE team_id = ? AND ended_at IS NULL AND last_seen_at >= ?", [LOCAL_TEAM.id, now - DEFAULT_LEASE_MS]),
      );
      const n = Number(rows[0]?.n ?? 0);
      return {
        id: "coordination",
        status: moved === "" ? "ok" : "warn",
        title,
        detail: `this machine's agents coordinate through the embedded store ${mode.file} (no server; policy ${await store.policy()}; ${n} active session${n === 1 ? "" : "s"})${moved}. For a team across machines: comity serve, then comity login`,
      };
    } finally {
      await store.close();
    }
  } catch (error) {
    return { id: "coordination", status: "fail", title, detail: `the embedded store ${mode.file} cannot be opened (${(error as Error).message}): hooks fail open and nobody is told anything` };
  }
}

async function apiChecks(options: DoctorOptions): Promise<DoctorCheck[]> {
  const { resolveApi } = await import("../config/api-credentials.js");
  const api = resolveApi(options.env, options.configDir);
  const base = api.url;
  const token = api.token;
  const { redactUserinfo } = await import("../api/redact-url.js");
  const shown = redactUserinfo(base);
  // Where the token comes from, as hooks see it (a variable wins over the file `comity login` writes).
  const tokenName = api.tokenFrom === "env" ? "COMITY_TOKEN" : "the token saved by comity login";
  if (base === "") return [{ id: "api", status: "fail", title: "API", detail: "COMITY_API_URL is not set and comity login was not run" }];
  const { apiUrl } = await import("../api/http-request.js");
  let health: HttpAnswer;
  try {
    health = await options.get(apiUrl(base, "/v1/health"), undefined);
  } catch (error) {
    return [{ id: "api", status: "fail", title: "API", detail: `${shown} does not answer: ${(error as Error).message}` }];
  }
  if (health.status < 200 || health.status > 299) return [{ id: "api", status: "fail", title: "API", detail: `${shown}/v1/health answered HTTP ${health.status}` }];
  // A `comity serve` says what it is (`{status, storage, version}`); other APIs need not.
  let what = "";
  try {
    const h = JSON.parse(health.text) as { storage?: unknown; version?: unknown };
    if (typeof h.version === "string" && typeof h.storage === "string") what = ` (comity serve ${h.version}, ${h.storage})`;
  } catch {
    // not JSON: still an answer
  }
  const out: DoctorCheck[] = [{ id: "api", status: "ok", title: "API", detail: `hooks coordinate through the team API: ${shown} answers${what}` }];
  if (token === undefined || token === "") {
    out.push({ id: "api.token", status: "fail", title: "API token", detail: "COMITY_TOKEN is not set and comity login was not run" });
    return out;
  }
  try {
    const r = await options.get(apiUrl(base, "/v1/sessions"), token);
    if (r.status === 401 || r.status === 403) out.push({ id: "api.token", status: "fail", title: "API token", detail: `the API rejects ${tokenName} (HTTP ${r.status})` });
    else if (r.status < 200 || r.status > 299) out.push({ id: "api.token", status: "fail", title: "API token", detail: `${shown}/v1/sessions answered HTTP ${r.status}` });
    else out.push({ id: "api.token", status: "ok", title: "API token", detail: api.tokenFrom === "file" ? "accepted (saved by comity login)" : "accepted" });
  } catch (error) {
    out.push({ id: "api.token", status: "fail", title: "API token", detail: `cannot check it: ${(error as Error).message}` });
  }
  return out;
}

/** Whether hook events are answered by a warm daemon (`comity daemon`), or each in its own process. */
async function daemonCheck(env: DoctorOptions["env"], http: DaemonHttpConfig | null): Promise<DoctorCheck> {
  const { daemonSocketFor, installedBuild, callDaemon } = (await import("../daemon/daemon-client.cjs")).default;
  const title = "daemon";
  if (env["COMITY_DAEMON"] === "off") return { id: "daemon", status: "ok", title, detail: "off (COMITY_DAEMON=off): each hook event runs in a process of its own" };
  const socket = daemonSocketFor(env);
  if (socket === null)
    return { id: "daemon", status: "warn", title, detail: "the config folder's path is too long for a socket: each hook event runs in a process of its own (set COMITY_CONFIG_DIR to a shorter path)" };
  const a = await callDaemon(socket, { kind: "status", build: installedBuild() }, { connectMs: 500, answerMs: 1500 });
  if ("miss" in a) return { id: "daemon", status: "skip", title, detail: `not running: the next hook event starts it (${socket})` };
  if (a.kind === "status") {
    // `comity init --http` made the daemon's HTTP settings: Claude Code's tool calls reach Comity only if it listens.
    const running = `running (pid ${a.pid}, ${a.served} hook events answered): hook events are answered warm`;
    if (http === null) return { id: "daemon", status: "ok", title, detail: running };
    if (a.httpPort === http.port) return { id: "daemon", status: "ok", title, detail: `${running}; Claude Code's HTTP hooks on 127.0.0.1:${http.port}` };
    if (a.httpStarting === true) return { id: "daemon", status: "ok", title, detail: `${running}; its front for Claude Code's HTTP hooks (127.0.0.1:${http.port}) is starting` };
    return {
      id: "daemon",
      status: "warn",
      title,
      detail: `${running}, but not Claude Code's HTTP hooks (comity init --http) on 127.0.0.1:${http.port}: hook.log says why; comity daemon stop, and the next session start runs one that does`,
    };
  }
  if (a.kind === "stale") return { id: "daemon", status: "ok", title, detail: "a daemon of another Comity build was running: it ended, and the next hook event starts this build's" };
  return { id: "daemon", status: "warn", title, detail: `it answered ${a.kind}` };
}

/**
 * Whether `comity-hook` (what `comity init` writes for the hosts that run commands) is the native client, or the Node
 * script the install wrote where none could be built, or missing (the package installed without its scripts).
 */
function hookClientCheck(): DoctorCheck {
  const file = fileURLToPath(new URL("../../bin/comity-hook", import.meta.url));
  const title = "hook client";
  let head: string;
  try {
    head = fs.readFileSync(file).subarray(0, 2).toString("latin1");
  } catch {
    return {
      id: "hook_client",
      status: "warn",
      title,
      detail: `${file} is missing (the package was installed without its scripts): comity init writes comity hook, a Node process an event; reinstall it with its scripts`,
    };
  }
  if (head === "#!")
    return {
      id: "hook_client",
      status: "warn",
      title,
      detail:
        "comity-hook is the Node script written where no native client could be made (no prebuild for this platform, no C compiler): each command hook starts Node; with a C compiler, reinstall the package",
    };
  return { id: "hook_client", status: "ok", title, detail: `native (${file}): command hooks reach the daemon without starting Node` };
}

/** Whether files are parsed by Comity's native parser (`native/`) or by web-tree-sitter, its slower fallback. */
async function symbolsParserCheck(env: DoctorOptions["env"]): Promise<DoctorCheck> {
  const { FLAT_PARSER_ENV, openFlatParser } = await import("../parse/native-parser.js");
  const title = "symbols parser";
  if (env[FLAT_PARSER_ENV] === "wasm") return { id: "symbols_parser", status: "ok", title, detail: `web-tree-sitter, chosen by ${FLAT_PARSER_ENV}=wasm (slower than the native parser on many files)` };
  const opened = openFlatParser();
  if (opened.problem === null)
    return {
      id: "symbols_parser",
      status: "ok",
      title,
      detail: `native: files are parsed by Comity's native parser (${opened.origin === "prebuilt" ? `prebuilt for ${process.platform}-${process.arch}` : "built on this machine"})`,
    };
  return {
    id: "symbols_parser",
    status: "warn",
    title,
    detail: `web-tree-sitter: the native parser is not in use (${opened.problem}); symbols and analyze give the same results, more slowly on many files (with a C compiler, node scripts/build-native.mjs in the comity package builds it)`,
  };
}

function configDirCheck(dir: string): DoctorCheck {
  const probe = path.join(dir, `.doctor-${process.pid}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
    return { id: "config_dir", status: "ok", title: "config folder", detail: `${dir} is writable` };
  } catch (error) {
    return {
      id: "config_dir",
      status: "fail",
      title: "config folder",
      detail: `${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): no snapshots, caches or hook.log`,
    };
  }
}

function repoChecks(options: DoctorOptions, mode: "off" | "served" | "embedded"): DoctorCheck[] {
  let repos: ReturnType<typeof reposAtOrUnder>;
  try {
    repos = reposAtOrUnder(options.cwd);
  } catch (error) {
    return [{ id: "repos", status: "fail", title: "repos", detail: `cannot look for repos: ${(error as Error).message}` }];
  }
  if (repos.length === 0) return [{ id: "repos", status: "warn", title: "repos", detail: `no git repo at or under ${options.cwd}: hooks here send nothing` }];
  const where: GitConfigEnv = { env: options.env, homeDir: options.home };
  return [...repos]
    .sort((a, b) => compareStrings(a.root, b.root))
    .map((repo) => {
      const rel = path.relative(options.cwd, repo.root) || ".";
      const config = loadGitConfig(nodeSyncFs, where, gitConfigFiles(where, repo.commonDir ?? "", repo.gitDir ?? ""), { gitDir: repo.gitDir });
      const remotes = readRemotes(config.entries);
      return remotes.length > 0
        ? { id: `repo:${rel}`, status: "ok" as const, title: `repo ${rel}`, detail: `remotes: ${remotes.map((r) => r.name).join(", ")}` }
        : mode === "served"
          ? { id: `repo:${rel}`, status: "warn" as const, title: `repo ${rel}`, detail: "no remote: hooks send nothing for it (sessions on other machines could not recognise it)" }
          : { id: `repo:${rel}`, status: "ok" as const, title: `repo ${rel}`, detail: "no remote: on this machine its root commit names it, so its worktrees and clones still meet" };
    });
}

/** hook.log: fail-open lines of the last 24 hours, grouped by reason. */
function hookLogCheck(dir: string, now: Date): DoctorCheck {
  let text = "";
  for (const name of [`${CONFIG_LAYOUT.hookLog}.1`, CONFIG_LAYOUT.hookLog]) {
    try {
      text += fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      // none
    }
  }
  const since = now.getTime() - 24 * 3600 * 1000;
  // Grouped by reason with its numbers set aside (`HTTP 502` and `HTTP 503` are one kind), each shown by its
  // latest line as written: the counts add up to the total, and no placeholder is printed.
  const reasons = new Map<string, { n: number; latest: string }>();
  let last = "";
  for (const line of text.split("\n")) {
    const [time, kind, tool, event, reason] = line.split("\t");
    if (kind !== "fail-open" || time === undefined || !(Date.parse(time) >= since)) continue;
    const key = (reason ?? "").replace(/\d+/g, "#");
    reasons.set(key, { n: (reasons.get(key)?.n ?? 0) + 1, latest: reason ?? "" });
    last = `${time} ${tool ?? ""} ${event ?? ""}: ${reason ?? ""}`;
  }
  const total = [...reasons.values()].reduce((a, b) => a + b.n, 0);
  if (total === 0) return { id: "hook_log", status: "ok", title: "hook.log", detail: "no fail-open in the last 24 hours" };
  const ranked = [...reasons].sort((a, b) => b[1].n - a[1].n || compareStrings(a[0], b[0]));
  const shown = ranked.slice(0, 4).map(([, r]) => `${r.n}x ${r.latest}`);
  const rest = ranked.slice(4);
  if (rest.length > 0) shown.push(`${rest.reduce((a, [, r]) => a + r.n, 0)}x for ${rest.length} other reason${rest.length === 1 ? "" : "s"}`);
  return { id: "hook_log", status: "warn", title: "hook.log", detail: `${total} fail-open in the last 24 hours (${shown.join("; ")}); last: ${last}` };
}

/** A JSON file's document, or null where it is absent, unreadable or not JSON. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  } catch {
    return null;
  }
}
