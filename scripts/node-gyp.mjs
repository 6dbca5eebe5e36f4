// Runs node-gyp on Comity's native folder: the one way both the install script (scripts/build-native.mjs) and the
// release's prebuild (scripts/prebuild-native.mjs) compile it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's native folder. */
export const NATIVE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "native");

/** Where the prebuilt parser for this platform is, in the package. */
export const PREBUILT = join(NATIVE_DIR, "prebuilds", `${process.platform}-${process.arch}`, "comity_flat_parse.node");

/** Where a source build puts it. */
export const SOURCE_BUILT = join(NATIVE_DIR, "build", "Release", "comity_flat_parse.node");

/** `node-gyp rebuild` of the native folder; stderr piped, so that a failure can be said in one line. */
export function nodeGypRebuild() {
  // npm puts its own node-gyp on the PATH of the scripts it runs (and names it in npm_config_node_gyp); run by hand,
  // the node-gyp npm ships with is used.
  const candidates = [process.env["npm_config_node_gyp"], join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js")];
  let gyp = candidates.find((p) => p !== undefined && p !== "" && existsSync(p));
  if (gyp === undefined) {
    try {
      gyp = createRequire(import.meta.url).resolve("node-gyp/bin/node-gyp.js");
    } catch {
      gyp = undefined;
    }
  }
  const args = ["rebuild", `--directory=${NATIVE_DIR}`];
  // Without a nodedir, node-gyp downloads Node's headers; the ones installed beside this node are used when present.
  const prefix = join(dirname(process.execPath), "..");
  if (!process.env["npm_config_nodedir"] && existsSync(join(prefix, "include", "node", "node_api.h"))) args.push(`--nodedir=${prefix}`);
  return gyp === undefined
    ? spawnSync("node-gyp", args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", shell: process.platform === "win32" })
    : spawnSync(process.execPath, [gyp, ...args], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
}
