import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStoredSignIns, signInHash } from "../../src/dashboard/sign-ins.js";
import type { Database } from "../../src/store/database.js";
import { migrate, MIGRATIONS } from "../../src/store/migrations.js";
import { createToken, hashToken } from "../../src/serve/teams.js";
import { STORAGES } from "../helpers/serve-fixture.js";

// The dashboard's sign-ins as the replicas of a server share them: in the database, by their id's hash, bounded, and
// ended for every replica by a sign-out or a revoked token.
describe.each(STORAGES)("stored sign-ins: $name", (storage) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let t = 1_000_000;
  const now = () => t;
  beforeEach(async () => {
    ({ db, cleanup } = await storage.open());
  });
  afterEach(async () => cleanup());

  it("reads on one replica what another wrote, never stores the id, expires, and ends by sign-out or token", async () => {
    const { team, token } = await createToken(db, "acme", now);
    const key = hashToken(token);
    const [r1, r2] = [createStoredSignIns(db, now, { ttlMs: 1000, perKey: 3, total: 100 }), createStoredSignIns(db, now, { ttlMs: 1000, perKey: 3, total: 100 })];
    const id = await r1.start({ id: team.id, name: team.name, readOnly: true }, key);
    expect(await r2.get(id)).toMatchObject({ teamId: team.id, team: "acme", readOnly: true, key });
    const rows = await db.read((sql) => sql.all<{ id_hash: string }>("SELECT id_hash FROM dashboard_sign_ins"));
    expect(rows.map((r) => r.id_hash)).toEqual([signInHash(id)]);
    expect(JSON.stringify(rows)).not.toContain(id);
    t += 1001;
    expect(await r2.get(id)).toBeNull();
    const a = await r1.start({ id: team.id, name: team.name, readOnly: false }, key);
    const b = await r1.start({ id: team.id, name: team.name, readOnly: false }, null);
    await r2.end(b);
    expect([(await r1.get(a)) !== null, await r1.get(b)]).toEqual([true, null]);
    await r2.endKey(key);
    expect(await r1.get(a)).toBeNull();
  });

  it("holds a token to its newest perKey sign-ins and all of them to total, whichever replica started them", async () => {
    const { team, token } = await createToken(db, "acme", now);
    const limits = { ttlMs: 60_000, perKey: 2, total: 3 };
    const replicas = [createStoredSignIns(db, now, limits), createStoredSignIns(db, now, limits)];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t += 1;
      ids.push(await (replicas[i % 2] as (typeof replicas)[0]).start({ id: team.id, name: team.name, readOnly: false }, hashToken(token)));
    }
    expect(await Promise.all(ids.map(async (id) => (await replicas[0]?.get(id)) !== null))).toEqual([false, true, true]);
    for (let i = 0; i < 3; i++) {
      t += 1;
      ids.push(await (replicas[1] as (typeof replicas)[0]).start({ id: team.id, name: team.name, readOnly: false }, null));
    }
    const live = await Promise.all(ids.map(async (id) => (await replicas[0]?.get(id)) !== null));
    expect(live.filter(Boolean)).toHaveLength(3);
    expect(live.slice(3)).toEqual([true, true, true]);
  });
});

describe.each(STORAGES)("a rolling upgrade: $name", (storage) => {
  it("the release before runs on a database the newer one migrated: its migrate leaves it as it is", async () => {
    const { db, cleanup } = await storage.open();
    try {
      expect(await migrate(db, Date.now, MIGRATIONS.slice(0, -1))).toBe(MIGRATIONS.length);
      // What the release before does at every request still works on the newer schema.
      const { team } = await createToken(db, "acme");
      expect(team.name).toBe("acme");
    } finally {
      await cleanup();
    }
  });
});

describe("migrations", () => {
  it("only add, since the first: a replica of the release before keeps running beside a newer one", () => {
    for (const [i, m] of MIGRATIONS.entries()) {
      // (an index dropped changes no answer: it only ever made a query faster)
      if (i === 0) continue;
      const statements = m
        .split(";")
        .map((s) => s.replace(/--[^\n]*/g, "").trim())
        .filter((s) => s !== "");
      for (const s of statements) expect(s, `migration ${i + 1}`).toMatch(/^(CREATE TABLE|CREATE INDEX|CREATE UNIQUE INDEX|DROP INDEX|ALTER TABLE \w+ ADD COLUMN|UPDATE|INSERT)\b/);
    }
  });
});
