import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import pg from "pg";
import { openDatabase } from "../../src/store/open-database.js";
import type { Database } from "../../src/store/database.js";
import { spawnServe } from "../../benchmarks/serve-load-driver.mjs";
import { BIN } from "./run-cli.js";

/** The PostgreSQL the contract and end-to-end tests also run against (`.ci/run` starts one and sets it). */
export const PG_URL = process.env["COMITY_TEST_PG_URL"];

export interface StorageUnderTest {
  readonly name: "sqlite" | "postgres";
  /** A fresh, migrated, empty database and its `--db` spelling. */
  open(): Promise<{ db: Database; spec: string; cleanup: () => Promise<void> }>;
}

/** A database of its own in the test PostgreSQL, so test files running in parallel never share rows. */
export async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (PG_URL === undefined) throw new Error("COMITY_TEST_PG_URL is not set");
  const name = `comity_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: PG_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export const STORAGES: readonly StorageUnderTest[] = [
  {
    name: "sqlite",
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-serve-"));
      const spec = path.join(dir, "serve.sqlite");
      const db = await openDatabase(spec, { configDir: dir, cwd: dir });
      return {
        db,
        spec,
        cleanup: async () => {
          await db.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  ...(PG_URL === undefined
    ? []
    : [
        {
          name: "postgres" as const,
          async open() {
            const { url, drop } = await freshPostgres();
            const db = await openDatabase(url, { configDir: os.tmpdir(), cwd: os.tmpdir() });
            return {
              db,
              spec: url,
              cleanup: async () => {
                await db.close();
                await drop();
              },
            };
          },
        },
      ]),
];

export interface RunningServe {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, no goodbye. */
  kill(): Promise<void>;
  /** What it printed as it started. */
  readonly banner: string;
}

/** Starts the built `comity serve --port 0` and waits for its "listening on" line. */
export function startServe(args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunningServe> {
  return spawnServe(BIN, ["--port", "0", ...args], env);
}

/** One JSON request to the API; the parsed answer (null when not JSON) and the status. */
export async function api(base: string, method: "GET" | "POST", apiPath: string, options: { token?: string; body?: unknown; raw?: string | Buffer } = {}): Promise<{ status: number; json: any }> {
  const { request } = await import("node:http");
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(apiPath, base),
      {
        method,
        headers: {
          ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A fingerprint-shaped hex string for request bodies built by hand. */
export const FP = (seed: string): string => Buffer.from(seed.padEnd(32, "-")).toString("hex").slice(0, 64);
