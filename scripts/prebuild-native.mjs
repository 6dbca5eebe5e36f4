#!/usr/bin/env node
// The release's prebuild (`npm pack`, `npm publish` run it as `prepack`): builds the native parser and the native
// hook client from source and puts them in native/prebuilds/<platform>-<arch>/, which the package ships, so that `npm install` on a machine of
// that platform needs no compiler (scripts/build-native.mjs loads it instead of building). On Linux it must load
// on the oldest glibc Node 20 supports: the build fails here if it needs a newer symbol version than MAX_GLIBC.
// The addon speaks Node-API 8, so one build serves every Node from 20 on.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { compileHookClient, HOOK_CLIENT_PREBUILT, HOOK_CLIENT_PREBUILT_SOURCE, hookClientRuns, hookClientSourceHash } from "./hook-client.mjs";
import { nodeGypRebuild, PREBUILT, SOURCE_BUILT } from "./node-gyp.mjs";

/** Node 20's own floor on Linux (x64 and arm64). */
export const MAX_GLIBC = "2.28";

const r = nodeGypRebuild();
if (r.status !== 0) {
  process.stderr.write(`prebuild: node-gyp failed:\n${r.stderr ?? r.error?.message ?? ""}\n`);
  process.exit(1);
}
checkGlibc(SOURCE_BUILT);
mkdirSync(dirname(PREBUILT), { recursive: true });
copyFileSync(SOURCE_BUILT, PREBUILT);
process.stdout.write(`prebuild: ${PREBUILT}\n`);

// The native hook client (`comity-hook`), under the same glibc rule: the install script copies it to bin/.
if (process.platform !== "win32") {
  const c = compileHookClient(HOOK_CLIENT_PREBUILT, { static: process.platform === "linux" });
  if (c.status !== 0 || !hookClientRuns(HOOK_CLIENT_PREBUILT)) {
    process.stderr.write(`prebuild: the hook client did not build:\n${c.stderr ?? c.error?.message ?? ""}\n`);
    process.exit(1);
  }
  checkGlibc(HOOK_CLIENT_PREBUILT);
  writeFileSync(HOOK_CLIENT_PREBUILT_SOURCE, `${hookClientSourceHash()}\n`);
  process.stdout.write(`prebuild: ${HOOK_CLIENT_PREBUILT}\n`);
}

/** On Linux, ends the prebuild where `file` needs a glibc newer than MAX_GLIBC (it would not load everywhere). */
function checkGlibc(file) {
  if (process.platform !== "linux") return;
  const versions = glibcVersions(file);
  if (versions === null) {
    process.stderr.write(`prebuild: cannot list the glibc symbol versions ${file} needs (objdump or readelf, from binutils, is needed)\n`);
    process.exit(1);
  }
  const newer = versions.filter((v) => compareVersions(v, MAX_GLIBC) > 0);
  if (newer.length > 0) {
    process.stderr.write(`prebuild: ${file} needs GLIBC ${newer.join(", ")}, newer than ${MAX_GLIBC}: it would not load on every glibc Node 20 runs on\n`);
    process.exit(1);
  }
}

/** The GLIBC_x.y versions an ELF file's dynamic symbols need, or null without binutils. */
function glibcVersions(file) {
  for (const [cmd, args] of [
    ["objdump", ["-T", file]],
    ["readelf", ["-V", "--wide", file]],
  ]) {
    const out = spawnSync(cmd, args, { encoding: "utf8" });
    if (out.status === 0) return [...new Set([...out.stdout.matchAll(/GLIBC_(\d+(?:\.\d+)+)/g)].map((m) => m[1]))].sort(compareVersions);
  }
  return null;
}

function compareVersions(a, b) {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
