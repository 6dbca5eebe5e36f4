import type { CommandSnapshotOptions } from "../snapshot/command-snapshots.js";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EvaluateRequest, UseRecord } from "../coordination/wire.js";
import { isHookConfigFile } from "../config/hook-config-files.js";
import { oneLine } from "../coordination/coordination-text.js";
import { CLI_VERSION } from "../version.js";
import type { GitStatusView } from "../snapshot/git-status-view.js";
import type { RepoState } from "../state/read-repo-state.js";
import type { Repo } from "../workspace/repo.js";
import type { Ctx } from "./hook-context.js";
import { patchAddedText } from "./apply-patch.js";
import { editPaths } from "./collect-paths.js";
import { dedupeKey, machineIdHash } from "./identity.js";
import { CONFIG_LAYOUT, SYMBOLS_LAYOUT } from "../config/config-layout.js";

/** At most this many paths go in one request. */
export const MAX_PATHS = 500;

/**
 * The request body for one repo (`docs/hooks.md`,
 * "What each event sends"): identity and state for every event, and each
 * event's own fields, capped. Loads snapshot, symbol and package code only for
 * the events that need it. Null when the event does not concern this repo
 * after all (a shell command in another root of a multi-root workspace).
 */
export async function bodyFor(ctx: Ctx, repo: Repo, state: RepoState, paths: string[], shell: { command: string; paths: string[]; unresolved: number } | null): Promise<EvaluateRequest | null> {
  const { payload, event } = ctx;
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const cwdPath = path.relative(repo.root, ctx.cwd).split(path.sep).join("/");
  const repoBody: Mutable<EvaluateRequest["repo"]> = {
    remote_fingerprints: state.remote_fingerprints,
    branch: state.branch,
    head_sha: state.head_sha,
    base_sha: state.base_sha,
    worktree_hash: null,
    cwd_path: cwdPath.startsWith("..") ? null : cwdPath === "" ? "." : cwdPath,
    worktree: worktreeFolder(repo.root, ctx.input.env["HOME"] ?? os.homedir()),
  };
  const body: Mutable<EvaluateRequest> = {
    event,
    dedupe_key: dedupeKey(ctx.eventHash, repo.root, ctx.turn),
    session: {
      external_id: ctx.agentId === null ? ctx.sessionId : `${ctx.sessionId}:${ctx.agentId}`,
      tool: ctx.host,
      model: str(payload["model"]),
      surface: "hook",
      // Subagents carry the parent's session id plus an agent_id: the parent is that session.
      parent_external_id: ctx.agentId === null ? null : ctx.sessionId,
      label: agentLabel(ctx.input.env),
    },
    client: { cli_version: CLI_VERSION, os: process.platform, tool_version: str(payload["version"]) ?? str(payload["cli_version"]), machine_id_hash: machineIdHash() },
    repo: repoBody,
  };
  switch (event) {
    case "session_start": {
      const { discoverPackages } = await import("../packages/discover-packages.js");
      const pk = discoverPackages(repo.root);
      repoBody.packages = pk.packages;
      repoBody.packages_truncated = pk.truncated;
      const { declaredDependencies } = await import("../packages/declared-dependencies.js");
      repoBody.dependencies = declaredDependencies(repo.root, pk.packages);
      repoBody.worktree_hash = await worktreeHashOf(repo, ctx);
      break;
    }
    case "prompt":
      body.prompt_excerpt = takeChars(ctx.prompt ?? "", 2000);
      break;
    case "plan":
      body.plan_text = takeChars(str(ctx.toolInput["plan"]) ?? "", 32768);
      break;
    case "pre_edit": {
      body.paths = paths.slice(0, MAX_PATHS);
      body.uses = await usesBefore(ctx, repo, paths.slice(0, MAX_PATHS));
      const { editsBefore } = await import("./edit-targets.js");
      body.edits = await editsBefore(ctx, repo, state, body.paths);
      break;
    }
    case "pre_shell": {
      body.paths = paths.slice(0, MAX_PATHS);
      body.uses = await usesBefore(ctx, repo, paths.slice(0, MAX_PATHS));
      // File contents (here-documents) and secrets typed inline never leave the machine.
      const { redactCommand } = await import("../shell/redact-command.js");
      body.shell = { command: takeChars(redactCommand(shell?.command ?? ""), 4000), paths: paths.slice(0, MAX_PATHS), unresolved: shell?.unresolved ?? 0 };
      await snapshotBefore(ctx, repo);
      break;
    }
    case "post_edit": {
      const after = ctx.tool === "Bash" ? ((await changesAfter(ctx, repo))?.filter((p) => !isHookConfigFile(p)) ?? null) : paths;
      // In a multi-root workspace, a shell command concerns the roots snapshotted before it, not every root.
      if (after === null && ctx.roots.length > 1) return null;
      // A command that moved HEAD (a commit, a reset): the session's changed files are analysed again, so that a
      // change now in HEAD reads as committed and one undone as reverted.
      const moved = ctx.tool === "Bash" && state.head_sha !== null && (ctx.state.heads?.[repo.root] ?? state.head_sha) !== state.head_sha;
      const changed = moved ? [...new Set([...(after ?? []), ...(ctx.state.changed?.[repo.root] ?? [])])].sort() : (after ?? []);
      body.paths = changed.slice(0, MAX_PATHS);
      // Where each file now differs from its base: what another session's edit of it may meet.
      const { editsAfter } = await import("./edit-targets.js");
      body.edits = await editsAfter(repo, state, body.paths);
      const { REQUEST_LIMITS } = await import("../coordination/wire.js");
      const done = await analyses(ctx, repo, state, changed);
      const analysed = capChanges(done.analysis, REQUEST_LIMITS.changes);
      body.analysis = analysed.analysis;
      if (analysed.truncated || done.truncated) body.analysis_truncated = true;
      break;
    }
    case "stop": {
      const tree = await worktreeOf(repo, ctx);
      repoBody.worktree_hash = tree.worktree_hash;
      if ((ctx.input.env["COMITY_SHARE_STATUS"] ?? "1") !== "0") {
        // The files this turn meant to change that its working tree did change: an edit that was refused, failed or
        // was never run changed nothing, and another session must not be told it did. (Unknown where git's view
        // could not be read: then every file the turn named.)
        const touched = ctx.state.touched[repo.root] ?? [];
        const changed = new Set(tree.changes.map((c) => c.path).filter((p) => !isHookConfigFile(p)));
        body.status = { excerpt: takeChars(str(payload["last_assistant_message"]) ?? "", 500), files: tree.worktree_hash === null ? [...touched] : touched.filter((p) => changed.has(p)) };
      }
      break;
    }
    case "session_end":
      break;
  }
  return body;
}

