#!/usr/bin/env node
// The native code under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs this after npm test):
//
//   1. builds native/ (the parser addon) and the hook client with -fsanitize=address,undefined, every report fatal;
//   2. runs the tests that exercise them in process (the parser on both paths, the handles, the bulk stat, the change
//      watch, posix_spawn with its deadline, the native client's wire) against those builds: the addon through
//      COMITY_NATIVE_ADDON with the sanitizers' runtimes preloaded into Node, the client through
//      COMITY_TEST_HOOK_CLIENT;
//   3. fuzzes for a bounded time: random and mutated text into the parser (every grammar, short deadlines), handles of
//      the wrong kind into the addon, random answers from a fake daemon into the native client, and random requests
//      into a running daemon's HTTP front, which must answer a good request after them.
//
// Exits non-zero on a failed test, any sanitizer report, or a fuzz finding. `--fuzz-seconds N` (default 60) bounds
// step 3; `--no-tests` skips step 2.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { "fuzz-seconds": { type: "string", default: "60" }, "no-tests": { type: "boolean", default: false }, child: { type: "string" } } });
const SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g", "-O1"];
const addonOut = path.join(root, "native", "build", "Sanitize", "comity_flat_parse.node");
const clientOut = path.join(root, "bin", "comity-hook-sanitized");
const preload = ["libasan.so", "libubsan.so"].map((lib) => spawnSync("gcc", [`-print-file-name=${lib}`], { encoding: "utf8" }).stdout.trim()).join(" ");
const sanitizerEnv = {
  LD_PRELOAD: preload,
  // Node and V8 keep memory for the life of the process: leaks are not what this looks for.
  ASAN_OPTIONS: "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
  UBSAN_OPTIONS: "halt_on_error=1:print_stacktrace=1",
  COMITY_NATIVE_ADDON: addonOut,
  COMITY_TEST_HOOK_CLIENT: clientOut,
};
const REPORT = /AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer/;

if (values.child === "parser") await fuzzParser(Number(values["fuzz-seconds"]));
else await main();

async function main() {
  build();
  if (!values["no-tests"]) runTests();
  const seconds = Number(values["fuzz-seconds"]);
  await fuzz(seconds);
  console.log("native sanitizers: no report");
}

function build() {
  const nodeInclude = [path.join(path.dirname(process.execPath), "..", "include", "node"), "/usr/include/node"].find((d) => fs.existsSync(path.join(d, "node_api.h")));
  if (nodeInclude === undefined) fail("Node's headers (node_api.h) are not installed here");
  fs.mkdirSync(path.dirname(addonOut), { recursive: true });
  const gyp = JSON.parse(fs.readFileSync(path.join(root, "native", "binding.gyp"), "utf8")).targets[0];
  const t = Date.now();
  run("gcc", [
    "-shared",
    "-fPIC",
    "-std=c11",
    "-fvisibility=hidden",
    ...SANITIZE,
    `-I${nodeInclude}`,
    ...gyp.include_dirs.map((d) => `-I${path.join(root, "native", d)}`),
    ...gyp.defines.map((d) => `-D${d}`),
    ...gyp.sources.map((s) => path.join(root, "native", s)),
    "-o",
    addonOut,
  ]);
  run("gcc", ["-std=c11", "-O1", ...SANITIZE, path.join(root, "native", "hook-client", "comity_hook.c"), "-o", clientOut]);
  console.log(`built with ${SANITIZE[0]} in ${((Date.now() - t) / 1000).toFixed(0)} s: ${path.relative(root, addonOut)}, ${path.relative(root, clientOut)}`);
}

