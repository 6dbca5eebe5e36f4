import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evaluateEvent, evaluateLockKeys } from "../../src/coordination/evaluate-event.js";
import type { EvaluateRequest } from "../../src/coordination/wire.js";
import type { Database, Sql } from "../../src/store/database.js";
import { openDatabase } from "../../src/store/open-database.js";
import { createToken, type Team } from "../../src/serve/teams.js";
import { FP } from "../helpers/serve-fixture.js";

/** The tables that grow with a team's work: no query of the core may read one of them whole. */
const GROWING = [
  "sessions",
  "intents",
  "intent_paths",
  "conflicts",
  "session_files",
  "session_uses",
  "session_references",
  "symbol_changes",
  "file_symbols",
  "dedupe",
  "notices",
  "session_parse_errors",
  "repo_fingerprints",
  "repos",
];

describe("the coordination core's queries (EXPLAIN QUERY PLAN)", () => {
  let dir: string;
  let db: Database;
  let team: Team;
  let seen: Map<string, readonly unknown[]>;
  let clock = Date.UTC(2026, 11, 1, 9);
  let n = 0;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-plans-"));
    db = await openDatabase(path.join(dir, "c.sqlite"), { configDir: dir, cwd: dir });
    ({ team } = await createToken(db, "acme"));
    seen = new Map();
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const recording = (sql: Sql): Sql => ({
    all: (text, params = []) => {
      seen.set(text, params);
      return sql.all(text, params);
    },
    run: (text, params = []) => {
      seen.set(text, params);
      return sql.run(text, params);
    },
  });
  const ev = (session: string, event: EvaluateRequest["event"], extra: Partial<EvaluateRequest> = {}, parent?: string) => {
    const r: EvaluateRequest = {
      event,
      dedupe_key: `k${++n}`,
      session: { external_id: session, tool: n % 2 === 0 ? "codex" : "copilot", label: "x", ...(parent === undefined ? {} : { parent_external_id: parent }) },
      repo: { remote_fingerprints: [FP("acme/api")], branch: "main", head_sha: "a".repeat(40), cwd_path: "." },
      ...extra,
    };
    clock += 1000;
    return db.transaction(evaluateLockKeys(team, r), (sql) => evaluateEvent(recording(sql), team, r, { now: clock, leaseMs: 600_000 }));
  };

  it("reads no growing table whole, whatever the event", async () => {
    const breaking = {
      qualified_name: "Calc.add",
      kind: "method",
      change: "signature_changed",
      compatibility: "breaking" as const,
      renamed_from: "Calc.plus",
      reasons: [{ code: "PARAMETER_ADDED_REQUIRED", message: "c" }],
    };
    // Every branch of the core: overlaps, uses before and after, breaking changes both ways, plans, reverts,
    // parse failures, subagents, turns and ends, a replay.
    await ev("A", "session_start");
    await ev("B", "session_start");
    await ev("A", "pre_edit", { paths: ["src/calc.ts"], uses: [{ path: "src/calc.ts", name: "x", module: "./x" }] });
    await ev("A", "post_edit", {
      paths: ["src/calc.ts"],
      analysis: [
        {
          path: "src/calc.ts",
          symbols: [{ name: "add", qualified_name: "Calc.add", kind: "method", exported: true }],
          changes: [breaking],
          references: [{ kind: "import", name: "x", module: "./x" }],
        },
      ],
    });
    await ev("B", "post_edit", { paths: ["src/use.ts"], analysis: [{ path: "src/use.ts", references: [{ kind: "import", name: "Calc", module: "./calc" }], changes: [] }] });
    await ev("A", "post_edit", { paths: ["src/calc.ts"], analysis: [{ path: "src/calc.ts", changes: [breaking], references: [] }] });
    await ev("B", "prompt", { prompt_excerpt: "go" } as Partial<EvaluateRequest>);
    await ev("C", "pre_edit", { paths: ["src/calc.ts", "src/use2.ts"], uses: [{ path: "src/use2.ts", name: "Calc", module: "./calc" }] });
    await ev("C", "pre_edit", { paths: ["src/calc.ts", "src/use2.ts"] });
    await ev("C", "post_edit", { paths: ["src/calc.ts"], analysis: [{ path: "src/calc.ts", changes: [{ ...breaking, compatibility: "internal" }], references: [] }] });
    await ev("C:sub", "pre_shell", { paths: ["src/calc.ts"] }, "C");
    await ev("D", "plan", { plan_text: "change src/calc.ts and Calc" });
    await ev("A", "post_edit", { paths: ["src/calc.ts"], analysis: [{ path: "src/calc.ts", changes: [], parse_error: true }] });
    await ev("A", "post_edit", { paths: ["src/calc.ts"], analysis: [{ path: "src/calc.ts", changes: [], references: [] }] });
    await ev("A", "stop", { status: { excerpt: "done", files: ["src/calc.ts"] } });
    await ev("B", "session_end");
    await ev("E", "session_start");
    // Across packages: a change with its package and public names, a use of the package, a dependent's briefing.
    const lib = { name: "@acme/lib", ecosystem: "npm", path: "packages/lib" };
    await ev("F", "post_edit", { paths: ["src/app.ts"], analysis: [{ path: "src/app.ts", references: [{ kind: "import", name: "parseConfig", module: "@acme/lib" }], changes: [] }] });
    await ev("G", "post_edit", {
      paths: ["packages/lib/src/config.ts"],
      analysis: [
        {
          path: "packages/lib/src/config.ts",
          package: lib,
          changes: [{ ...breaking, qualified_name: "parseConfig", kind: "function", renamed_from: null, public_names: ["parseConfig"] }],
          references: [],
        },
      ],
    });
    await ev("F", "pre_edit", { paths: ["src/app.ts"], uses: [{ path: "src/app.ts", name: "parseConfig", module: "@acme/lib" }] });
    await ev("H", "session_start", { repo: { remote_fingerprints: [FP("acme/api")], branch: "main", dependencies: ["npm:@acme/lib"] } });
    await ev("G", "post_edit", { paths: ["packages/lib/src/config.ts"], analysis: [{ path: "packages/lib/src/config.ts", package: lib, changes: [], references: [] }] });
    expect(seen.size).toBeGreaterThan(30);

    await db.close();
    const raw = new BetterSqlite3(path.join(dir, "c.sqlite"), { readonly: true });
    const scans: string[] = [];
    for (const [text, params] of seen) {
      if (/^\s*(INSERT INTO \w+ \([^)]*\) VALUES)/i.test(text) && !/SELECT/i.test(text)) continue; // plain inserts read nothing
      const plan = raw.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...(params as unknown[])) as Array<{ parent: number; detail: string }>;
      // Plans name a table by its alias in the query (`sessions s` scans as `SCAN s`).
      const aliases = new Map<string, string>();
      for (const m of text.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+(\w+)(?:\s+(?!ON\b|WHERE\b|SET\b|JOIN\b|USING\b|CROSS\b)(\w+))?/gi)) aliases.set((m[2] ?? m[1]) as string, m[1] as string);
      // The tables of one loop nest are siblings in the plan; each part of a compound query (UNION ALL) is a nest of
      // its own.
      const loops = new Map<number, number>();
      for (const step of plan) {
        // A full scan, or a search bounded only by the team or the repo: both read a share of history that grows.
        // Inside a loop (any table after the first), a time range bounds nothing either: it is read once per row
        // of the outer table.
        const m = /^(SCAN|SEARCH) (\w+)(?: USING (?:COVERING |PRIMARY )?(?:INDEX|KEY)(?: \w+)? \(([^)]*)\))?/.exec(step.detail);
        if (m === null) continue;
        const nested = (loops.get(step.parent) ?? 0) > 0;
        loops.set(step.parent, (loops.get(step.parent) ?? 0) + 1);
        const table = aliases.get(m[2] as string) ?? (m[2] as string);
        if (!GROWING.includes(table)) continue;
        const bounds = (m[3] ?? "")
          .split(" AND ")
          .map((b) => b.replace(/[=<>?].*$/, "").trim())
          .filter((b) => b !== "");
        const loose = nested ? ["team_id", "repo_id", "created_at", "updated_at", "last_seen_at"] : ["team_id", "repo_id"];
        const wholeShare = m[1] === "SCAN" || bounds.every((b) => loose.includes(b));
        if (wholeShare) scans.push(`${step.detail} (${table})  <=  ${text.replace(/\s+/g, " ").slice(0, 160)}`);
      }
    }
    raw.close();
    db = await openDatabase(path.join(dir, "c.sqlite"), { configDir: dir, cwd: dir });
    expect(scans).toEqual([]);
  });
});
