import { describe, expect, it } from "vitest";
// Plain ESM, shared with scripts/scenarios.mjs (`npm run scenarios`); its types are in runner.d.mts.
import { loadScenarios, runScenario } from "./runner.mjs";

/**
 * Every scenario in ./cases played through the built CLI's entry, in this process (a process an event is what
 * `npm run scenarios` and the CLI tests measure), against a real coordination server on one storage, or in embedded
 * mode (no server): each must be told everything it expects, where it expects it, and nothing else. One file per
 * storage, so that vitest runs them side by side.
 */
export function scenarioSuite(
  name: string,
  database: () => Promise<{ db?: string; mode?: "served" | "embedded"; drop: () => Promise<void> }>,
  pick: (all: ReturnType<typeof loadScenarios>) => ReturnType<typeof loadScenarios> = (all) => all,
): void {
  describe(`coordination scenarios (${name})`, () => {
    it.each(pick(loadScenarios()).map((s) => [s.file, s] as const))(
      "%s",
      async (_file, scenario) => {
        const { db, mode, drop } = await database();
        try {
          const r = await runScenario(scenario, { inProcess: true, ...(db === undefined ? {} : { db }), ...(mode === undefined ? {} : { mode }) });
          // A scenario that needs two machines says so, and is played served only.
          if (r.skipped !== null) {
            expect(mode).toBe("embedded");
            expect(r.skipped).not.toBe("");
            return;
          }
          expect({ misses: r.misses, falseAlarms: r.alarms }).toEqual({ misses: [], falseAlarms: [] });
          expect(r.recalled).toBe(r.expected);
        } finally {
          await drop();
        }
      },
      120_000,
    );
  });
}