function runTests() {
  // Each file whole, but for the snapshot oracles: there, the posix_spawn cases (the oracle suite around them runs
  // git, not the addon, and takes minutes under ASan).
  const runs = [
    [["test/parse/flat-tree.test.ts", "test/parse/native-handles.test.ts", "test/fs/stat-many.test.ts", "test/daemon/native-client.test.ts", "test/daemon/warm-analyze.test.ts"], []],
    [["test/snapshot/snapshot-oracle-native-spawn.test.ts"], ["-t", "spawnCapture|hangs"]],
  ];
  for (const [files, extra] of runs) {
    const r = spawnSync(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...files, ...extra], {
      cwd: root,
      env: { ...process.env, ...sanitizerEnv, COMITY_TEST_REQUIRE_NATIVE: "1" },
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    process.stdout.write(
      `${r.stdout
        .split("\n")
        .filter((l) => /Test Files|Tests |FAIL|×/.test(l))
        .join("\n")}\n`,
    );
    if (r.status !== 0 || REPORT.test(r.stdout) || REPORT.test(r.stderr)) {
      process.stderr.write(r.stdout.slice(-20000) + r.stderr.slice(-20000));
      fail("the native tests failed under the sanitizers");
    }
  }
}

async function fuzz(seconds) {
  const share = Math.max(1, Math.floor(seconds / 3));
  // The parser, in a Node process of its own with the runtimes preloaded.
  const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", "parser", "--fuzz-seconds", String(share)], {
    cwd: root,
    env: { ...process.env, ...sanitizerEnv },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  process.stdout.write(p.stdout);
  if (p.status !== 0 || REPORT.test(p.stderr)) {
    process.stderr.write(p.stderr.slice(-20000));
    fail("the parser fuzz found something");
  }
  await fuzzClient(share);
  await fuzzHttpFront(share);
}

/** Random and mutated text into every grammar, with short deadlines; the wrong handles into the addon. */
async function fuzzParser(seconds) {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const addon = require(addonOut);
  const grammars = [
    require("tree-sitter-python").language,
    require("tree-sitter-typescript").typescript.language,
    require("tree-sitter-typescript").tsx.language,
    require("tree-sitter-javascript").language,
    require("tree-sitter-bash").language,
    require("tree-sitter-go").language,
    require("tree-sitter-rust").language,
    require("tree-sitter-java").language,
  ];
  const seeds = [
    "src/hook/run-hook.ts",
    "src/cli/main.ts",
    "scripts/native-sanitizers.mjs",
    "benchmarks/lib.mjs",
    "test/fixtures/go/mux/route.go",
    "test/fixtures/rust/log/src/kv/key.rs",
    "test/fixtures/java/javapoet/java/com/squareup/javapoet/FieldSpec.java",
  ].map((f) => fs.readFileSync(path.join(root, f), "utf8"));
  const watch = addon.watchOpen?.(100);
  let runs = 0;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const g = grammars[runs % grammars.length];
    const kind = runs % 4;
    let text;
    if (kind === 0) text = randomBytes(1 + (runs % 4096)).toString("latin1");
    else if (kind === 1) text = randomBytes(1 + (runs % 2048)).toString("utf8");
    else {
      // A real file cut and spliced at random places, or one character repeated deep (nesting).
      const seed = seeds[runs % seeds.length];
      const a = Math.floor(Math.random() * seed.length);
      const b = Math.floor(Math.random() * seed.length);
      text = kind === 2 ? seed.slice(0, a) + randomBytes(16).toString("latin1") + seed.slice(b) : "([{".charAt(runs % 3).repeat(1 + (runs % 20000));
    }
    try {
      addon.parse(g, kind === 1 ? Buffer.from(text, "utf8") : text, 200, 64 * 1024 * 1024);
    } catch (error) {
      if (!/COMITY_PARSE_TIMEOUT|COMITY_PARSE_MEMORY/.test(String(error?.code ?? error?.message))) throw error;
    }
    if (runs % 50 === 0) {
      for (const bad of [watch, {}, 1, "x", null, undefined, Buffer.alloc(8)]) {
        try {
          addon.language(bad);
        } catch {
          // refused, as it must be
        }
        addon.watchAdd?.(bad, root);
        addon.watchChanged?.(bad);
      }
    }
    runs++;
  }
  addon.watchClose?.(watch);
  console.log(`parser fuzz: ${runs} parses over ${grammars.length} grammars in ${seconds} s, no report`);
}

/** The native client against a fake daemon that answers random bytes: it must exit 0, print only what a good answer held, and raise no report. */
async function fuzzClient(seconds) {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "comity-fuzz-client-"));
  const socket = path.join(config, "daemon.sock");
  let answer = Buffer.alloc(0);
  const server = net.createServer((conn) => {
    conn.on("data", () => conn.end(answer));
    conn.on("error", () => undefined);
  });
  await new Promise((resolve) => server.listen(socket, resolve));
  const env = { PATH: process.env.PATH, HOME: config, COMITY_CONFIG_DIR: config, ASAN_OPTIONS: sanitizerEnv.ASAN_OPTIONS, UBSAN_OPTIONS: sanitizerEnv.UBSAN_OPTIONS, COMITY_API_URL: "off" };
  const shapes = [
    () => randomBytes(Math.floor(Math.random() * 512)),
    () => Buffer.from(`{"kind":"hook","stdout":${JSON.stringify(randomBytes(64).toString("latin1"))}}\n`),
    () => Buffer.from(`{"kind":"hook","stdout":"${"\\u00".repeat(Math.floor(Math.random() * 40))}${randomBytes(8).toString("hex")}"}\n`),
    () => Buffer.from(`{"kind":"${["busy", "stale", "refused", "hook", ""][Math.floor(Math.random() * 5)]}","stdout":${Math.random() < 0.5 ? "1" : '"\\ud800"'}}\n`),
    () => Buffer.from(`{"stdout":"${"\\\\".repeat(Math.floor(Math.random() * 100))}","kind":"hook"}\n`),
  ];
  let runs = 0;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    answer = shapes[runs % shapes.length]();
    // Only answers the client takes as a hook's are printed; the others go to the Node entry, which is not what this
    // fuzzes: COMITY_DAEMON stays on, and a missing Node entry makes the client log and exit 0.
    const r = await runClient(clientOut, ["--tool", "codex", "--event", "Stop"], randomBytes(Math.floor(Math.random() * 2048)), { ...env, PATH: "/nonexistent" });
    if (r.code !== 0 || REPORT.test(r.stderr)) {
      server.close();
      fail(`the native client, answered ${JSON.stringify(answer.toString("latin1").slice(0, 200))}: exit ${r.code}\n${r.stderr.slice(-4000)}`);
    }
    runs++;
  }
  server.close();
  fs.rmSync(config, { recursive: true, force: true });
  console.log(`client fuzz: ${runs} hook calls against random daemon answers in ${seconds} s, no report`);
}