/**
 * Who runs the session, for the other agents' warnings: `COMITY_AGENT_NAME`, else the machine's host name; one line,
 * without control characters (the request schema refuses them).
 */
export function agentLabel(env: Readonly<Record<string, string | undefined>>): string {
  const named = oneLine(env["COMITY_AGENT_NAME"] ?? "", 128);
  if (named !== "") return named;
  // Two agents on one machine: the terminal pane each runs in, where the terminal says, else the terminal itself
  // (their ids and working trees are in every warning too).
  const pane = env["TMUX_PANE"]
    ? `tmux ${env["TMUX_PANE"]}`
    : env["ZELLIJ_PANE_ID"]
      ? `zellij ${env["ZELLIJ_PANE_ID"]}`
      : env["WEZTERM_PANE"]
        ? `wezterm ${env["WEZTERM_PANE"]}`
        : env["KITTY_WINDOW_ID"]
          ? `kitty ${env["KITTY_WINDOW_ID"]}`
          : // Else the host's terminal (bin/comity.cjs and the native client find it up the hook's process tree).
            (env["COMITY_HOST_TTY"] ?? "");
  return oneLine(pane === "" ? os.hostname() : `${os.hostname()} ${pane}`, 128);
}

/**
 * A working tree's folder as a person finds it: relative to the home folder (`~/work/vite-feature`), else its last
 * two segments (`work/vite-feature`). What tells two worktrees or clones of one repo apart in a warning.
 */
export function worktreeFolder(root: string, home: string): string {
  const rel = path.relative(home, root);
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return oneLine(`~/${rel.split(path.sep).join("/")}`, 1024);
  return oneLine(
    root
      .split(path.sep)
      .filter((p) => p !== "")
      .slice(-2)
      .join("/"),
    1024,
  );
}

