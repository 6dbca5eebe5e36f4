import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_MS, evaluateEvent, evaluateLockKeys } from "../../src/coordination/evaluate-event.js";
import { warmUp, warmUpEvents } from "../../src/serve/warm-up.js";
import { createToken } from "../../src/serve/teams.js";
import type { Database } from "../../src/store/database.js";
import { STORAGES } from "../helpers/serve-fixture.js";

const TABLES = ["teams", "tokens", "sessions", "intents", "intent_paths", "notices", "conflicts", "symbol_changes", "session_files", "session_events", "dedupe", "repos"];

describe.each(STORAGES)("a server warmed before it takes requests: $name", (storage) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ db, cleanup } = await storage.open());
  });
  afterEach(async () => cleanup());

  const counts = (): Promise<Record<string, number>> =>
    db.read(async (sql) => {
      const out: Record<string, number> = {};
      for (const t of TABLES) out[t] = Number((await sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))[0]?.n);
      out["next_intent"] = Number((await sql.all<{ n: number }>("SELECT MAX(next_intent) AS n FROM teams"))[0]?.n ?? 0);
      return out;
    });

  it("runs every kind of event on each connection and leaves nothing behind: no row, no number used", async () => {
    await createToken(db, "acme", () => 1_000);
    const before = await counts();
    expect(await warmUp(db, 3, Date.UTC(2026, 11, 6))).toBeNull();
    expect(await counts()).toEqual(before);
  });

  it("is two sessions that meet: run for real, its events record intents and tell of a breaking change and an edit conflict", async () => {
    const { team } = await createToken(db, "acme", () => 1_000);
    const kinds = new Set<string>();
    const conflicts = new Set<string>();
    for (const event of warmUpEvents("real")) {
      const request = { ...event, dry_run: false };
      kinds.add(request.event);
      const answer = await db.transaction(evaluateLockKeys(team, request), (sql) => evaluateEvent(sql, team, request, { now: Date.UTC(2026, 11, 6), leaseMs: DEFAULT_LEASE_MS }));
      for (const c of answer.conflicts) conflicts.add(c.kind);
    }
    expect([...kinds].sort()).toEqual(["plan", "post_edit", "pre_edit", "pre_shell", "prompt", "session_end", "session_start", "stop"]);
    expect([...conflicts].sort()).toEqual(expect.arrayContaining(["breaking_change", "edit_conflict"]));
    expect((await counts())["intents"]).toBeGreaterThan(0);
  });

  it("says a failure instead of throwing it: the server starts all the same", async () => {
    const broken: Pick<Database, "transaction"> = { transaction: () => Promise.reject(new Error("connection refused")) };
    expect((await warmUp(broken, 2, 0))?.message).toBe("connection refused");
  });
});
