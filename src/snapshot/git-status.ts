import { spawn, spawnSync } from "node:child_process";
import { gitProcessEnv } from "../git/git-process-env.js";
import { type GitConfigEnv, syncGitTimeoutMs } from "../git/load-git-config.js";

/** One path `git status --porcelain=v2 -z` lists: a tracked path that differs from the index, or an untracked one. */
export type StatusRecord =
  | {
      readonly kind: "changed";
      readonly path: string;
      /** git's worktree column (`M`, `T`, `D`, `A` for intent-to-add; `.` when only the index differs from HEAD). */
      readonly worktree: string;
      /** The index entry's mode and blob id (mode 0: not in the index). */
      readonly indexMode: number;
      readonly indexOid: string;
      /** HEAD's mode and blob id (mode 0: not in HEAD). */
      readonly headMode: number;
      readonly headOid: string;
    }
  /** A conflict; "ours" (stage 2) is what HEAD has (mode 0: not in HEAD). */
  | { readonly kind: "unmerged"; readonly path: string; readonly headMode: number; readonly headOid: string }
  /** Untracked; a path ending in `/` is a nested repo git did not enter. */
  | { readonly kind: "untracked"; readonly path: string };

export interface ParsedStatus {
  readonly records: readonly StatusRecord[];
  /** Listed paths that are not valid UTF-8: they cannot be opened by name from here. */
  readonly nonUtf8: readonly string[];
}

/**
 * Parses `git status --porcelain=v2 -z` output (ordinary, renamed, unmerged
 * and untracked records; headers and ignored records skipped). Pure; a record
 * it does not understand ends the parse rather than misreading the rest, and
 * is reported through `complete`.
 */
export function parseStatusV2(out: Buffer): ParsedStatus & { readonly complete: boolean } {
  const records: StatusRecord[] = [];
  const nonUtf8: string[] = [];
  let offset = 0;
  const text = (from: number, to: number): string => {
    const s = out.toString("utf8", from, to);
    if (s.includes("\uFFFD") && !Buffer.from(s, "utf8").equals(out.subarray(from, to))) nonUtf8.push(s);
    return s;
  };
  while (offset < out.length) {
    const nul = out.indexOf(0, offset);
    if (nul < 0) return { records, nonUtf8, complete: false };
    const kind = out[offset];
    // Fields are separated by single spaces; the path is everything after the last fixed field.
    const fieldsEnd = (n: number): number => {
      let o = offset;
      for (let k = 0; k < n; k++) {
        o = out.indexOf(0x20, o);
        if (o < 0 || o > nul) return -1;
        o++;
      }
      return o;
    };
    if (kind === 0x31 /* 1 */ || kind === 0x32 /* 2 */) {
      const pathAt = fieldsEnd(kind === 0x31 ? 8 : 9);
      if (pathAt < 0) return { records, nonUtf8, complete: false };
      const head = out.toString("latin1", offset, pathAt).split(" ");
      records.push({
        kind: "changed",
        path: text(pathAt, nul),
        worktree: head[1]?.[1] ?? ".",
        indexMode: parseInt(head[4] ?? "0", 8),
        indexOid: head[7] ?? "",
        headMode: parseInt(head[3] ?? "0", 8),
        headOid: head[6] ?? "",
      });
      offset = nul + 1;
      if (kind === 0x32) {
        // A rename's original path follows as its own NUL-ended field; it is listed again if it matters.
        const orig = out.indexOf(0, offset);
        if (orig < 0) return { records, nonUtf8, complete: false };
        offset = orig + 1;
      }
    } else if (kind === 0x75 /* u */) {
      const pathAt = fieldsEnd(10);
      if (pathAt < 0) return { records, nonUtf8, complete: false };
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      const head = out.toString("latin1", offset, pathAt).split(" ");
      records.push({ kind: "unmerged", path: text(pathAt, nul), headMode: parseInt(head[4] ?? "0", 8), headOid: head[8] ?? "" });
      offset = nul + 1;
    } else if (kind === 0x3f /* ? */) {
      records.push({ kind: "untracked", path: text(offset + 2, nul) });
      offset = nul + 1;
    } else if (kind === 0x21 /* ! */ || kind === 0x23 /* # */) {
      offset = nul + 1;
    } else {
      return { records, nonUtf8, complete: false };
    }
  }
  return { records, nonUtf8, complete: true };
}