/** Files whose imports are read before an edit: the languages whose symbols Comity compares. */
const SCANNED = /\.(tsx?|mts|cts|jsx?|mjs|cjs|pyi?|go|rs|java)$/;
/** A file larger than this is not scanned before an edit (its imports are learnt after it, from the analysis). */
const MAX_SCAN_BYTES = 1024 * 1024;
const MAX_USES = 5000;

/**
 * What the files about to change import, as they are and as the edit writes them (the tool's new text): a
 * lexical scan, names and modules only, so that a session about to edit code that uses a symbol another session
 * broke is told before the edit.
 */
async function usesBefore(ctx: Ctx, repo: Repo, paths: readonly string[]): Promise<UseRecord[]> {
  const files = paths.filter((p) => SCANNED.test(p) || CONTRACT_DOCUMENTS.test(p));
  if (files.length === 0) return [];
  const [{ scanImports, scanLanguageOf }, { contractUses }, { createCrateNames, withCrateNames }] = await Promise.all([
    import("../symbols/scan-imports.js"),
    import("../contracts/contract-uses.js"),
    import("../packages/crate-names.js"),
  ]);
  const crateNames = createCrateNames(repo.root);
  const written = newTexts(ctx, repo);
  const out: UseRecord[] = [];
  for (const p of files) {
    const language = scanLanguageOf(p);
    const added = written.get(p) ?? "";
    let current: string | null = null;
    try {
      const abs = path.join(repo.root, p);
      if (fs.statSync(abs).size <= MAX_SCAN_BYTES) current = fs.readFileSync(abs, "utf8");
    } catch {
      // a new file: only what the edit writes
    }
    if (SCANNED.test(p))
      for (const r of withCrateNames(p, scanImports(`${added}\n${current ?? ""}`, language), crateNames.ofFile(p))) if (out.length < MAX_USES) out.push({ path: p, name: r.name, module: r.module });
    // The contracts it uses (GraphQL fields it selects, HTTP operations it calls), now and as the edit leaves it: a
    // query or a call being written to what another agent just removed is told before it is written.
    const after = afterEdit(ctx, current) ?? added;
    for (const text of [current ?? "", after]) for (const u of contractUses(p, text)) if (out.length < MAX_USES) out.push({ path: p, name: u.name, module: u.module });
  }
  return out;
}

/** Documents that use a contract without importing it: GraphQL operations in their own files. */
const CONTRACT_DOCUMENTS = /\.(graphql|gql)$/;

/** The whole file as an Edit or Write leaves it (from its current text), where the tool says it exactly; else null. */
function afterEdit(ctx: Ctx, current: string | null): string | null {
  const input = ctx.toolInput;
  if (typeof input["content"] === "string") return input["content"];
  if (current === null) return null;
  const oldText = input["old_string"];
  const newText = input["new_string"];
  if (typeof oldText !== "string" || typeof newText !== "string" || oldText === "" || !current.includes(oldText)) return null;
  return input["replace_all"] === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText);
}

/** The text an edit tool writes, per repo-relative path (Write's content, Edit's new string, apply_patch's added lines). */
function newTexts(ctx: Ctx, repo: Repo): Map<string, string> {
  const out = new Map<string, string>();
  const rel = (p: string): string => path.relative(repo.root, path.resolve(ctx.cwd, p)).split(path.sep).join("/");
  const input = ctx.toolInput;
  const command = typeof input["command"] === "string" ? input["command"] : typeof input["input"] === "string" ? input["input"] : null;
  if (ctx.tool === "apply_patch" && command !== null) {
    for (const [p, added] of patchAddedText(command)) out.set(rel(p), `${out.get(rel(p)) ?? ""}${added}`);
    return out;
  }
  const target = editPaths(ctx.tool, input, ctx.cwd)[0];
  if (target === undefined) return out;
  const pieces = [input["content"], input["new_string"], input["new_str"], input["file_text"], input["new_source"]].filter((v): v is string => typeof v === "string");
  if (Array.isArray(input["edits"]))
    for (const e of input["edits"])
      if (typeof e === "object" && e !== null && typeof (e as Record<string, unknown>)["new_string"] === "string") pieces.push((e as Record<string, string>)["new_string"] as string);
  out.set(rel(target), pieces.join("\n"));
  return out;
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
  return (await worktreeOf(repo, ctx)).worktree_hash;
}

