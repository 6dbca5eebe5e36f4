import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planLoad, runLoad, type LoadBody } from "../../benchmarks/serve-load-driver.mjs";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";
import { runBuiltCli } from "../helpers/run-cli.js";
import { api, startServe, STORAGES, type RunningServe } from "../helpers/serve-fixture.js";

const SESSIONS = 50;
const EVENTS = 20;

/**
 * Each repo's index versions over all answers: exactly 1..n for a repo of n events when each event was applied
 * once and none was lost (a repo's index version counts the events applied to it).
 */
function versionsByRepo(plan: LoadBody[][], answers: Map<string, string>): Map<string, number[]> {
  const repoOf = new Map(plan.flat().map((b) => [b.dedupe_key, b.repo.remote_fingerprints[0] as string]));
  const out = new Map<string, number[]>();
  for (const [key, text] of answers) {
    const repo = repoOf.get(key) as string;
    out.set(repo, [...(out.get(repo) ?? []), (JSON.parse(text) as { index_version: number }).index_version]);
  }
  for (const v of out.values()) v.sort((a, b) => a - b);
  return out;
}
const expectEachAppliedOnce = (plan: LoadBody[][], answers: Map<string, string>) => {
  const byRepo = versionsByRepo(plan, answers);
  const events = new Map<string, number>();
  for (const b of plan.flat()) events.set(b.repo.remote_fingerprints[0] as string, (events.get(b.repo.remote_fingerprints[0] as string) ?? 0) + 1);
  expect(byRepo.size).toBe(events.size);
  for (const [repo, n] of events) expect(byRepo.get(repo), repo).toEqual(Array.from({ length: n }, (_, i) => i + 1));
};

describe.each(STORAGES)("comity serve under load ($name)", (storage) => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  let spec: string;
  let cleanup: () => Promise<void>;
  let serve: RunningServe | undefined;
  let token: string;

  beforeEach(async () => {
    sb = createSandbox();
    env = { ...sb.env, COMITY_CONFIG_DIR: path.join(sb.dir, "cfg") };
    const opened = await storage.open();
    await opened.db.close();
    ({ spec, cleanup } = opened);
    token = runBuiltCli(["serve", "token", "create", "--team", "load", "--db", spec], { cwd: sb.dir, env }).stdout.trim();
  });
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
    await cleanup().catch(() => undefined);
    sb.cleanup();
  });

  it(`${SESSIONS} sessions x ${EVENTS} events at once: none lost, none applied twice, replays answered alike`, async () => {
    serve = await startServe(["--db", spec], env);
    const plan = planLoad({ sessions: SESSIONS, events: EVENTS, run: "load" });
    const r = await runLoad({ url: serve.url, token, plan });
    expect(r.failures).toEqual([]);
    expect(r.mismatches).toEqual([]);
    expect(r.answers.size).toBe(SESSIONS * EVENTS);
    expectEachAppliedOnce(plan, r.answers);
    const sessions = (await api(serve.url, "GET", "/v1/sessions", { token })).json.sessions as Array<{ event_count: number }>;
    expect(sessions).toHaveLength(SESSIONS);
    expect(sessions.every((s) => s.event_count === EVENTS)).toBe(true);
    // The WAL (about 65 KB an event here) starts over instead of growing with every event.
    if (storage.name === "sqlite") expect(fs.statSync(`${spec}-wal`).size).toBeLessThan(48 * 1024 * 1024);
  }, 120_000);

  it.runIf(storage.name === "sqlite")(
    "survives SIGKILL in the middle of the load: the database is intact and dedupe still holds",
    async () => {
      serve = await startServe(["--db", spec], env);
      const plan = planLoad({ sessions: SESSIONS, events: EVENTS, run: "crash" });
      const victim = serve;
      let killed: Promise<void> | null = null;
      const before = await runLoad({
        url: victim.url,
        token,
        plan,
        onAnswer: (n) => {
          if (n >= 300 && killed === null) killed = victim.kill();
        },
      });
      await killed;
      serve = undefined;
      expect(before.failures.length).toBeGreaterThan(0); // the kill did land mid-load
      expect(before.answers.size).toBeGreaterThanOrEqual(300);
      expect(before.answers.size).toBeLessThan(SESSIONS * EVENTS);

      const check = new Database(spec, { readonly: true });
      expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
      check.close();

      serve = await startServe(["--db", spec], env);
      const after = await runLoad({ url: serve.url, token, plan, replayEvery: 0 });
      expect(after.failures).toEqual([]);
      // Every answer given before the crash is given again, byte for byte.
      for (const [key, text] of before.answers) expect(after.answers.get(key), key).toBe(text);
      expectEachAppliedOnce(plan, after.answers);
      const sessions = (await api(serve.url, "GET", "/v1/sessions", { token })).json.sessions as Array<{ event_count: number }>;
      expect(sessions.map((s) => s.event_count)).toEqual(Array(SESSIONS).fill(EVENTS));
    },
    120_000,
  );
});
