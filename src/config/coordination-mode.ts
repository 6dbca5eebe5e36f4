import * as path from "node:path";
import { resolveApi, type ApiSource } from "./api-credentials.js";
import { CONFIG_LAYOUT } from "./config-layout.js";

/** The embedded store's file in the config folder. */
export const EMBEDDED_STORE_FILE = CONFIG_LAYOUT.store;

/**
 * How hooks coordinate, in the order it is chosen:
 * - `off`: `COMITY_API_URL=off`: no coordination at all, only the session-start briefing;
 * - `served`: an API is configured (`COMITY_API_URL`, or what `comity login` saved): `comity serve` decides,
 *   for a team across machines;
 * - `embedded`: neither (the default): the hook itself decides, against `<config dir>/coordination.sqlite`,
 *   for every agent of this machine.
 */
export type CoordinationMode =
  | { readonly kind: "off" }
  | { readonly kind: "served"; readonly url: string; readonly token: string; readonly urlFrom: ApiSource; readonly tokenFrom: ApiSource }
  | { readonly kind: "embedded"; readonly file: string };

export function coordinationMode(env: Readonly<Record<string, string | undefined>>, configDir: string): CoordinationMode {
  if ((env["COMITY_API_URL"] ?? "").trim().toLowerCase() === "off") return { kind: "off" };
  const api = resolveApi(env, configDir);
  if (api.url.trim().toLowerCase() === "off") return { kind: "off" };
  if (api.url !== "") return { kind: "served", ...api };
  return { kind: "embedded", file: path.join(configDir, EMBEDDED_STORE_FILE) };
}