/** The working tree against HEAD: its hash, and the paths that differ. */
async function worktreeOf(repo: Repo, ctx: Ctx): Promise<{ worktree_hash: string | null; changes: ReadonlyArray<{ path: string }> }> {
  const { worktreeHash } = await import("../snapshot/worktree-hash.js");
  return worktreeHash(repo, { configEnv: ctx.configEnv, statusIndex: statusIndexOf(ctx), statusView: statusViewOf(ctx, repo) });
}

/**
 * The repo's git status for this event, as `worktreeHash` reads it against HEAD: taken once (a process of its own, not
 * a synchronous spawn, so a session start's repos overlap theirs) and shared with the session start's briefing.
 */
export function statusViewOf(ctx: Ctx, repo: Repo): Promise<GitStatusView | { readonly walk: string }> {
  let view = ctx.statusViews.get(repo.root);
  if (view === undefined) {
    view = (async () => {
      const [{ readGitStatusViewAsync }, { nodeWorktreeFs }] = await Promise.all([import("../snapshot/git-status-view.js"), import("../snapshot/content-hasher.js")]);
      return readGitStatusViewAsync(repo, nodeWorktreeFs, ctx.configEnv, statusIndexOf(ctx), { withIndex: false });
    })();
    view.catch(() => undefined);
    ctx.statusViews.set(repo.root, view);
  }
  return view;
}

function toolUseId(ctx: Ctx): string {
  const id = ctx.payload["tool_use_id"];
  return typeof id === "string" && id !== "" ? id : "no-tool-use-id";
}

/** Where git status keeps private copies of large repos' indexes (see `privateStatusIndex`). */
export function statusIndexOf(ctx: Ctx): { dir: string } {
  return { dir: path.join(ctx.configDir, CONFIG_LAYOUT.statusIndex) };
}

async function snapshotStore(ctx: Ctx) {
  const { createSnapshotStore } = await import("../snapshot/snapshot-store.js");
  return createSnapshotStore({ dir: path.join(ctx.configDir, CONFIG_LAYOUT.snapshots) });
}

/** Where a shell command's snapshots go and how they are taken: per session and tool call, with the daemon's memo. */
async function commandSnapshotOptions(ctx: Ctx): Promise<CommandSnapshotOptions> {
  return {
    store: await snapshotStore(ctx),
    sessionId: ctx.sessionId,
    toolUseId: toolUseId(ctx),
    configEnv: ctx.configEnv,
    statusIndex: statusIndexOf(ctx),
    memo: ctx.input.runtime?.snapshotMemo ?? null,
  };
}

/** Before a shell command: a snapshot of the repo, for the process after it. */
async function snapshotBefore(ctx: Ctx, repo: Repo): Promise<void> {
  const { snapshotBeforeCommand } = await import("../snapshot/command-snapshots.js");
  await snapshotBeforeCommand(repo, await commandSnapshotOptions(ctx));
}

