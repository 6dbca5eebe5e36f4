// Replicas of `comity serve` as an organisation runs them: a PostgreSQL of their own (scripts/test-postgres.sh),
// `n` replicas of the built CLI on it, and HAProxy from Debian's packages in front (round robin, no stickiness,
// health checks on /v1/health, a request whose replica refuses the connection sent to another: docs/server.md's
// configuration). Used by test/serve/replicas.test.ts and benchmarks/serve-replicas.mjs.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServe } from "./serve-load-driver.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PG_SCRIPT = path.join(root, "scripts", "test-postgres.sh");
const BIN = path.join(root, "bin", "comity.cjs");

/** HAProxy, if installed (`.ci/run` installs it). */
export const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((p) => fs.existsSync(p));
/** Whether a PostgreSQL server can be started here (its binaries, as scripts/test-postgres.sh finds them). */
export const CAN_START_POSTGRES = fs.existsSync("/usr/lib/postgresql") || whichOk("initdb");

function whichOk(cmd) {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A free port on the loopback (free when asked: a replica killed and started again listens on it again). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The HAProxy configuration of docs/server.md, for these replicas' ports. */
export function haproxyConfig(listenPort, replicas) {
  return [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  timeout http-keep-alive 2s",
    "  retries 2",
    "  option redispatch 1",
    "frontend comity",
    `  bind 127.0.0.1:${listenPort}`,
    "  default_backend replicas",
    "backend replicas",
    "  balance roundrobin",
    "  option httpchk GET /v1/health",
    "  http-check expect status 200",
    // (a health check waits up to 2 s: a replica busy under load is slow, not down; one that refuses the connection
    // is down at once, and its requests are sent to another meanwhile)
    "  timeout check 2s",
    "  default-server inter 500ms fall 2 rise 2",
    ...replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port} check`),
    "",
  ].join("\n");
}

/** Polls `test` until it holds; throws, saying what it waited for, after `limitMs`. */
export async function waitFor(test, limitMs, what) {
  const until = Date.now() + limitMs;
  for (;;) {
    if (await test()) return;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startCluster(n, env) {
  const started = execFileSync("bash", [PG_SCRIPT, "start"], { encoding: "utf8" });
  const url = /COMITY_TEST_PG_URL=(\S+)/.exec(started)?.[1];
  const dir = /COMITY_TEST_PG_DIR=(\S+)/.exec(started)?.[1];
  const pg = {
    url,
    dir,
    halt: () => void execFileSync("bash", [PG_SCRIPT, "halt", dir], { stdio: "ignore" }),
    resume: () => void execFileSync("bash", [PG_SCRIPT, "resume", dir], { stdio: "ignore" }),
  };
  const replicas = [];
  let haproxy = null;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "comity-cluster-"));
  const start = async (r) => {
    r.serve = await spawnServe(BIN, ["--db", url, "--port", String(r.port), "--replica", r.name], env);
  };
  const teardown = async () => {
    haproxy?.kill("SIGKILL");
    for (const r of replicas) await r.serve?.kill();
    execFileSync("bash", [PG_SCRIPT, "stop", dir], { stdio: "ignore" });
    fs.rmSync(work, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < n; i++) {
      const port = await freePort();
      replicas.push({ name: `r${i + 1}`, port, url: `http://127.0.0.1:${port}`, serve: null });
    }
    // One at a time: each migrates the database as it starts (under one lock); the first does the work.
    for (const r of replicas) await start(r);
    const lbPort = await freePort();
    fs.writeFileSync(path.join(work, "haproxy.cfg"), haproxyConfig(lbPort, replicas));
    haproxy = spawn(HAPROXY, ["-db", "-f", path.join(work, "haproxy.cfg")], { stdio: ["ignore", "ignore", "ignore"] });
    const lb = `http://127.0.0.1:${lbPort}`;
    await waitFor(async () => (await fetch(`${lb}/v1/health`).catch(() => null))?.status === 200, 10_000, "the balancer to answer");
    return {
      pg,
      replicas,
      url: lb,
      async kill(i) {
        await replicas[i].serve?.kill();
        replicas[i].serve = null;
      },
      async drain(i) {
        const code = await replicas[i].serve?.stop();
        replicas[i].serve = null;
        return code ?? null;
      },
      async restart(i) {
        await start(replicas[i]);
      },
      stop: teardown,
    };
  } catch (error) {
    await teardown();
    throw error;
  }
}
