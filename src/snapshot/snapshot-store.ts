import { createHash, randomBytes } from "node:crypto";
import * as nodeFs from "node:fs";
import * as path from "node:path";
import { compareStrings } from "../errors/diagnostic.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { indexChecksum, readIndexTrailer } from "../git/index-facts.js";
import { decodeSnapshot, encodeSnapshot } from "./snapshot-codec.js";
import type { Snapshot } from "./snapshot.js";
import { KEEP } from "../config/config-layout.js";

/** Which shell call a snapshot belongs to: parallel calls and concurrent sessions never share one. */
export interface SnapshotKey {
  readonly sessionId: string;
  readonly toolUseId: string;
  /** Absolute root of the repo (a command in a folder of repos snapshots each). */
  readonly repoRoot: string;
}

export interface SnapshotStoreOptions {
  /** The folder snapshots live in, e.g. `<config dir>/snapshots`. */
  readonly dir: string;
  /** Milliseconds since the epoch; `Date.now` by default. */
  readonly clock?: () => number;
  /** Snapshots older than this are removed. Default one hour. */
  readonly maxAgeMs?: number;
  /** The store never grows past this; the oldest go first. Default 256 MiB. */
  readonly maxBytes?: number;
}

/** Snapshots on disk between the two hook processes of one shell command. */
export interface SnapshotStore {
  /** Saves atomically (write, then rename); expires and caps the store first. */
  save(key: SnapshotKey, snapshot: Snapshot): void;
  /** Reads and removes a saved snapshot; null when missing, expired or unreadable. */
  take(key: SnapshotKey): Snapshot | null;
  /** The latest snapshot of a repo, kept as a stat cache for its next snapshot; not removed by reading. */
  latest(repoRoot: string): Snapshot | null;
  saveLatest(snapshot: Snapshot): void;
  /**
   * When an agent's command last changed the repo's working tree, as its hooks' snapshots saw it (the newest change
   * among them, ms since the epoch), or null. Only hooks note it: `comity analyze`'s own snapshots never change how it
   * ranks repos, so two runs with nothing changed between them rank alike.
   */
  agentActivity(repoRoot: string): number | null;
  noteAgentActivity(repoRoot: string, atMs: number): void;
  /** Removes expired files and enforces the size cap; returns how many files were removed. */
  prune(): number;
}

/**
 * A snapshot store in a folder. Each snapshot is one file named by a hash of
 * its key; a crash between save and take loses that one snapshot and nothing
 * else, because every write goes to a temp file that is renamed into place.
 */
