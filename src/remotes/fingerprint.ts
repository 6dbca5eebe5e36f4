import { createHash } from "node:crypto";
import { compareStrings } from "../errors/diagnostic.js";
import { canonicalizeRemoteUrl } from "./canonicalize-remote-url.js";

/**
 * Lowercase hex SHA-256 of a remote's canonical form: what leaves the
 * machine instead of the URL, so that sessions on different machines
 * recognise one repo whatever spelling they cloned with.
 *
 * @example
 * remoteFingerprint("https://github.com/acme/api.git") === remoteFingerprint("git@github.com:acme/api");
 */
export function remoteFingerprint(url: string, baseDir?: string): string | null {
  const canonical = canonicalizeRemoteUrl(url, baseDir);
  return canonical === null ? null : sha256Hex(canonical.canonical);
}

/** The sorted, de-duplicated fingerprints of a list of URLs (unparseable ones left out). */
export function remoteFingerprints(urls: readonly string[], baseDir?: string): string[] {
  const set = new Set<string>();
  for (const url of urls) {
    const f = remoteFingerprint(url, baseDir);
    if (f !== null) set.add(f);
  }
  return [...set].sort(compareStrings);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
