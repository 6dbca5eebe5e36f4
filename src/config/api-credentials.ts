import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { ComityError } from "../errors/comity-error.js";
import { CONFIG_LAYOUT } from "./config-layout.js";

/** Where hooks find the coordination API, and the token they send. */
export interface ApiCredentials {
  readonly url: string;
  readonly token: string;
}

/** `<config dir>/api.json`, written by `comity login`, readable by its owner only. */
export function credentialsFile(configDir: string): string {
  return path.join(configDir, CONFIG_LAYOUT.api);
}

/**
 * The API a hook talks to: `COMITY_API_URL` / `COMITY_TOKEN` when set (each
 * on its own), else what `comity login` saved. Hosts started from a desktop
 * (Cursor, a Claude Code app) often do not see a shell's variables; the file
 * works for them. Empty strings when there is neither.
 */
export function resolveApi(env: Readonly<Record<string, string | undefined>>, configDir: string): ResolvedApi {
  const envUrl = env["COMITY_API_URL"] ?? "";
  const envToken = env["COMITY_TOKEN"] ?? "";
  // The file is read only when a variable is missing: the hook's common case costs no read.
  const saved = envUrl !== "" && envToken !== "" ? null : readApiCredentials(configDir);
  const pick = (fromEnv: string, fromFile: string | undefined): [string, ApiSource] =>
    fromEnv !== "" ? [fromEnv, "env"] : fromFile !== undefined && fromFile !== "" ? [fromFile, "file"] : ["", "none"];
  const [url, urlFrom] = pick(envUrl, saved?.url);
  const [token, tokenFrom] = pick(envToken, saved?.token);
  return { url, token, urlFrom, tokenFrom };
}

export type ApiSource = "env" | "file" | "none";

/** The API and token a hook uses, and where each came from. */
export interface ResolvedApi {
  readonly url: string;
  readonly token: string;
  readonly urlFrom: ApiSource;
  readonly tokenFrom: ApiSource;
}

/** The saved credentials, or null when there are none or the file is not ours to read. */
export function readApiCredentials(configDir: string): ApiCredentials | null {
  try {
    const v = JSON.parse(fs.readFileSync(credentialsFile(configDir), "utf8")) as Partial<ApiCredentials>;
    return typeof v.url === "string" && typeof v.token === "string" ? { url: v.url, token: v.token } : null;
  } catch {
    return null;
  }
}

/** Saves the credentials atomically, mode 0600; returns the file. */
export function writeApiCredentials(configDir: string, credentials: ApiCredentials): string {
  let url: URL;
  try {
    url = new URL(credentials.url);
  } catch {
    throw new ComityError("INVALID_ARGUMENT", `'${credentials.url}' is not a URL (for example http://127.0.0.1:7373)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ComityError("INVALID_ARGUMENT", `'${credentials.url}': the API is http:// or https://`);
  if (!/^\S+$/.test(credentials.token)) throw new ComityError("INVALID_ARGUMENT", "the token is empty or has spaces");
  const file = credentialsFile(configDir);
  writeFileAtomic(file, `${JSON.stringify({ url: credentials.url, token: credentials.token }, null, 2)}\n`, { mode: 0o600 });
  return file;
}
