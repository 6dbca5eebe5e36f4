import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../errors/diagnostic.js";
import { nodeSyncFs } from "../fs/sync-fs.js";
import { indexChecksum, indexTrailer, readIndexTrailer, scanIndexFacts, type IndexFacts } from "../git/index-facts.js";
import { gitConfigFiles, loadGitConfig, type GitConfigEnv } from "../git/load-git-config.js";
import { configBool, configValue } from "../git/parse-git-config.js";
import type { Repo } from "../workspace/repo.js";
import type { WorktreeFs } from "./content-hasher.js";
import { parseStatusV2, runGitStatus, runGitStatusAsync, type ParsedStatus, type StatusRecord } from "./git-status.js";
import { attributesDistrust, distrustedAttributes, type DistrustedAttributes } from "../git/attributes-distrust.js";
import { privateStatusIndex, rememberedIndexFacts, rememberIndexFacts, STATUS_INDEX_MIN_ENTRIES, type StatusIndexOptions } from "./status-index.js";

/** One `git status` of a work tree, with the index it was relative to. */
export interface GitStatusView {
  readonly facts: IndexFacts;
  /** The index file's bytes as git read them (empty for a repo without an index, or when not asked for). */
  readonly index: Uint8Array;
  readonly indexFile: string;
  readonly records: readonly StatusRecord[];
  /** Listed paths that are not valid UTF-8. */
  readonly nonUtf8: readonly string[];
  /**
   * Attributes (a clean/smudge filter, a working-tree encoding, `ident`) under which git status is git's view of
   * content but may not show what a command wrote: a snapshot looks at the paths carrying them itself. Null when
   * there are none.
   */
  readonly distrusted: DistrustedAttributes | null;
}

/**
 * Runs `git status` for a work tree where its view is complete, or says why
 * the caller must walk instead (`{ walk: reason }`): `core.fileMode`, `core.symlinks` or
 * `core.trustCtime` off, `core.checkStat=minimal`, `core.ignoreStat`, a clean/smudge filter, a
 * working-tree encoding or `ident` in an untracked `.gitattributes` (in a tracked one,
 * `info/attributes` or `core.attributesFile`, the view says which attributes git's view may
 * hide a write under: `distrusted`, see `distrustedAttributes`), assume-unchanged or
 * skip-worktree entries, a split or sparse index, SHA-256 objects, no git to
 * run, output it cannot read, or an index rewritten while git ran. Text and
 * line-ending attributes and `core.autocrlf` do not make it walk: git's view
 * is then the one that matters.
 */
export function readGitStatusView(
  repo: Repo,
  fs: WorktreeFs,
  configEnv: GitConfigEnv,
  statusIndex: StatusIndexOptions | null = null,
  options: ViewOptions = {},
): GitStatusView | { readonly walk: string } {
  const plan = planStatus(repo, fs, configEnv, statusIndex, options.withIndex ?? true);
  if ("walk" in plan) return plan;
  const listed =
    plan.privateIndex === null ? plainStatus(repo.root, configEnv) : expandCached(repo.root, configEnv, plan.privateIndex, runGitStatus(repo.root, configEnv, { privateIndex: plan.privateIndex }));
  return finishView(plan, listed);
}

/**
 * `readGitStatusView` with git running in the background, so that the
 * caller's own work (a discovery walk) goes on meanwhile on another core.
 */
export async function readGitStatusViewAsync(
  repo: Repo,
  fs: WorktreeFs,
  configEnv: GitConfigEnv,
  statusIndex: StatusIndexOptions | null = null,
  options: ViewOptions = {},
): Promise<GitStatusView | { readonly walk: string }> {
  const plan = planStatus(repo, fs, configEnv, statusIndex, options.withIndex ?? true);
  if ("walk" in plan) return plan;
  const out = await runGitStatusAsync(repo.root, configEnv, plan.privateIndex === null ? {} : { privateIndex: plan.privateIndex });
  const listed = plan.privateIndex === null ? (out === null ? null : parseStatusV2(out)) : expandCached(repo.root, configEnv, plan.privateIndex, out);
  return finishView(plan, listed);
}

