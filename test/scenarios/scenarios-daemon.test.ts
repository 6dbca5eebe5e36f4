import { describe, expect, it } from "vitest";
import { loadScenarios, runScenario } from "./runner.mjs";

// Every scenario's hook events through the daemon's path: the thin client's call over the daemon's socket, the
// daemon's server, and `comity hook` run inside it; embedded, as on one machine out of the box. The answers must be
// the ones the in-process suites get: each agent is told everything it expects and nothing else. (The daemon is
// served in this process, so the suite costs what the in-process one does.)
describe("coordination scenarios through the daemon (embedded)", () => {
  it.each(loadScenarios().map((s) => [s.file, s] as const))(
    "%s",
    async (_file, scenario) => {
      const r = await runScenario(scenario, { inProcess: true, viaDaemon: true, mode: "embedded" });
      if (r.skipped !== null) return;
      expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
      expect(r.recalled).toBe(r.expected);
    },
    120_000,
  );
});

// The same through Claude Code's HTTP hooks (`comity init --http`): its tool-call events posted to the daemon's HTTP
// front with the headers `init` writes, the other events over the socket. Scenarios of the other hosts play as above.
describe("coordination scenarios through the daemon's HTTP hooks (embedded)", () => {
  it.each(loadScenarios().map((s) => [s.file, s] as const))(
    "%s",
    async (_file, scenario) => {
      const r = await runScenario(scenario, { inProcess: true, viaHttp: true, mode: "embedded" });
      if (r.skipped !== null) return;
      expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
      expect(r.recalled).toBe(r.expected);
    },
    120_000,
  );
});

// And served (a real `comity serve` on SQLite): the team server and token the session's environment names ride in the
// headers Claude Code fills (`X-Comity-Env-COMITY_API_URL`, `X-Comity-Env-COMITY_TOKEN`), not in the daemon's own.
describe("coordination scenarios through the daemon's HTTP hooks (served, SQLite)", () => {
  it.each(loadScenarios().map((s) => [s.file, s] as const))(
    "%s",
    async (_file, scenario) => {
      const r = await runScenario(scenario, { inProcess: true, viaHttp: true, mode: "served" });
      if (r.skipped !== null) return;
      expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
      expect(r.recalled).toBe(r.expected);
    },
    120_000,
  );
});