/** After a shell command: exactly the paths it changed (null when no snapshot was taken before). */
async function changesAfter(ctx: Ctx, repo: Repo): Promise<string[] | null> {
  const { changesAfterCommand } = await import("../snapshot/command-snapshots.js");
  const r = await changesAfterCommand(repo, await commandSnapshotOptions(ctx));
  return r.changes === null ? null : r.changes.map((c) => c.path);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** One changed file's analysis, as the request carries it. */
type FileEntry = NonNullable<EvaluateRequest["analysis"]>[number];

/** At most `max` changes in one request (`REQUEST_LIMITS.changes`): breaking ones first, then compatible, then internal. */
function capChanges(analysis: FileEntry[], max: number): { analysis: FileEntry[]; truncated: boolean } {
  const all = analysis.flatMap((a, i) => (a.changes ?? []).map((ch) => ({ i, ch })));
  if (all.length <= max) return { analysis, truncated: false };
  const rank = (c: string): number => (c === "breaking" ? 0 : c === "compatible" ? 1 : 2);
  const kept = new Set(
    [...all]
      .sort((a, b) => rank(a.ch.compatibility) - rank(b.ch.compatibility))
      .slice(0, max)
      .map((x) => x.ch),
  );
  return { analysis: analysis.map((a) => ({ ...a, changes: (a.changes ?? []).filter((ch) => kept.has(ch)) })), truncated: true };
}

/**
 * What a file uses that its symbols' references do not say: the contracts it uses (GraphQL fields it selects, HTTP
 * operations it calls), as references to their namespace, and the types Java code names in full without importing.
 */
async function scannedReferences(repo: Repo, repoPath: string): Promise<Array<{ kind: string; name: string; module: string }>> {
  if (!SCANNED.test(repoPath) && !CONTRACT_DOCUMENTS.test(repoPath)) return [];
  let text: string;
  try {
    const abs = path.join(repo.root, repoPath);
    if (fs.statSync(abs).size > MAX_SCAN_BYTES) return [];
    text = fs.readFileSync(abs, "utf8");
  } catch {
    return [];
  }
  const { contractUses } = await import("../contracts/contract-uses.js");
  const contracts = contractUses(repoPath, text).map((u) => ({ kind: "import", name: u.name, module: u.module }));
  if (!repoPath.endsWith(".java")) return contracts;
  const { javaQualifiedUses } = await import("../symbols/scan-imports.js");
  return [...contracts, ...javaQualifiedUses(text).map((r) => ({ kind: "import", name: r.name, module: r.module ?? "" }))];
}

/** The references that say what a file uses from other modules (imports and re-exports), names and modules only. */
function importsOnly(refs: ReadonlyArray<{ kind: string; name: string; module: string | null }>): Array<{ kind: string; name: string; module: string | null }> {
  return refs.filter((r) => (r.kind === "import" || r.kind === "export") && r.module !== null).slice(0, 5000);
}

/**
 * Symbol analysis of the changed files in supported languages (at most 50 a request), until the hook's deadline
 * (`Ctx.deadlineAt`): the files not analysed by then are left out (their paths are sent all the same) and
 * `truncated` says so. A file whose own parse went past its limits, with time left, counts as a file that does not
 * parse.
 */
async function analyses(ctx: Ctx, repo: Repo, state: RepoState, paths: readonly string[]): Promise<{ analysis: FileEntry[]; truncated: boolean }> {
  const { languageOf } = await import("../symbols/languages.js");
  const { isContractFile } = await import("../contracts/contract-kind.js");
  // Code in the languages Comity reads, and service contracts (GraphQL SDL, ...), compared by their own rules.
  const files = paths.filter((p) => languageOf(p) !== null || isContractFile(path.join(repo.root, p), p)).slice(0, 50);
  // A YAML or JSON file that is not a contract may be one's schema or path file, its changes the documents'.
  const { mayBeFragment } = await import("../contracts/ref-documents.js");
  const fragments = new Set(paths.filter((p) => !files.includes(p) && mayBeFragment(p)).slice(0, 10));
  files.push(...fragments);
  if (files.length === 0) return { analysis: [], truncated: false };
  const { analyzeFile, analyzeFragment, headReader, stripLocal } = await import("../symbols/analyze-file.js");
  const { createSymbolExtractor, didNotParse } = await import("../symbols/symbol-extractor.js");
  const { createSymbolCache } = await import("../symbols/symbol-cache.js");
  const { limitsUntil } = await import("../parse/parse-limits.js");
  const languages = [...new Set(files.map((f) => languageOf(f)?.id).filter((l) => l !== undefined))];
  // Loaded only if the cache cannot answer for a file: a repeated edit costs no grammar load.
  let loading: Promise<Awaited<ReturnType<typeof createSymbolExtractor>>> | null = null;
  const extractor = () => (loading ??= createSymbolExtractor({ languages, parseLimits: limitsUntil(ctx.deadlineAt) }));
  const cache = createSymbolCache(path.join(ctx.configDir, CONFIG_LAYOUT.symbols));
  const readHead = headReader(repo.commonDir ?? "", state.head_sha);
  const headHashes = state.head_sha === null ? null : (await import("../symbols/head-hashes.js")).createHeadHashes(path.join(ctx.configDir, CONFIG_LAYOUT.headHashes), state.head_sha);
  const contractCache = files.some((f) => languageOf(f) === null)
    ? (await import("../contracts/contract-cache.js")).createContractCache(path.join(ctx.configDir, CONFIG_LAYOUT.symbols, SYMBOLS_LAYOUT.contracts))
    : null;
  // A Rust file's crates as its manifest names them (a renamed dependency is its crate's, not the name code gives it).
  const { createCrateNames, withCrateNames } = await import("../packages/crate-names.js");
  const crateNames = createCrateNames(repo.root);
  const out: FileEntry[] = [];
  for (const f of files) {
    if (Date.now() >= ctx.deadlineAt) return { analysis: out, truncated: true };
    let a: Awaited<ReturnType<typeof analyzeFile>>;
    if (fragments.has(f)) {
      const fragment = await analyzeFragment(repo.root, f, { readHead });
      if (fragment === null) continue;
      a = fragment;
    } else a = await analyzeFile(repo.root, f, { extractor, readHead, cache, headHashes, contractCache });
    // Out of time in the middle of this file: it is not analysed, as the files after it.
    if (Date.now() >= ctx.deadlineAt && a.diagnostics.some((d) => d.code === "parse_timeout")) return { analysis: out, truncated: true };
    // (its crate's manifest found once for both lists: finding it reads each folder's Cargo.toml up to the crate's)
    const crates = crateNames.ofFile(a.path);
    // A file that does not parse has no reliable symbols: none counts as removed or changed until it parses again.
    if (didNotParse(a)) {
      out.push({
        path: a.path,
        language: a.language,
        changes: [],
        new_references: withCrateNames(a.path, a.new_references, crates),
        references: importsOnly(withCrateNames(a.path, a.references, crates)),
        parse_error: true,
      });
      continue;
    }
    // Which package the file belongs to, and the public names of what changed in it: what other repos import; whether
    // it is the module's default export (what `import x from` names); its call before and after, for people.
    let pkg: FileEntry["package"] = null;
    let changes: NonNullable<FileEntry["changes"]> = a.changes;
    const contract = a.contract;
    if (contract !== undefined) {
      // A contract's changes are filed under its namespace, each breaking one with the names its consumers use.
      pkg = { name: contract.package.name, ecosystem: contract.package.ecosystem, path: "." };
      changes = a.changes.map((ch) => {
        const shape = a.shapes.get(ch.qualified_name);
        return {
          ...ch,
          public_names: ch.compatibility === "breaking" ? [...(contract.publicNames.get(ch.qualified_name) ?? [ch.qualified_name])].sort() : [],
          ...(shape !== undefined && shape.before !== shape.after ? { signature_before: shape.before, signature_after: shape.after } : {}),
        };
      });
    }
    // Code's package and the public names of what changed (a contract's namespace and names are set above).
    if (a.changes.length > 0 && languageOf(a.path) !== null) {
      const { packageExposure } = await import("../packages/public-names.js");
      const { topName } = await import("../coordination/uses-symbol.js");
      const tops = [...new Set(a.changes.map((ch) => topName(ch.qualified_name)))];
      const isDefault = (top: string): boolean => a.default_export !== undefined && topName(a.default_export) === top;
      const exposure = packageExposure(repo.root, a.path, a.default_export === undefined ? tops : [...tops, "default"]);
      pkg = exposure.package;
      changes = a.changes.map((ch) => {
        const top = topName(ch.qualified_name);
        const shape = a.shapes.get(ch.qualified_name);
        const names = [...(exposure.names.get(top) ?? []), ...(isDefault(top) ? (exposure.names.get("default") ?? []) : [])];
        return {
          ...ch,
          ...(pkg === null ? {} : { public_names: ch.exported ? (exposure.names.has(top) ? [...new Set(names)].sort() : null) : [] }),
          ...(isDefault(top) ? { default_export: true } : {}),
          ...(shape !== undefined && shape.before !== shape.after ? { signature_before: shape.before, signature_after: shape.after } : {}),
        };
      });
    }
    // The routes a server's code declares changed: filed under the HTTP API, with the names a client's call gives them.
    if (a.route_changes !== undefined) {
      const { routeCallNames } = await import("../contracts/code-routes.js");
      changes = [
        ...changes,
        ...a.route_changes.map((ch) => ({
          ...ch,
          package: { name: "http", ecosystem: "openapi" },
          public_names: ch.compatibility === "breaking" ? [ch.qualified_name, ...routeCallNames(ch.qualified_name)].slice(0, 64) : [],
        })),
      ];
    }
    out.push({
      path: a.path,
      language: a.language,
      package: pkg,
      symbols: a.symbols.map(stripLocal),
      changes,
      new_references: withCrateNames(a.path, a.new_references, crates),
      references: [...importsOnly(withCrateNames(a.path, a.references, crates)), ...(await scannedReferences(repo, a.path))],
    });
  }
  return { analysis: out, truncated: false };
}