export interface ViewOptions {
  /**
   * Whether the view must hold the index's bytes (default true: a snapshot
   * keeps them). Without them (a worktree hash), a large repo's index facts
   * come from the last scan of the same index file, and `index` is empty.
   */
  readonly withIndex?: boolean;
}

/** What is known before git runs: the index as read, its facts, its stamp, and the private copy to run on. */
interface StatusPlan {
  readonly root: string;
  readonly fs: WorktreeFs;
  readonly stamp: () => string;
  readonly before: string;
  readonly index: Uint8Array;
  readonly indexFile: string;
  readonly facts: IndexFacts;
  readonly privateIndex: string | null;
  readonly distrusted: DistrustedAttributes | null;
}

function planStatus(repo: Repo, fs: WorktreeFs, configEnv: GitConfigEnv, statusIndex: StatusIndexOptions | null, withIndex: boolean): StatusPlan | { readonly walk: string } {
  if (repo.gitDir === null || repo.commonDir === null) return { walk: "no git folder" };
  const config = loadGitConfig(nodeSyncFs, configEnv, gitConfigFiles(configEnv, repo.commonDir, repo.gitDir), { gitDir: repo.gitDir }).entries;
  // git would not look at a mode, a symlink, a ctime, or (ignoreStat) at any file it thinks unchanged.
  for (const key of ["fileMode", "symlinks", "trustCtime"]) if (configBool(config, "core", key.toLowerCase()) === false) return { walk: `core.${key} is off` };
  if (configValue(config, "core", "checkstat")?.toLowerCase() === "minimal") return { walk: "core.checkStat is minimal" };
  if (configBool(config, "core", "ignorestat") === true) return { walk: "core.ignoreStat is on" };
  if ((configValue(config, "extensions", "objectformat") ?? "sha1").toLowerCase() !== "sha1") return { walk: "SHA-256 objects" };
  const outside = [
    ...(repo.commonDir === null ? [] : [{ name: "info/attributes", file: path.join(repo.commonDir, "info", "attributes") }]),
    ...(() => {
      const f = configValue(config, "core", "attributesfile");
      return f === undefined ? [] : [{ name: "core.attributesFile", file: f.startsWith("~/") ? path.join(configEnv.homeDir, f.slice(2)) : path.resolve(repo.root, f) }];
    })(),
  ];

  const indexFile = path.join(repo.gitDir, "index");
  const stamp = (): string => {
    try {
      const st = fs.lstatSync(indexFile);
      return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch {
      return "none";
    }
  };
  const before = stamp();
  let index: Uint8Array = new Uint8Array(0);
  let facts: IndexFacts | null;
  // A large repo's index facts are remembered by the index file's stamp and trailer: without the bytes (a
  // worktree hash needs none), git status runs on the private copy without reading the index here at all.
  const trailer = before === "none" || statusIndex === null || withIndex ? "" : readIndexTrailer(indexFile);
  const remembered = statusIndex === null || trailer === "" ? null : rememberedIndexFacts<IndexFacts>(statusIndex, repo.gitDir, before, trailer);
  if (before === "none") {
    facts = { version: 2, checksum: "", files: 0, gitlinks: [], distrust: null, attributes: [] };
  } else if (remembered !== null && Array.isArray(remembered.attributes)) {
    facts = remembered;
  } else {
    try {
      index = fs.readFileSync(indexFile);
    } catch {
      return { walk: "the index cannot be read" };
    }
    facts = scanIndexFacts(index);
  }
  if (facts === null) return { walk: "the index is not understood" };
  if (facts.distrust !== null) return { walk: facts.distrust };
  // Attributes as git reads them: the work tree's .gitattributes files (tracked ones here; an untracked one once
  // status lists it), info/attributes and core.attributesFile.
  const attributeFiles = [...outside.map((o) => ({ name: o.name, text: readText(fs, o.file) })), ...facts.attributes.map((a) => ({ name: a, text: readText(fs, path.join(repo.root, a)) }))].filter(
    (f): f is { name: string; text: string } => f.text !== null,
  );
  const distrusted = distrustedAttributes(attributeFiles);
  if (distrusted === "walk") return { walk: attributesDistrust(attributeFiles) ?? "attributes" };
  const large = statusIndex !== null && facts.files >= (statusIndex.minEntries ?? STATUS_INDEX_MIN_ENTRIES);
  // Remembered for the next view without bytes: the trailer read above, else that of the bytes in hand.
  const identity = trailer !== "" ? trailer : indexTrailer(index);
  if (large && remembered === null && identity !== "") rememberIndexFacts(statusIndex, repo.gitDir, before, identity, facts);
  // Without the bytes in hand, a copy is made from the file read now, only if it is still the remembered index.
  const checksum = facts.checksum;
  const readNow = (): Uint8Array => {
    const now = fs.readFileSync(indexFile);
    if (indexChecksum(now) !== checksum) throw new Error("the index changed");
    return now;
  };
  const privateIndex = large ? privateStatusIndex(statusIndex, repo.gitDir, remembered === null ? index : readNow, checksum) : null;
  return { root: repo.root, fs, stamp, before, index, indexFile, facts, privateIndex, distrusted };
}

function finishView(plan: StatusPlan, status: Listed | null): GitStatusView | { readonly walk: string } {
  if (status === null) return { walk: "git status could not be run" };
  // The user's own git may have rewritten the index meanwhile: then what git listed is not relative to these bytes.
  if (plan.stamp() !== plan.before) return { walk: "the index changed while git status ran" };
  if (!status.complete) return { walk: "git status printed what this version does not read" };
  const untrackedAttributes = status.records.filter((r) => r.kind === "untracked" && (r.path === ".gitattributes" || r.path.endsWith("/.gitattributes"))).map((r) => r.path);
  const distrust = attributesDistrust(untrackedAttributes.map((a) => ({ name: `${a} (untracked)`, text: readText(plan.fs, path.join(plan.root, a)) ?? "" })));
  if (distrust !== null) return { walk: distrust };
  return { facts: plan.facts, index: plan.index, indexFile: plan.indexFile, records: status.records, nonUtf8: status.nonUtf8, distrusted: plan.distrusted };
}

type Listed = ParsedStatus & { readonly complete: boolean };

function plainStatus(root: string, configEnv: GitConfigEnv): Listed | null {
  const out = runGitStatus(root, configEnv);
  return out === null ? null : parseStatusV2(out);
}

/** At most this many bytes of folder names are given to one `git status` to expand (the command line has a limit). */
const MAX_EXPAND_BYTES = 64 * 1024;

/**
 * The output of git status on a private copy of the index with its
 * untracked cache, which shows a wholly untracked folder as `dir/`: a second
 * status, limited to those folders, lists the files under them (ignore rules
 * applied, a nested repo still shown as `dir/`). Where that cannot be done,
 * one plain status.
 */
function expandCached(root: string, configEnv: GitConfigEnv, privateIndex: string, out: Buffer | null): Listed | null {
  if (out === null) return plainStatus(root, configEnv);
  const first = parseStatusV2(out);
  const folders = first.complete ? first.records.filter((r) => r.kind === "untracked" && r.path.endsWith("/")).map((r) => r.path) : [];
  if (folders.length === 0) return first;
  if (folders.reduce((n, f) => n + Buffer.byteLength(f) + 1, 0) > MAX_EXPAND_BYTES) return plainStatus(root, configEnv);
  const more = runGitStatus(root, configEnv, { privateIndex, expand: folders });
  if (more === null) return plainStatus(root, configEnv);
  const inside = parseStatusV2(more);
  const shown = new Set(folders);
  return {
    records: [...first.records.filter((r) => !shown.has(r.path)), ...inside.records.filter((r) => r.kind === "untracked")],
    nonUtf8: [...new Set([...first.nonUtf8, ...inside.nonUtf8])],
    complete: inside.complete,
  };
}

function readText(fs: WorktreeFs, file: string): string | null {
  try {
    return fs.readFileSync(file).toString("utf8");
  } catch {
    return null;
  }
}

/** Why a snapshot or worktree hash walked the tree (slower on a large one) instead of asking git status. */
export function walkedDiagnostic(reason: string): Diagnostic {
  return diagnostic("snapshot_walked", "info", null, `walked the work tree instead of asking git status: ${reason}`);
}