function runClient(file, args, stdin, env) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.resume();
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

/** Random requests into a real daemon's HTTP front; a request with the secret is still answered after them. */
async function fuzzHttpFront(seconds) {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "comity-fuzz-http-"));
  const env = { ...process.env, HOME: config, COMITY_CONFIG_DIR: config, COMITY_API_URL: "off" };
  delete env.COMITY_DAEMON;
  for (const k of Object.keys(sanitizerEnv)) delete env[k];
  const bin = path.join(root, "bin", "comity.cjs");
  const { ensureDaemonHttpConfig } = await import(path.join(root, "dist", "daemon", "daemon-http.js"));
  const http = await ensureDaemonHttpConfig(config);
  const daemon = spawn(process.execPath, [bin, "daemon", "run"], { env, stdio: "ignore" });
  const up = async () => {
    for (let i = 0; i < 500; i++) {
      const ok = await new Promise((resolve) => {
        const c = net.connect(http.port, "127.0.0.1", () => {
          c.destroy();
          resolve(true);
        });
        c.on("error", () => resolve(false));
      });
      if (ok) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  };
  if (!(await up())) fail("the daemon's HTTP front did not listen");
  const send = (bytes) =>
    new Promise((resolve) => {
      const c = net.connect(http.port, "127.0.0.1", () => c.end(bytes));
      let got = "";
      c.on("data", (d) => (got += d));
      c.setTimeout(2000, () => c.destroy());
      c.on("close", () => resolve(got));
      c.on("error", () => resolve(got));
    });
  const host = `127.0.0.1:${http.port}`;
  const shapes = [
    () => randomBytes(Math.floor(Math.random() * 1024)),
    () =>
      Buffer.from(
        `POST /v1/hook/claude_code/${randomBytes(6).toString("hex")} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${http.secret}\r\nContent-Length: 12\r\n\r\n${randomBytes(12).toString("latin1")}`,
      ),
    () =>
      Buffer.from(
        `POST /v1/hook/claude_code/PreToolUse HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${http.secret}\r\nContent-Length: ${Math.floor(Math.random() * 64)}\r\n\r\n${JSON.stringify({ cwd: "/", x: randomBytes(8).toString("hex") })}`,
      ),
    () => Buffer.from(`GET /${"a".repeat(Math.floor(Math.random() * 9000))} HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://x\r\n\r\n`),
    () => Buffer.from(`POST /v1/hook/claude_code/Stop HTTP/1.1\r\nHost: evil.example\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n${randomBytes(10).toString("latin1")}`),
  ];
  let runs = 0;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await send(shapes[runs % shapes.length]());
    runs++;
  }
  // Still there, and a good event is answered (200) after all that.
  const good = await send(
    Buffer.from(
      `POST /v1/hook/claude_code/Stop HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${http.secret}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    ),
  );
  spawnSync(process.execPath, [bin, "daemon", "stop"], { env, stdio: "ignore" });
  daemon.kill("SIGKILL");
  fs.rmSync(config, { recursive: true, force: true });
  if (!/^HTTP\/1\.1 200 /.test(good)) fail(`after ${runs} random requests the daemon's HTTP front answered a good one with ${JSON.stringify(good.slice(0, 200))}`);
  console.log(`HTTP front fuzz: ${runs} random requests in ${seconds} s, and a good one answered after them`);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0) fail(`${cmd} failed: ${r.stderr.slice(-4000)}`);
}

function fail(message) {
  console.error(`native sanitizers: ${message}`);
  process.exit(1);
}
