import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";

/**
 * A salted SHA-256 of this machine's id (`/etc/machine-id`, else the host
 * name): lets the API tell machines apart without ever seeing the raw id.
 */
export function machineIdHash(): string {
  let id = "";
  for (const f of ["/etc/machine-id", "/var/lib/dbus/machine-id"]) {
    try {
      id = fs.readFileSync(f, "utf8").trim();
      if (id !== "") break;
    } catch {
      // try the next
    }
  }
  if (id === "") id = os.hostname();
  return createHash("sha256").update(`comity-machine-id/1\0${id}`).digest("hex");
}

/** JSON with sorted keys: the same value gives the same text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The request's dedupe key: the same native event delivered twice (a host
 * retry) gives the same key, a different event or repo a different one.
 */
export function dedupeKey(host: string, nativeEvent: string, payload: unknown, repoKey: string): string {
  return createHash("sha256").update(`${host}\0${nativeEvent}\0${repoKey}\0${canonicalJson(payload)}`).digest("hex").slice(0, 32);
}
