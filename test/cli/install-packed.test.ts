import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltCli } from "../helpers/run-cli.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The package as a user installs it: packed (with the native parser prebuilt for this platform, as `npm pack` runs
 * `prepack`), then `npm install -g` into a fresh prefix with no C or C++ compiler, make or python on PATH. SQLite's
 * driver fetches its prebuilt binary at install, as on a user's machine; here the download is answered from a
 * local copy of this checkout's (`npm_config_better_sqlite3_local_prebuilds`), since nothing but the npm registry is
 * reachable. The other dependencies come from npm's cache, which `npm ci` filled.
 */
let dir: string;
let prefix: string;
let env: NodeJS.ProcessEnv;
let installLog = "";

/** Making the prebuild takes a compiler: where there is none, there is nothing to pack (said in the skip). */
const NO_COMPILER = spawnSync("sh", ["-c", "command -v cc || command -v gcc || command -v clang"]).status !== 0;

function setup(): void {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-packed-"));
  // Stage what `npm pack` would take from this checkout, and prebuild there: the checkout is left alone.
  const stage = path.join(dir, "stage");
  const listed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" })) as Array<{ files: Array<{ path: string }> }>;
  for (const f of [...(listed[0]?.files ?? []).map((x) => x.path), "scripts/prebuild-native.mjs"]) {
    if (f.startsWith("native/prebuilds/")) continue;
    fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(stage, f));
  }
  execFileSync(process.execPath, [path.join(stage, "scripts/prebuild-native.mjs")], { cwd: stage, stdio: "pipe" });
  const tarball = path.join(dir, execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: stage, encoding: "utf8" }).trim().split("\n").at(-1) as string);

  // better-sqlite3's release asset, as prebuild-install would download it for this Node.
  const sqlite = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/better-sqlite3/package.json"), "utf8")) as { version: string };
  const prebuilds = path.join(dir, "sqlite-prebuilds");
  fs.mkdirSync(path.join(prebuilds, "pkg/build/Release"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"), path.join(prebuilds, "pkg/build/Release/better_sqlite3.node"));
  execFileSync("tar", [
    "czf",
    path.join(prebuilds, `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`),
    "-C",
    path.join(prebuilds, "pkg"),
    "build",
  ]);

  // A PATH with node, npm, git and a shell, and no compiler.
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  const which = (cmd: string) => execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim();
  fs.symlinkSync(process.execPath, path.join(bin, "node"));
  fs.symlinkSync(fs.realpathSync(which("npm")), path.join(bin, "npm"));
  for (const cmd of ["git", "sh", "tar"]) fs.symlinkSync(which(cmd), path.join(bin, cmd));
  prefix = path.join(dir, "prefix");
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  // How this machine reaches the registry (a proxy, its certificates, the user's npmrc) stays as it is.
  const network = Object.fromEntries(Object.entries(process.env).filter(([k]) => /proxy|cert|_ca_|^npm_config_(registry|userconfig|globalconfig|strict_ssl|cafile)$/i.test(k)));
  const userconfig = path.join(os.homedir(), ".npmrc");
  env = {
    ...network,
    ...(fs.existsSync(userconfig) && network["npm_config_userconfig"] === undefined ? { npm_config_userconfig: userconfig } : {}),
    PATH: `${path.join(prefix, "bin")}${path.delimiter}${bin}`,
    HOME: home,
    npm_config_cache: process.env["npm_config_cache"] ?? path.join(os.homedir(), ".npm"),
    npm_config_better_sqlite3_local_prebuilds: prebuilds,
    CC: "/nonexistent/cc",
    CXX: "/nonexistent/c++",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
    COMITY_CONFIG_DIR: path.join(dir, "config"),
  };
  const install = spawnSync("npm", ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts", tarball], { env, encoding: "utf8", timeout: 240_000 });
  installLog = `${install.stdout}\n${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install -g of the packed tarball failed:\n${installLog}`);
}

const comity = (args: readonly string[], cwd: string, input = "") => spawnSync(path.join(prefix, "bin", "comity"), args, { cwd, env, input, encoding: "utf8" });

describe.skipIf(NO_COMPILER)("the packed package, installed with no compiler (skipped where no compiler can make its prebuild)", () => {
  beforeAll(setup, 300_000);
  afterAll(() => {
    comity(["daemon", "stop"], dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("installs without one: the PATH it had has no compiler, and no source build was tried", () => {
    for (const cmd of ["cc", "gcc", "c++", "g++", "clang", "make", "python3"]) expect(spawnSync("sh", ["-c", `command -v ${cmd}`], { env }).status, cmd).not.toBe(0);
    expect(installLog).not.toMatch(/gyp (ERR|info spawn)|native parser was not built|hook client was not built/);
    // The native hook client, from the prebuild: a program, not the Node script written where none runs.
    expect(
      fs
        .readFileSync(path.join(prefix, "bin", "comity-hook"))
        .subarray(0, 2)
        .toString("latin1"),
    ).not.toBe("#!");
    const doctor = JSON.parse(comity(["doctor", "--json"], dir).stdout) as { checks: Array<{ id: string; status: string; detail: string }> };
    expect(doctor.checks.find((c) => c.id === "symbols_parser")).toMatchObject({ status: "ok", detail: expect.stringContaining(`prebuilt for ${process.platform}-${process.arch}`) });
  });

  it("comity symbols gives the same bytes as this checkout on real files", () => {
    const files = ["src/parse/flat-tree.ts", "src/coordination/events/before-edit.ts", "src/symbols/python/extract-python.ts", "benchmarks/denials.mjs"].map((f) => path.join(ROOT, f));
    const py = path.join(dir, "stdlib.py");
    fs.copyFileSync(execFileSync("python3", ["-c", "import textwrap; print(textwrap.__file__)"], { encoding: "utf8" }).trim(), py);
    const installed = comity(["symbols", "--json", ...files, py], ROOT);
    expect(installed.status, installed.stderr).toBe(0);
    const here = runBuiltCli(["symbols", "--json", ...files, py], { cwd: ROOT });
    expect(installed.stdout).toBe(here.stdout);
    expect(installed.stdout).toContain('"qualified_name":"TextWrapper._wrap_chunks"');
  });

  it("comity analyze reports a breaking change, and the hooks comity init writes coordinate two agents through the embedded store", () => {
    const repo = path.join(dir, "repo");
    fs.mkdirSync(path.join(repo, "src"), { recursive: true });
    const util =
      "export function clamp(x: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, x));\n}\n\nexport function lerp(a: number, b: number, t: number): number {\n  return a + (b - a) * t;\n}\n";
    fs.writeFileSync(path.join(repo, "src/util.ts"), util);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "-m", "init");
    fs.writeFileSync(path.join(repo, "src/util.ts"), util.replace("clamp(x: number, lo: number, hi: number)", "clamp(x: number, lo: number, hi: number, strict: boolean)"));
    const analyze = comity(["analyze", "--json"], repo);
    expect(analyze.status, analyze.stderr).toBe(0);
    const doc = JSON.parse(analyze.stdout) as { repos: Array<{ changes: Array<{ symbols: Array<{ qualified_name: string; compatibility: string }> }> }> };
    expect(doc.repos[0]?.changes[0]?.symbols).toContainEqual(expect.objectContaining({ qualified_name: "clamp", compatibility: "breaking" }));
    git("checkout", "-q", "--", ".");

    expect(comity(["init", "--tool", "claude_code"], repo).status).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(repo, ".claude/settings.json"), "utf8")) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    const command = (event: string) => settings.hooks[event]?.[0]?.hooks[0]?.command as string;
    // comity-hook is on this PATH (the install linked it): the hooks run the native client.
    expect(command("PreToolUse")).toBe("comity-hook --tool claude_code --event PreToolUse");
    // As Claude Code runs a hook: the command through a shell, the payload on stdin.
    const hook = (event: string, payload: object) => spawnSync("sh", ["-c", command(event)], { cwd: repo, env, input: JSON.stringify(payload), encoding: "utf8" });
    const file = path.join(repo, "src/util.ts");
    const edit = (session: string, from: string, to: string) => ({
      session_id: session,
      transcript_path: "/dev/null",
      cwd: repo,
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: file, old_string: from, new_string: to },
      tool_use_id: `tu-${session}`,
    });
    for (const s of ["s-one", "s-two"]) expect(hook("SessionStart", { session_id: s, transcript_path: "/dev/null", cwd: repo, hook_event_name: "SessionStart", source: "startup" }).status).toBe(0);
    const first = edit("s-one", "Math.min(hi", "Math.min(hi ");
    expect(hook("PreToolUse", first).stdout).toBe("");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("Math.min(hi", "Math.min(hi "));
    expect(hook("PostToolUse", { ...first, hook_event_name: "PostToolUse", tool_response: { success: true } }).status).toBe(0);
    // The second agent, in the same clone, edits the line the first changed: denied once, naming the first.
    const second = hook("PreToolUse", edit("s-two", "Math.max(lo", "Math.max(lo "));
    expect(second.status).toBe(0);
    const out = JSON.parse(second.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(out.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain("edit_conflict");
  });
});
