/**
 * Worker thread of the parallel walk: walks the folders it is sent, whole,
 * and posts back their entries in typed arrays (transferred, not copied).
 */
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { parseGitIndex } from "../git/read-git-index.js";
import { nodeWorktreeFs } from "./content-hasher.js";
import { ignoreLevel, type IgnoreLevel } from "./ignore-rules.js";
import { ancestorsOf } from "./ancestors-of.js";
import { encodeWalkResult, type WalkWorkerData, type WorkerMessage } from "./walk-wire.js";
import { walkTask, type WalkInput } from "./walk-worktree.js";

const data = workerData as WalkWorkerData;
const tracked = new Set<string>();
const gitlinks = new Set<string>();
try {
  const index = data.indexFile === null ? null : parseGitIndex(readFileSync(data.indexFile));
  for (const e of index?.entries ?? []) (e.mode === 0o160000 ? gitlinks : tracked).add(e.path);
} catch {
  // No index (a new repo): nothing is tracked. The main thread reports an unreadable one.
}
let trackedDirs: Set<string> | null = null;
const input: WalkInput = {
  fs: nodeWorktreeFs,
  root: data.root,
  baseLevels: [],
  ignoreCase: data.ignoreCase,
  tracked: () => tracked,
  trackedDirs: () => (trackedDirs ??= ancestorsOf(tracked)),
  gitlinks,
};
// Levels repeat across tasks (the root's .gitignore is in all of them): parse each once.
const levelCache = new Map<string, IgnoreLevel>();
const level = (base: string, text: string): IgnoreLevel => {
  const key = `${base}\0${text}`;
  let l = levelCache.get(key);
  if (l === undefined) {
    l = ignoreLevel(base, text, data.ignoreCase);
    levelCache.set(key, l);
  }
  return l;
};

parentPort?.on("message", (message: WorkerMessage) => {
  const results = message.tasks.map((task) => walkTask(input, { abs: task.abs, rel: task.rel, insideIgnored: task.insideIgnored, levels: task.levels.map((l) => level(l.base, l.text)) }, Infinity));
  const wire = encodeWalkResult({
    entries: results.flatMap((r) => r.entries),
    sawAttributes: results.some((r) => r.sawAttributes),
    diagnostics: results.flatMap((r) => r.diagnostics),
    nested: results.flatMap((r) => r.nested),
  });
  parentPort?.postMessage(wire, [wire.flags.buffer as ArrayBuffer, wire.stats.buffer as ArrayBuffer]);
});
