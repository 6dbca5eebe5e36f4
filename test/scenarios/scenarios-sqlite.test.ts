import { describe, expect, it } from "vitest";
import { loadScenarios } from "./runner.mjs";
import { PG_URL } from "../helpers/serve-fixture.js";
import { scenarioSuite } from "./scenario-suite.js";

describe("the scenario suite", () => {
  it("covers every item of the issue, items 2 and 3 on each host, the quiet cases, and the radar across repos", () => {
    const scenarios = loadScenarios();
    expect(scenarios.length).toBeGreaterThanOrEqual(25);
    const items = new Set(scenarios.flatMap((s) => s.items ?? []));
    for (const item of ["2", "3", "4", "5", "6", "7", "8", "9", "quiet", "radar"]) expect(items).toContain(item);
    // Across repos: a TypeScript and a Python pair, and the quiet case.
    const radar = scenarios.filter((s) => (s.items ?? []).includes("radar"));
    expect(new Set(radar.flatMap((s) => Object.values((s as { repos?: Record<string, { fixture?: string }> }).repos ?? {}).map((r) => r.fixture)))).toEqual(
      new Set(["ts-lib", "ts-consumer", "py-lib", "py-consumer"]),
    );
    expect(radar.some((s) => (s.items ?? []).includes("quiet"))).toBe(true);
    for (const item of ["2", "3"]) {
      const hosts = new Set(scenarios.filter((s) => (s.items ?? []).includes(item)).flatMap((s) => Object.values(s.sessions).map((x) => x.host ?? "claude_code")));
      for (const host of ["claude_code", "codex", "cursor", "copilot"]) expect(hosts, `item ${item} on ${host}`).toContain(host);
    }
  });
});

// A fresh SQLite file per scenario, made by the runner. Where PostgreSQL plays every scenario against the server too
// (CI), SQLite's server plays alternate ones: the embedded suite plays them all on SQLite with the same core, and the
// storage contract holds the two databases to the same rows.
scenarioSuite(
  "sqlite",
  async () => ({ drop: async () => undefined }),
  (all) => (PG_URL === undefined ? all : all.filter((_, i) => i % 2 === 1)),
);
