import { afterAll, describe, expect, it } from "vitest";
import { nativeChangeWatch } from "../../src/daemon/native-change-watch.js";
import { loadScenarios, runScenario, snapshotsReused } from "./runner.mjs";

// Every scenario's hook events through the daemon, each path a user's hooks can take; the answers must be the ones
// the in-process suites get: each agent is told everything it expects and nothing else. (The daemon is served in this
// process, so each suite costs what the in-process one does.)
//  - the socket (embedded, as on one machine out of the box): the thin client's call, the daemon's server, and
//    `comity hook` run inside it;
//  - the native client (`comity-hook`, what `comity init` writes for command hooks where it was built), run as a
//    process for each event, calling the same daemon's socket;
//  - Claude Code's HTTP hooks (`comity init --http`): its tool-call events posted to the daemon's HTTP front with the
//    headers `init` writes, the other events over the socket; embedded, and served (a real `comity serve` on SQLite),
//    where the team server and token the session's environment names ride only in the headers Claude Code fills.
// The daemon keeps a shell command's snapshots on its change watch (Linux): the scenarios' commands that change files
// and those that change nothing must both be told right, so some snapshots must have been reused over the run.
describe.each([
  ["the daemon's socket (embedded)", { viaDaemon: true, mode: "embedded" }],
  ["the native client comity-hook (embedded)", { viaNative: true, mode: "embedded" }],
  ["the daemon's HTTP hooks (embedded)", { viaHttp: true, mode: "embedded" }],
  ["the daemon's HTTP hooks (served, SQLite)", { viaHttp: true, mode: "served" }],
] as const)("coordination scenarios through %s", (_path, options) => {
  it.each(loadScenarios().map((s) => [s.file, s] as const))(
    "%s",
    async (_file, scenario) => {
      const r = await runScenario(scenario, { inProcess: true, ...options });
      if (r.skipped !== null) return;
      expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
      expect(r.recalled).toBe(r.expected);
    },
    120_000,
  );
});

afterAll(() => {
  if (nativeChangeWatch() !== null) expect(snapshotsReused()).toBeGreaterThan(0);
});
