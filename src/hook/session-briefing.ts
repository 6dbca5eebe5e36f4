import * as path from "node:path";
import { mapLimit } from "../async/map-limit.js";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import type { Repo } from "../workspace/repo.js";
import { statusIndexOf } from "./build-request.js";
import { OTHER_TIMEOUT_MS, type Coordinator } from "./coordinator.js";
import type { Ctx, RepoRequest } from "./hook-context.js";
import { logFailOpen } from "./hook-log.js";

/** How a repo is named in a briefing: its path relative to the session's folder (two `lib` folders stay two), else its folder's name. */
function repoName(ctx: Ctx, repo: Repo): string {
  const rel = path.relative(ctx.cwd, repo.root).split(path.sep).join("/");
  return rel === "" || rel.startsWith("..") ? path.basename(repo.root) : rel;
}

/** The coordinator's session-start text per repo root; throws when every repo's request failed. */
export async function evaluateBriefings(ctx: Ctx, requests: readonly RepoRequest[], coordinator: Coordinator): Promise<Map<string, string>> {
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
export async function mergeSessionBriefings(ctx: Ctx, repos: readonly Repo[], remote: ReadonlyMap<string, string>, local: ReadonlyMap<string, string>): Promise<string | null> {
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
export async function localBriefings(ctx: Ctx, repos: readonly Repo[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (repos.length === 0) return out;
  const { analyzeWorkspace } = await import("../analyze/analyze-workspace.js");
  const { buildLocalBriefing } = await import("../briefing/build-local-briefing.js");
  // A few repos at once: each analysis asks git for its status in a process of its own.
  await mapLimit(repos, 4, async (repo) => {
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
        // The git status its request took (`statusViewOf`), on the same private index copy.
        statusIndex: statusIndexOf(ctx),
        statusOf: (root) => ctx.statusViews.get(root) ?? null,
      });
      const r = report.repos.find((x) => x.root === ".");
      if (r?.analysed === true) out.set(repo.root, buildLocalBriefing(r));
    } catch {
      // one repo's problem is not the session's: the others are still briefed
    }
  });
  return out;
}