export function createSnapshotStore(options: SnapshotStoreOptions): SnapshotStore {
  const { dir } = options;
  const clock = options.clock ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? KEEP.snapshotAgeMs;
  const maxBytes = options.maxBytes ?? KEEP.snapshotBytes;
  const fileOf = (name: string): string => path.join(dir, `${name}.snap`);
  const keyName = (k: SnapshotKey): string => `s-${digest(`${k.sessionId}\0${k.toolUseId}\0${k.repoRoot}`)}`;
  const latestName = (root: string): string => `latest-${digest(root)}`;
  const activityFile = (root: string): string => path.join(dir, `activity-${digest(root)}`);

  const tmpOf = (target: string): string => `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const write = (name: string, snapshot: Snapshot): void => {
    nodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = fileOf(name);
    let stored = snapshot;
    const base = snapshot.base;
    if (base !== undefined && base.index.length > 0) {
      // The index beside the snapshot: a hard link to the file git wrote (git replaces its index by renaming a
      // new file over it, so the linked bytes never change), else a copy. The snapshot file then omits them.
      const side = `${target}.idx`;
      const tmp = tmpOf(side);
      let linked = false;
      try {
        if (base.file !== undefined) {
          nodeFs.linkSync(base.file, tmp);
          linked = checksumOfFile(tmp) === base.checksum;
        }
      } catch {
        // another file system, or the index is gone: copy
      }
      if (!linked) {
        // A link that failed its check (or threw after it was made) goes first: writing into it would write into git's index.
        nodeFs.rmSync(tmp, { force: true });
        nodeFs.writeFileSync(tmp, base.index, { mode: 0o600 });
      }
      nodeFs.renameSync(tmp, side);
      stored = { ...snapshot, base: { checksum: base.checksum, index: new Uint8Array(0), indexed: base.indexed, missing: base.missing } };
    }
    const tmp = tmpOf(target);
    nodeFs.writeFileSync(tmp, encodeSnapshot(stored), { mode: 0o600 });
    nodeFs.renameSync(tmp, target);
  };
  const read = (name: string): Snapshot | null => {
    const file = fileOf(name);
    let data: Buffer;
    try {
      if (clock() - nodeFs.statSync(file).mtimeMs > maxAgeMs) {
        nodeFs.rmSync(file, { force: true });
        nodeFs.rmSync(`${file}.idx`, { force: true });
        return null;
      }
      data = nodeFs.readFileSync(file);
    } catch {
      return null;
    }
    const s = decodeSnapshot(data);
    if (s?.base === undefined || s.base.checksum === "") return s;
    // Without the index it was relative to, a snapshot cannot be compared once the index changes: it is lost.
    try {
      const index = nodeFs.readFileSync(`${file}.idx`);
      if (indexChecksum(index) !== s.base.checksum) return null;
      return { ...s, base: { ...s.base, index } };
    } catch {
      return null;
    }
  };

  const prune = (): number => {
    let names: string[];
    try {
      names = nodeFs.readdirSync(dir);
    } catch {
      return 0;
    }
    const now = clock();
    const files: Array<{ file: string; mtimeMs: number; size: number }> = [];
    let removed = 0;
    for (const name of names) {
      const file = path.join(dir, name);
      let st: nodeFs.Stats;
      try {
        st = nodeFs.statSync(file);
      } catch {
        continue;
      }
      // Expired snapshots, and temp files a crashed writer left behind. A linked index keeps git's mtime;
      // linking it changed its ctime.
      const idx = name.endsWith(".idx");
      const age = now - (idx ? Math.max(st.mtimeMs, st.ctimeMs) : st.mtimeMs);
      if (age > maxAgeMs || (name.endsWith(".tmp") && age > 60_000)) {
        nodeFs.rmSync(file, { force: true });
        removed++;
      } else if (name.endsWith(".snap") || idx) {
        // A link to an index git still uses takes no room of its own.
        files.push({ file, mtimeMs: now - age, size: idx && st.nlink > 1 ? 0 : st.size });
      }
    }
    let total = files.reduce((n, f) => n + f.size, 0);
    files.sort((a, b) => a.mtimeMs - b.mtimeMs || compareStrings(a.file, b.file));
    for (const f of files) {
      if (total <= maxBytes) break;
      nodeFs.rmSync(f.file, { force: true });
      total -= f.size;
      removed++;
    }
    return removed;
  };

  return {
    save: (key, snapshot) => {
      prune();
      write(keyName(key), snapshot);
    },
    take: (key) => {
      const s = read(keyName(key));
      nodeFs.rmSync(fileOf(keyName(key)), { force: true });
      nodeFs.rmSync(`${fileOf(keyName(key))}.idx`, { force: true });
      return s;
    },
    latest: (root) => read(latestName(root)),
    // Only a stat cache: an index base (and its copy of the index) is never needed from it.
    saveLatest: (snapshot) => write(latestName(snapshot.root), { version: 1, root: snapshot.root, startedMs: snapshot.startedMs, entries: snapshot.entries }),
    agentActivity: (root) => {
      try {
        const file = activityFile(root);
        // Expired with the snapshots (prune removes it by the same age).
        if (clock() - nodeFs.statSync(file).mtimeMs > maxAgeMs) return null;
        const ms = Number(nodeFs.readFileSync(file, "utf8"));
        return Number.isFinite(ms) && ms > 0 ? ms : null;
      } catch {
        return null;
      }
    },
    noteAgentActivity: (root, atMs) => {
      if (Number.isFinite(atMs) && atMs > 0) writeFileAtomic(activityFile(root), String(Math.round(atMs)), { mode: 0o600 });
    },
    prune,
  };
}

/** `indexChecksum` of an index file, reading only its trailer unless that is zeros (`index.skipHash`). */
function checksumOfFile(file: string): string {
  const trailer = readIndexTrailer(file);
  return /[^0]/.test(trailer) ? trailer : indexChecksum(nodeFs.readFileSync(file));
}

function digest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 40);
}
