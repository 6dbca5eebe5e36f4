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
//    where the team server and token the session's environment names reach the HTTP events only as the session's
//    command hooks recorded them in its state.
// The daemon keeps a shell command's snapshots on its change watch (Linux): the scenarios' commands that change files
// and those that change nothing must both be told right, so some snapshots must have been reused over the run.
// Every door leads to the same daemon, which runs the same `comity hook` behind each (and the in-process suites play
// every scenario through that code): the thin client's socket and the native client carry alternate halves of the
// scenarios, so each scenario goes through the daemon once and every host and step kind through each door; the HTTP
// front carries alternate halves of those with a Claude Code session (the one host that posts), embedded and served.
const all = loadScenarios();
const alternate = (parity: number) => all.filter((_, i) => i % 2 === parity);
const claudeCode = (list: typeof all) => list.filter((s) => Object.values(s.sessions).some((x) => (x.host ?? "claude_code") === "claude_code"));
describe.each([
  ["the daemon's socket (embedded)", { viaDaemon: true, mode: "embedded" }, alternate(1)],
  ["the native client comity-hook (embedded)", { viaNative: true, mode: "embedded" }, alternate(0)],
  ["the daemon's HTTP hooks (embedded)", { viaHttp: true, mode: "embedded" }, claudeCode(alternate(1))],
  ["the daemon's HTTP hooks (served, SQLite)", { viaHttp: true, mode: "served" }, claudeCode(alternate(0))],
] as const)("coordination scenarios through %s", (_path, options, scenarios) => {
  it.each(scenarios.map((s) => [s.file, s] as const))(
    "%s",
    async (_file, scenario) => {
      // (check_edit's dry runs are compared in the in-process suites: the doors do not change what the core decides)
      const r = await runScenario(scenario, { inProcess: true, checkEdits: false, ...options });
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
