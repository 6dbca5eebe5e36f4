// Shared helpers for benchmarks: seeded randomness, timing, and a plain-text table.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** mulberry32: a small seeded PRNG, so generated workspaces are the same on every machine. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs fn `runs` times after `warmup` runs; returns the median in ms. */
export async function timeMs(fn, { runs = 7, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const xs = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(xs);
}

/** Runs a command and throws on failure; returns stdout. */
export function sh(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 28, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * Variables that the timed processes run without, because they cost every Node process its start-up and the
 * tools they are compared with nothing: NODE_EXTRA_CA_CERTS makes Node read and parse a certificate file before
 * any script runs (this machine's sandbox sets it to the system bundle: `node -e 0` took 128 ms with it, 38 ms
 * without, hyperfine, 30 runs each). Removed here, on import, so that every process a benchmark starts goes without
 * them; `machine()` says so in each table's header.
 */
export const DROPPED_ENV = [
  // (a benchmark started by run-all.mjs finds them gone already: run-all passes down what it removed)
  ...new Set([...(process.env.COMITY_BENCH_DROPPED_ENV ?? "").split(",").filter((name) => name !== ""), ...["NODE_EXTRA_CA_CERTS"].filter((name) => process.env[name] !== undefined)]),
].sort();
for (const name of DROPPED_ENV) delete process.env[name];
if (DROPPED_ENV.length > 0) process.env.COMITY_BENCH_DROPPED_ENV = DROPPED_ENV.join(",");

export function machine() {
  const dropped = DROPPED_ENV.length === 0 ? "" : `; timed without ${DROPPED_ENV.join(", ")} (set here; see benchmarks/lib.mjs)`;
  return `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}${dropped}`;
}

export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

/**
 * Makes sure a command exists: installs the Debian package when it is missing and we may
 * (root, apt-get present), else says which anchor is skipped. Returns whether it is there.
 */
export function ensureTool(command, debianPackage) {
  const has = () => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
  if (has()) return true;
  if (process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0) {
    console.error(`installing ${debianPackage} (apt-get) for the ${command} anchor...`);
    spawnSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
    spawnSync("apt-get", ["install", "-y", "-qq", debianPackage], { stdio: "ignore" });
    if (has()) return true;
  }
  console.error(`${command} is missing and could not be installed: its anchor is skipped`);
  return false;
}

/** Where symbols-real.mjs keeps its real corpora (`ts`, `py`), fetched once and then offline. */
export const REAL_CORPORA = path.join(os.tmpdir(), "comity-bench", "real-code");

/** The files under `root` whose name `keep` matches and whose path `skip` does not, sorted. */
export function listFiles(root, keep, skip) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (skip.test(p)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && keep.test(e.name)) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

/** A real corpus's files (`ts`: its TypeScript sources without declaration files; `py`: its Python files), sorted. */
export function realCorpusFiles(id) {
  const dir = path.join(REAL_CORPORA, id);
  return id === "ts"
    ? listFiles(dir, /\.tsx?$/, /\.d\.ts$/)
    : id === "go"
      ? listFiles(dir, /\.go$/, /^$/)
      : id === "rs"
        ? listFiles(dir, /\.rs$/, /^$/)
        : id === "java"
          ? listFiles(dir, /\.java$/, /^$/)
          : listFiles(dir, /\.py$/, /^$/);
}

/** An environment for git in generated repos: no system or user config, a fixed author. */
export function gitEnv(base = process.env) {
  return {
    ...base,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@e",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@e",
  };
}

/** How many hook events the daemon of `env`'s config folder has answered (`comity daemon status --json`), or -1. */
export function daemonServed(bin, env) {
  const r = spawnSync(process.execPath, [bin, "daemon", "status", "--json"], { env, encoding: "utf8" });
  try {
    return Number(JSON.parse(r.stdout).served ?? -1);
  } catch {
    return -1;
  }
}

/** One JSON POST on a connection of its own (as an HTTP hook is sent), timed to the whole answer: `{ ms, text }`; a non-200 rejects. */
export function timedPost(url, headers, body) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const req = http.request(url, { method: "POST", agent: false, headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => (res.statusCode === 200 ? resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, text }) : reject(new Error(`HTTP ${res.statusCode}: ${text}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A generator run as a script (`node benchmarks/generate-….mjs [DIR] [--files N] [--seed N]`): prints, as JSON, what
 * `generate` made. Does nothing where the module was imported.
 */
export function runGeneratorScript(moduleUrl, generate) {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { files: { type: "string" }, seed: { type: "string" } } });
  const options = {
    ...(positionals[0] ? { dir: path.resolve(positionals[0]) } : {}),
    ...(values.files ? { files: Number(values.files) } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
  };
  console.log(JSON.stringify(generate(options), null, 2));
}
