import type { EntryType, Snapshot, SnapshotEntry } from "./snapshot.js";

const MAGIC = "comity-snapshot 1";
const TYPE_CHAR: Readonly<Record<EntryType, string>> = { file: "f", symlink: "l", dir: "d" };
const CHAR_TYPE: Readonly<Record<string, EntryType>> = { f: "file", l: "symlink", d: "dir" };

/**
 * Encodes a snapshot compactly: one line per entry, each path stored as the
 * length it shares with the previous path plus the rest (like git's index
 * v4), odd names (tabs, newlines, backslashes, a leading quote) as JSON
 * strings. Pure; `decodeSnapshot` inverts it exactly.
 */
export function encodeSnapshot(s: Snapshot): string {
  const out: string[] = [MAGIC, JSON.stringify({ root: s.root, startedMs: s.startedMs, count: s.entries.length })];
  let prev = "";
  for (const e of s.entries) {
    let shared = 0;
    const max = Math.min(prev.length, e.path.length);
    while (shared < max && prev.charCodeAt(shared) === e.path.charCodeAt(shared)) shared++;
    // Never split a surrogate pair between the shared part and the rest.
    if (shared > 0 && shared < e.path.length && isLowSurrogate(e.path.charCodeAt(shared))) shared--;
    const rest = e.path.slice(shared);
    const flags = `${TYPE_CHAR[e.type]}${e.executable ? "x" : "-"}${e.racy ? "r" : "-"}`;
    out.push(
      `${shared}\t${needsQuoting(rest) ? JSON.stringify(rest) : rest}\t${flags}\t${e.size}\t${e.mtimeMs}\t${e.ctimeMs}\t${e.ino}\t${e.hash ?? ""}`,
    );
    prev = e.path;
  }
  return `${out.join("\n")}\n`;
}

/** Decodes what `encodeSnapshot` wrote, or returns null for anything else (a truncated or foreign file). */
export function decodeSnapshot(text: string): Snapshot | null {
  const lines = text.split("\n");
  if (lines[0] !== MAGIC || lines.at(-1) !== "") return null;
  let header: { root?: unknown; startedMs?: unknown; count?: unknown };
  try {
    header = JSON.parse(lines[1] ?? "") as typeof header;
  } catch {
    return null;
  }
  const { root, startedMs, count } = header;
  if (typeof root !== "string" || typeof startedMs !== "number" || typeof count !== "number" || lines.length !== count + 3) return null;
  const entries: SnapshotEntry[] = [];
  let prev = "";
  for (let i = 2; i < lines.length - 1; i++) {
    const f = (lines[i] ?? "").split("\t");
    if (f.length !== 8) return null;
    const [shared, rawRest, flags, size, mtime, ctime, ino, hash] = f as [string, string, string, string, string, string, string, string];
    let rest = rawRest;
    if (rest.startsWith('"')) {
      try {
        rest = JSON.parse(rest) as string;
      } catch {
        return null;
      }
    }
    const type = CHAR_TYPE[flags[0] ?? ""];
    if (type === undefined) return null;
    const p = prev.slice(0, Number(shared)) + rest;
    entries.push({
      path: p,
      type,
      executable: flags[1] === "x",
      size: Number(size),
      mtimeMs: Number(mtime),
      ctimeMs: Number(ctime),
      ino: Number(ino),
      hash: hash === "" ? null : hash,
      racy: flags[2] === "r",
    });
    prev = p;
  }
  return { version: 1, root, startedMs, entries };
}

function needsQuoting(s: string): boolean {
  return s.startsWith('"') || /[\t\n\r\\]/.test(s);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
