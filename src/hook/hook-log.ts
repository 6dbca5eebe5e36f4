import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_LAYOUT, KEEP } from "../config/config-layout.js";

/** hook.log rotates past this size (to hook.log.1, replacing an older one). */
export const HOOK_LOG_MAX_BYTES = KEEP.hookLogBytes;

/**
 * Appends one `fail-open` line to `<config dir>/hook.log`: time, tool,
 * event and reason, tab-separated. Never the token, a prompt or file
 * contents (callers pass only a reason they wrote). Never throws: a log that
 * cannot be written must not break the agent either.
 */
export function logFailOpen(configDir: string, fields: { time: Date; tool: string; event: string; reason: string }): void {
  try {
    fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const file = path.join(configDir, CONFIG_LAYOUT.hookLog);
    try {
      if (fs.statSync(file).size >= HOOK_LOG_MAX_BYTES) fs.renameSync(file, `${file}.1`);
    } catch {
      // no log yet
    }
    const clean = (s: string): string => s.replace(/[\t\r\n]+/g, " ").slice(0, 300);
    fs.appendFileSync(file, `${fields.time.toISOString()}\tfail-open\t${clean(fields.tool)}\t${clean(fields.event)}\t${clean(fields.reason)}\n`, { mode: 0o600 });
  } catch {
    // nothing more can be done quietly
  }
}