/**
 * How `runGitStatus` runs: on the repo's own index (default), or on a
 * private copy of it (`privateIndex`, see `privateStatusIndex`), where git
 * may refresh the copy and keep its untracked cache. git uses that cache
 * only when untracked folders are shown as folders (`-unormal`); `expand`
 * lists folders such a status showed, to list the files under them (on the
 * same copy, without writing it).
 */
export interface GitStatusRun {
  readonly privateIndex?: string;
  readonly expand?: readonly string[];
}

/**
 * Runs `git status` the way a tool running beside a person must: never
 * writing the user's index (no optional locks, so the user's own git never
 * fails on `index.lock`; only a private copy of the index is ever written),
 * every untracked file, no rename detection, submodules left to their own
 * snapshots. Null when git cannot be run or fails.
 */
export function runGitStatus(root: string, where: GitConfigEnv, run: GitStatusRun = {}): Buffer | null {
  const { args, env } = gitStatusCommand(where, run);
  const timeoutMs = syncGitTimeoutMs(where);
  if (where.spawn !== undefined)
    return where.spawn(
      "git",
      ["-C", root, ...args],
      Object.entries(env).map(([k, v]) => `${k}=${v}`),
      timeoutMs,
    );
  const r = spawnSync("git", args, { cwd: root, env, maxBuffer: 1024 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"], timeout: timeoutMs, killSignal: "SIGKILL" });
  return r.status === 0 && r.stdout !== null ? r.stdout : null;
}

/**
 * `runGitStatus` with git running in the background: the caller's own work goes on meanwhile. Bounded like it (by
 * `where`'s deadline): a hung git must not leave the event, or the daemon's analyze, waiting for ever.
 */
export function runGitStatusAsync(root: string, where: GitConfigEnv, run: GitStatusRun = {}): Promise<Buffer | null> {
  const { args, env } = gitStatusCommand(where, run);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("git", args, { cwd: root, env, stdio: ["ignore", "pipe", "ignore"], timeout: syncGitTimeoutMs(where), killSignal: "SIGKILL" });
    } catch {
      resolve(null);
      return;
    }
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code === 0 ? Buffer.concat(chunks) : null));
  });
}

/**
 * The tracked paths that carry one of these attributes (`:(attr:filter=lfs)` pathspecs), with their index mode
 * and blob id, from `git ls-files -s`: git evaluates the attributes (every file that sets them, macros included).
 * Stage 0 only. Null when git cannot be run or fails.
 */
export function listAttributed(root: string, where: GitConfigEnv, pathspecs: readonly string[]): Array<{ path: string; mode: number; oid: string }> | null {
  const env = gitProcessEnv(where);
  const r = spawnSync("git", ["--no-optional-locks", "-c", "core.quotePath=false", "ls-files", "-s", "-z", "--", ...pathspecs], {
    cwd: root,
    env,
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
    timeout: syncGitTimeoutMs(where),
    killSignal: "SIGKILL",
  });
  if (r.status !== 0 || r.stdout === null) return null;
  const out: Array<{ path: string; mode: number; oid: string }> = [];
  for (const rec of r.stdout.toString("utf8").split("\0")) {
    const m = /^([0-7]+) ([0-9a-f]{40,64}) (\d)\t(.+)$/s.exec(rec);
    if (m !== null && m[3] === "0") out.push({ path: m[4] as string, mode: parseInt(m[1] as string, 8), oid: m[2] as string });
  }
  return out;
}

function gitStatusCommand(where: GitConfigEnv, run: GitStatusRun): { args: string[]; env: Record<string, string> } {
  const writesCopy = run.privateIndex !== undefined && run.expand === undefined;
  const env = gitProcessEnv(where, { writesIndex: writesCopy });
  if (run.privateIndex !== undefined) env["GIT_INDEX_FILE"] = run.privateIndex;
  const args = [
    ...(writesCopy ? ["-c", "core.untrackedCache=true"] : ["--no-optional-locks"]),
    ...(run.expand === undefined ? [] : ["--literal-pathspecs"]),
    "-c",
    "core.quotePath=false",
    "status",
    "--porcelain=v2",
    "-z",
    writesCopy ? "--untracked-files=normal" : "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=all",
    ...(run.expand === undefined ? [] : ["--", ...run.expand]),
  ];
  return { args, env };
}
