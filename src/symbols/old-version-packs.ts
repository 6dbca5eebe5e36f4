import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { EXTRACTOR_VERSION } from "./extractor-version.js";
import { KEEP, SYMBOLS_LAYOUT } from "../config/config-layout.js";

/**
 * The symbols of old versions of files (`comity analyze`'s "before" side),
 * by blob id, kept in a few pack files instead of one file each: a cold
 * analyze of 2,000 changed files stored 2,000 of them, and creating a file
 * costs this machine's disk 0.3-0.6 ms, most of the symbols phase
 * (`--cpu-prof`: `open`). A run appends nothing to an existing pack: it
 * writes one new pack of what it extracted (atomically), and the oldest packs
 * beyond {@link KEEP_PACKS} (or {@link KEEP_BYTES}) go. Only analyze asks for old versions, so only
 * analyze reads the packs; a pack of another extractor version is not read.
 *
 * A pack is JSON lines: `[key, language, entry text]`, the entry text being
 * what {@link entryText} makes (the same as a cache entry file holds).
 */
export interface OldVersionPacks {
  /** The entry text stored under this key and language, or null. */
  get(key: string, language: string): string | null;
  /** Adds an entry to this run's pack. */
  add(key: string, language: string, text: string): void;
  /** Writes this run's pack, if anything was added, and drops the oldest packs beyond the limit. Never throws. */
  save(): void;
}

/** Packs kept, newest first: each holds one run's old versions. */
export const KEEP_PACKS = KEEP.oldVersionPacks;
/** At most this many bytes of packs are kept (a run that reads them reads them all). */
export const KEEP_BYTES = KEEP.oldVersionBytes;

/** The packs in `<symbol cache>/old-versions`; read when first asked. A pack is named by `now()` when it is saved. */
export function openOldVersionPacks(cacheDir: string, now: () => number = Date.now): OldVersionPacks {
  const dir = path.join(cacheDir, SYMBOLS_LAYOUT.oldVersions);
  const prefix = `v${EXTRACTOR_VERSION}-`;
  let known: Map<string, string> | null = null;
  const added: string[] = [];
  const keyOf = (key: string, language: string): string => `${language}\0${key}`;
  const packs = (): string[] => {
    try {
      // Named by the time they were written: oldest first.
      return fs
        .readdirSync(dir)
        .filter((n) => n.endsWith(".jsonl"))
        .sort();
    } catch {
      return [];
    }
  };
  const load = (): Map<string, string> => {
    const map = new Map<string, string>();
    for (const name of packs()) {
      if (!name.startsWith(prefix)) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(dir, name), "utf8");
      } catch {
        continue;
      }
      // Each line is indexed by its key and language, read from its start (`["g<blob id>","<language>",`: neither
      // needs escaping); only a line asked for is parsed.
      for (const line of text.split("\n")) {
        const keyEnd = line.indexOf('","', 2);
        const languageEnd = keyEnd < 0 ? -1 : line.indexOf('",', keyEnd + 3);
        if (!line.startsWith('["') || languageEnd < 0) continue;
        map.set(keyOf(line.slice(2, keyEnd), line.slice(keyEnd + 3, languageEnd)), line);
      }
    }
    return map;
  };
  return {
    get(key, language) {
      known ??= load();
      const line = known.get(keyOf(key, language));
      if (line === undefined) return null;
      try {
        const [k, l, entry] = JSON.parse(line) as [unknown, unknown, unknown];
        return k === key && l === language && typeof entry === "string" ? entry : null;
      } catch {
        // a damaged line is a miss
        return null;
      }
    },
    add(key, language, text) {
      const line = JSON.stringify([key, language, text]);
      added.push(line);
      known?.set(keyOf(key, language), line);
    },
    save() {
      if (added.length === 0) return;
      try {
        const name = `${prefix}${String(now()).padStart(15, "0")}-${process.pid}.jsonl`;
        writeFileAtomic(path.join(dir, name), `${added.join("\n")}\n`);
        added.length = 0;
        // Another extractor version's packs are never read again; of this one's, the newest are kept, up to
        // KEEP_PACKS of them and KEEP_BYTES in all (the newest always).
        const all = packs();
        const own = all.filter((n) => n.startsWith(prefix)).reverse();
        let bytes = 0;
        const drop = all.filter((n) => !n.startsWith(prefix));
        own.forEach((n, i) => {
          bytes += fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.size ?? 0;
          if (i > 0 && (i >= KEEP_PACKS || bytes > KEEP_BYTES)) drop.push(n);
        });
        for (const old of drop) fs.rmSync(path.join(dir, old), { force: true });
      } catch {
        // A cache that cannot be written is only slower.
      }
    },
  };
}
