import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_LAYOUT } from "../config/config-layout.js";
import { errorCode, removeIfThere } from "../fs/sync-fs.js";
import type { EvaluateRequest } from "../coordination/wire.js";

/**
 * Events a one-shot hook process had not yet applied to the embedded store, one file each, written before it waits
 * for the store and removed once the event is applied. A hook that ran out of time (its watchdog, or the store held
 * by others past its budget: many hooks at once on few cores) leaves its file behind, and the next hook applies it:
 * the agent was not told in time, but what it did is recorded, not lost. Applying one twice changes nothing (its
 * dedupe key answers the second time).
 */

/** How long a left event is kept for another hook to apply: past it, what it says is too old to matter, and it goes. */
export const PENDING_MAX_AGE_MS = 60_000;
/** How old a left event must be before another hook applies it: one younger is most likely being applied now. */
export const PENDING_MIN_AGE_MS = 1_000;
/** At most this many left events are applied by one hook event (many left means many hooks short of time). */
export const PENDING_PER_EVENT = 4;
/** A left event's file is at most this large (a hook's request is far smaller): a larger one is not read, but removed. */
export const PENDING_MAX_BYTES = 8 * 1024 * 1024;

export interface PendingEvent {
  readonly file: string;
  /** When the event happened (what it is applied at). */
  readonly at: number;
  readonly request: EvaluateRequest;
}

let written = 0;

/** Writes an event about to be applied; its file, or null where it cannot be written (the event is applied all the same). */
export function writePending(configDir: string, request: EvaluateRequest, at: number): string | null {
  const dir = path.join(configDir, CONFIG_LAYOUT.pendingEvents);
  // (named by time first: read back in the order they happened)
  const file = path.join(dir, `${String(at).padStart(15, "0")}-${process.pid}-${written++}.json`);
  const text = JSON.stringify({ at, request });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, text, { flag: "wx", mode: 0o600 });
      return file;
    } catch (error) {
      if (errorCode(error) !== "ENOENT" || attempt > 0) return null;
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Whether a process other than this one runs with that pid (a hook that ended, or was ended, does not). */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // (gone; or EPERM: another user's process took the pid since)
    return false;
  }
}

/** Gives a taken event back (its file as it was written), for the next hook. */
export function putBack(taken: string): void {
  try {
    fs.renameSync(taken, taken.replace(/\.\d+\.taken$/, ""));
  } catch {
    // gone: the event is lost, as it would have been without this file
  }
}

/** Removes an applied (or dropped) event's file; one already gone is fine. */
export function removePending(file: string): void {
  try {
    removeIfThere(file);
  } catch {
    // (one that cannot be removed goes at its age: removing it is never worth failing the hook)
  }
}

/**
 * The events left by hooks that ran out of time, oldest first, at most {@link PENDING_PER_EVENT}, each taken by this
 * process alone (renamed: hooks at once never apply one twice, nor all of them the same few), also those taken by a
 * hook that then ended before it applied them. Files past {@link PENDING_MAX_AGE_MS} (an event too old to matter) and
 * files that do not read as one are removed on the way.
 */
export function takePending(configDir: string, now: number): PendingEvent[] {
  const dir = path.join(configDir, CONFIG_LAYOUT.pendingEvents);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: PendingEvent[] = [];
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    const at = Number.parseInt(name, 10);
    if (!Number.isFinite(at) || now - at > PENDING_MAX_AGE_MS) {
      removePending(file);
      continue;
    }
    if (out.length >= PENDING_PER_EVENT) continue;
    // One another hook took and did not finish: its taker ran out of time in turn (its watchdog ended it). Taken
    // again once that taker is gone, or it would sit there until it is too old, lost.
    const takenBy = /^(.*\.json)\.(\d+)\.taken$/.exec(name);
    if (!name.endsWith(".json") && (takenBy === null || alive(Number.parseInt(takenBy[2] ?? "", 10)))) continue;
    if (now - at < PENDING_MIN_AGE_MS) break;
    // (one whose hook still runs is still being applied, by that hook: slow, not lost; this process's own is too)
    const writer = Number.parseInt(name.split("-")[1] ?? "", 10);
    if (takenBy === null && (writer === process.pid || alive(writer))) continue;
    const taken = `${takenBy === null ? file : path.join(dir, takenBy[1] ?? "")}.${process.pid}.taken`;
    if (taken === file) continue;
    try {
      fs.renameSync(file, taken);
    } catch {
      continue; // (taken by another hook meanwhile)
    }
    try {
      if (fs.statSync(taken).size > PENDING_MAX_BYTES) throw new Error("too large");
      const parsed = JSON.parse(fs.readFileSync(taken, "utf8")) as { at?: unknown; request?: unknown };
      if (typeof parsed.at !== "number" || typeof parsed.request !== "object" || parsed.request === null) throw new Error("not an event");
      out.push({ file: taken, at: parsed.at, request: parsed.request as EvaluateRequest });
    } catch {
      // (half written by a hook ended mid-write, or not a hook's at all)
      removePending(taken);
    }
  }
  return out;
}
