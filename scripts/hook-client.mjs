// The native hook client (native/hook-client/comity_hook.c, installed as `comity-hook`): where its prebuild is, how
// it is compiled, and the check that a build runs here. The install script (scripts/install-hook-client.mjs) and the
// release's prebuild (scripts/prebuild-native.mjs) both use these.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The client's one source file. */
export const HOOK_CLIENT_SOURCE = join(ROOT, "native", "hook-client", "comity_hook.c");

/** Where the release puts the client prebuilt for this platform. */
export const HOOK_CLIENT_PREBUILT = join(ROOT, "native", "prebuilds", `${process.platform}-${process.arch}`, "comity-hook");

/**
 * Beside the prebuild: the hash of the source it was built from. The install script takes the prebuild only where it
 * matches the source it ships with (a checkout's leftover prebuild of an older source is rebuilt instead; file dates
 * cannot tell, as npm extracts a package with dates of its own).
 */
export const HOOK_CLIENT_PREBUILT_SOURCE = `${HOOK_CLIENT_PREBUILT}.source-sha256`;

/** The hash of the client's source, as HOOK_CLIENT_PREBUILT_SOURCE holds it. */
export function hookClientSourceHash() {
  return createHash("sha256").update(readFileSync(HOOK_CLIENT_SOURCE)).digest("hex");
}

/** Where the package's `comity-hook` command is (package.json's `bin`). */
export const HOOK_CLIENT_BIN = join(ROOT, "bin", "comity-hook");

/**
 * Compiles the client to `out` with the C compiler of `CC` (else `cc`); the spawn's result. `static` (Linux: the
 * release's prebuild, and the install's build where the C library's static archive is there): linked statically, so
 * that it runs on any Linux of the architecture whatever its glibc (a dynamic build here would need this machine's
 * glibc, 2.34 or newer, for its very start), and starts without the dynamic loader.
 */
export function compileHookClient(out, options = {}) {
  const cc = process.env["CC"] || "cc";
  const link = options.static === true ? ["-static"] : [];
  return spawnSync(cc, ["-O2", "-std=c11", "-Wall", ...link, "-o", out, HOOK_CLIENT_SOURCE], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
}

/** Whether the client at `file` runs here (it answers `--probe`). */
export function hookClientRuns(file) {
  const r = spawnSync(file, ["--probe"], { encoding: "utf8", timeout: 5000 });
  return r.status === 0 && r.stdout === "comity-hook\n";
}
