/**
 * Worker thread of the parallel walk: walks the folders it is sent, whole,
 * and posts back their entries in typed arrays (transferred, not copied).
 */
import { parentPort, workerData } from "node:worker_threads";
import { nodeWorktreeFs } from "./content-hasher.js";
import { ignoreLevel, type IgnoreLevel } from "./ignore-rules.js";
import { encodeWalkResult, type WalkWorkerData, type WorkerMessage } from "./walk-wire.js";
import { walkTask, type WalkInput } from "./walk-worktree.js";

const data = workerData as WalkWorkerData;
let trackedText = "";
let gitlinks: ReadonlySet<string> = new Set();
let tracked: Set<string> | null = null;
let trackedDirs: Set<string> | null = null;
const input = (): WalkInput => ({
  fs: nodeWorktreeFs,
  root: data.root,
  baseLevels: [],
  ignoreCase: data.ignoreCase,
  tracked: () => (tracked ??= new Set(trackedText === "" ? [] : trackedText.split("\0"))),
  trackedDirs: () => (trackedDirs ??= ancestorsOf(input().tracked() as Set<string>)),
  gitlinks,
});
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
  if (message.kind === "index") {
    trackedText = message.trackedPaths;
    gitlinks = new Set(message.gitlinks);
    return;
  }
  const walkInput = input();
  const results = message.tasks.map((task) =>
    walkTask(walkInput, { abs: task.abs, rel: task.rel, insideIgnored: task.insideIgnored, levels: task.levels.map((l) => level(l.base, l.text)) }, Infinity),
  );
  const wire = encodeWalkResult({
    entries: results.flatMap((r) => r.entries),
    sawAttributes: results.some((r) => r.sawAttributes),
    diagnostics: results.flatMap((r) => r.diagnostics),
    nested: results.flatMap((r) => r.nested),
  });
  parentPort?.postMessage(wire, [wire.flags.buffer as ArrayBuffer, wire.stats.buffer as ArrayBuffer]);
});

function ancestorsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}
