import { describe, expect, it } from "vitest";
import { PG_URL, freshPostgres } from "../helpers/serve-fixture.js";
// Plain ESM, shared with scripts/scenarios.mjs (`npm run scenarios`); its types are in runner.d.mts.
import { loadScenarios, runScenario } from "./runner.mjs";

/**
 * The coordination scenario suite (issue "Coordination that catches the collisions that matter"): every scenario
 * in ./cases played through the built CLI against a real `comity serve`, on SQLite and, when COMITY_TEST_PG_URL
 * is set, on PostgreSQL. Each must be told everything it expects, where it expects it, and nothing else.
 */
const scenarios = loadScenarios();
const storages: Array<{ name: string; db: () => Promise<{ db?: string; drop: () => Promise<void> }> }> = [
  { name: "sqlite", db: async () => ({ drop: async () => undefined }) },
  ...(PG_URL === undefined ? [] : [{ name: "postgres", db: async () => { const { url, drop } = await freshPostgres(); return { db: url, drop }; } }]),
];

describe("coordination scenarios", () => {
  it("cover every item of the issue, items 2 and 3 on each host, and the quiet cases", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(25);
    const items = new Set(scenarios.flatMap((s) => s.items ?? []));
    for (const item of ["2", "3", "4", "5", "6", "7", "8", "9", "quiet"]) expect(items).toContain(item);
    for (const item of ["2", "3"]) {
      const hosts = new Set(scenarios.filter((s) => (s.items ?? []).includes(item)).flatMap((s) => Object.values(s.sessions).map((x) => x.host ?? "claude_code")));
      for (const host of ["claude_code", "codex", "cursor", "copilot"]) expect(hosts, `item ${item} on ${host}`).toContain(host);
    }
  });

  for (const storage of storages) {
    describe(storage.name, () => {
      it.each(scenarios.map((s) => [s.file, s] as const))("%s", async (_file, scenario) => {
        const { db, drop } = await storage.db();
        try {
          const r = await runScenario(scenario, db === undefined ? {} : { db });
          expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
          expect(r.recalled).toBe(r.expected);
        } finally {
          await drop();
        }
      }, 120_000);
    });
  }
});
