#!/usr/bin/env node
// The package's preinstall script: makes `bin/comity-hook`, the command `comity init` writes into the hooks of the
// hosts that run commands, before npm links the package's commands. Where it can, that is the native client
// (native/hook-client/), which hands an event to the running daemon without starting Node: the release's prebuild
// for this platform when it runs here, else a build from source with the C compiler. Where neither works (Windows,
// no prebuild and no compiler), it is a small Node script that runs `comity hook`, with the same answers. It never
// fails the install: the worst case is a hook as slow as `comity hook`.
// `npm_config_build_from_source=true` (or `=comity`) compiles even where a prebuild runs.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { compileHookClient, HOOK_CLIENT_BIN, HOOK_CLIENT_PREBUILT, HOOK_CLIENT_PREBUILT_SOURCE, hookClientRuns, hookClientSourceHash } from "./hook-client.mjs";

const NODE_CLIENT = `#!/usr/bin/env node
"use strict";
// Written by Comity's install script where no native hook client runs here: \`comity-hook ARGS\` is \`comity hook ARGS\`.
process.argv.splice(2, 0, "hook");
require("./comity.cjs");
`;

const fromSource = ["true", "comity"].includes(process.env["npm_config_build_from_source"] ?? "");
const tmp = `${HOOK_CLIENT_BIN}.${process.pid}.tmp`;

function install(how) {
  try {
    if (how === "prebuild" && readFileSync(HOOK_CLIENT_PREBUILT_SOURCE, "utf8").trim() !== hookClientSourceHash()) return "built from another source";
    if (how === "prebuild") copyFileSync(HOOK_CLIENT_PREBUILT, tmp);
    else if (how === "source") {
      // On Linux linked as the release's prebuild is, statically, where this C library has its static archive: its
      // start then skips the dynamic loader (0.7 ms of every hook on a slow 2-core machine). Else dynamically.
      let r = process.platform === "linux" ? compileHookClient(tmp, { static: true }) : null;
      if (r === null || r.status !== 0) r = compileHookClient(tmp);
      if (r.status !== 0) return `${r.error?.message ?? String(r.stderr ?? "").split("\n")[0] ?? `exit ${r.status}`}`.trim().slice(0, 200);
    } else writeFileSync(tmp, NODE_CLIENT);
    chmodSync(tmp, 0o755);
    if (how !== "node" && !hookClientRuns(tmp)) return "it does not run here";
    renameSync(tmp, HOOK_CLIENT_BIN);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    rmSync(tmp, { force: true });
  }
}

try {
  mkdirSync(dirname(HOOK_CLIENT_BIN), { recursive: true });
  let problem = "Windows";
  if (process.platform !== "win32") {
    const prebuild = fromSource ? null : install("prebuild");
    if (fromSource || prebuild !== null) {
      const source = install("source");
      problem = source === null ? null : `${prebuild === null ? "" : `its prebuild: ${prebuild}; `}from source: ${source}`;
    } else problem = null;
  }
  if (problem !== null) {
    const why = install("node");
    if (why !== null) process.stderr.write(`comity: comity-hook could not be written (${why}); hooks can run \`comity hook\` instead\n`);
    else if (process.platform !== "win32") process.stderr.write(`comity: the native hook client was not built (${problem}); comity-hook starts Node instead, with the same answers\n`);
  }
} catch (error) {
  process.stderr.write(`comity: comity-hook could not be written (${error instanceof Error ? error.message : String(error)})\n`);
}
