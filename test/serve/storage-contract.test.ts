import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../src/serve/database.js";
import { evaluateEvent, evaluateLockKeys } from "../../src/coordination/evaluate-event.js";
import { listSessions } from "../../src/serve/list-sessions.js";
import { migrate, MIGRATIONS } from "../../src/serve/migrations.js";
import type { EvaluateAnswer, EvaluateRequest } from "../../src/coordination/wire.js";
import { pruneExpired } from "../../src/serve/prune.js";
import { createToken, hashToken, setTeamPolicy, teamForToken, type Team } from "../../src/serve/teams.js";
import { FP, STORAGES } from "../helpers/serve-fixture.js";


const MIN = 60_000;
const LEASE = 10 * MIN;
const REPO = FP("acme/api");

describe.each(STORAGES)("storage contract: $name", (storage) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let clock: number;
  let acme: Team;
  let acmeToken: string;
  let seq = 0;

  beforeEach(async () => {
    ({ db, cleanup } = await storage.open());
    clock = Date.UTC(2026, 10, 30, 9, 0, 0);
    ({ team: acme, token: acmeToken } = await createToken(db, "acme", () => clock));
  });
  afterEach(async () => cleanup());

  const req = (session: string, event: EvaluateRequest["event"], extra: Partial<EvaluateRequest> = {}, tool = "claude_code", branch = "main"): EvaluateRequest => ({
    event,
    dedupe_key: `k-${++seq}`,
    session: { external_id: session, tool },
    repo: { remote_fingerprints: [REPO], branch, head_sha: null },
    ...extra,
  });
  const ev = (team: Team, r: EvaluateRequest): Promise<EvaluateAnswer> => db.transaction(evaluateLockKeys(team, r), (sql) => evaluateEvent(sql, team, r, { now: clock, leaseMs: LEASE }));
  const sessions = (team: Team) => db.read((sql) => listSessions(sql, team, { now: clock, leaseMs: LEASE }));

  it("migrates once: a second run changes nothing", async () => {
    expect(await migrate(db)).toBe(MIGRATIONS.length);
    expect(await migrate(db)).toBe(MIGRATIONS.length);
  });

  it("stores tokens hashed and resolves them to their team only", async () => {
    const rows = await db.read((sql) => sql.all<{ hash: string }>("SELECT hash FROM tokens"));
    expect(rows.map((r) => r.hash)).toEqual([hashToken(acmeToken)]);
    expect(JSON.stringify(rows)).not.toContain(acmeToken);
    expect((await db.read((sql) => teamForToken(sql, acmeToken)))?.name).toBe("acme");
    expect(await db.read((sql) => teamForToken(sql, `${acmeToken}x`))).toBeUndefined();
    const second = await createToken(db, "acme");
    expect(second.team.id).toBe(acme.id);
    expect(second.token).not.toBe(acmeToken);
    await expect(createToken(db, "bad name!")).rejects.toThrow(/team name/);
  });

  it("warns the second editor of a file, naming the first session, its host and branch, and keeps conflict numbers stable", async () => {
    const a1 = await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    expect(a1).toMatchObject({ decision: "allow", conflicts: [], intent: { number: 1, ref: "INT-1", status: "active" } });
    clock += 2 * MIN;
    const b1 = await ev(acme, req("B-0192f0c4-long-id", "pre_edit", { paths: ["src/b.ts", "src/a.ts"] }, "codex", "feature/x"));
    expect(b1.decision).toBe("warn");
    expect(b1.conflicts).toEqual([{ number: 1, ref: "CF-1", kind: "file_overlap", severity: "warn" }]);
    expect(b1.intent?.ref).toBe("INT-2");
    expect(b1.inject_context).toContain("`src/a.ts` is also being edited by claude_code session A (branch `main`), intent INT-1 since 2 min ago");
    expect(b1.reason).toMatch(/^1 coordination warning\(s\)/);
    const b2 = await ev(acme, req("B-0192f0c4-long-id", "pre_edit", { paths: ["src/a.ts"] }, "codex", "feature/x"));
    expect(b2.conflicts.map((c) => c.ref)).toEqual(["CF-1"]);
    expect(b2.intent?.ref).toBe("INT-3");
    // And the first session now hears about the second one, on its own conflict number.
    const a2 = await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    expect(a2.inject_context).toContain("codex session B-0192f0 (branch `feature/x`)");
    expect(a2.conflicts.map((c) => c.ref)).toEqual(["CF-2"]);
  });

  it("does not set an agent against its own subagents", async () => {
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    const sub = (external: string, parent: string, tool = "claude_code"): EvaluateRequest => ({ ...req(external, "pre_edit", { paths: ["src/a.ts"] }, tool), session: { external_id: external, tool, parent_external_id: parent } });
    const child = await ev(acme, sub("A:agent-1", "A"));
    expect(child.decision).toBe("allow");
    const sibling = await ev(acme, sub("A:agent-2", "A"));
    expect(sibling.decision).toBe("allow");
    const stranger = await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }, "codex"));
    expect(stranger.conflicts.map((x) => x.kind)).toEqual(["file_overlap", "file_overlap", "file_overlap"]);
    const strangersChild = await ev(acme, sub("B:agent-1", "B", "codex"));
    expect(strangersChild.inject_context).toContain("claude_code session A ");
    expect(strangersChild.inject_context).not.toContain("codex session B ");
  });

  it("blocks only when the team's policy says so", async () => {
    await setTeamPolicy(db, "acme", "block");
    const blocking = { ...acme, policy: "block" as const };
    await ev(blocking, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    const b = await ev(blocking, req("B", "pre_shell", { paths: ["src/a.ts"] }, "codex"));
    expect(b.decision).toBe("block");
    expect(b.conflicts[0]).toMatchObject({ kind: "file_overlap", severity: "block" });
    expect(b.reason).toContain("blocked by the team's policy");
    await expect(setTeamPolicy(db, "nobody", "block")).rejects.toThrow(/no team named/);
  });

  it("keeps teams apart even for the same repo fingerprint", async () => {
    const { team: other } = await createToken(db, "other");
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    const o = await ev(other, req("O", "pre_edit", { paths: ["src/a.ts"] }));
    expect(o.decision).toBe("allow");
    expect(o.intent?.ref).toBe("INT-1"); // numbers are per team
    const start = await ev(other, req("O2", "session_start"));
    expect(start.inject_context).toContain("session O ");
    expect(start.inject_context).not.toContain("session A ");
    expect((await sessions(acme)).map((s) => s.external_id)).toEqual(["A"]);
    expect((await sessions(other)).map((s) => s.external_id)).toEqual(["O", "O2"]);
  });

  it("releases intents at stop, ends sessions at session_end, and expires silent sessions after the lease", async () => {
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    await ev(acme, req("A", "stop", { status: { excerpt: "done with a", files: ["src/a.ts"] } }));
    expect((await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("allow");
    await ev(acme, req("A", "session_end"));
    expect((await sessions(acme)).map((s) => s.external_id)).toEqual(["B"]);

    // B's intent slides with its activity; C arrives after B has been silent for longer than the lease.
    clock += 8 * MIN;
    await ev(acme, req("B", "prompt", { prompt_excerpt: "go on" } as Partial<EvaluateRequest>));
    clock += 8 * MIN; // 16 min after the intent, 8 after B's last event: still held
    expect((await ev(acme, req("C", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("warn");
    clock += 11 * MIN; // B silent 19 min: gone
    expect((await ev(acme, req("C", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("allow");
    expect((await sessions(acme)).map((s) => s.external_id)).toEqual(["C"]);
    // When B comes back, the intent it held before falling silent does not hold again.
    await ev(acme, req("B", "prompt"));
    expect((await sessions(acme)).find((s) => s.external_id === "B")?.intents).toEqual([]);
    const d = await ev(acme, req("D", "pre_edit", { paths: ["src/a.ts"] }));
    expect(d.inject_context).toContain("claude_code session C ");
    expect(d.inject_context).not.toContain("session B ");
  });

  it("replays a dedupe key's first answer without applying the event again", async () => {
    const r = req("A", "pre_edit", { paths: ["src/a.ts"] });
    const first = await ev(acme, r);
    clock += MIN;
    const again = await ev(acme, r);
    expect(again).toEqual(first);
    expect((await sessions(acme))[0]).toMatchObject({ event_count: 1, intents: [{ ref: "INT-1", paths: ["src/a.ts"] }] });
    const next = await ev(acme, req("A", "plan"));
    expect(next.index_version).toBe(first.index_version + 1);
  });

  it("prunes what has outlived its use and keeps the rest", async () => {
    // B uses f; A holds src/a.ts, breaks f (a notice and a conflict for B), and ends its turn.
    await ev(acme, req("B", "post_edit", { paths: ["src/b.ts"], analysis: [{ path: "src/b.ts", new_references: [{ kind: "call", name: "f", module: "./a" }] }] }, "codex"));
    const r = req("A", "pre_edit", { paths: ["src/a.ts"] });
    await ev(acme, r);
    const broke = await ev(acme, req("A", "post_edit", { analysis: [{ path: "src/a.ts", changes: [{ qualified_name: "f", kind: "function", change: "removed", compatibility: "breaking" }] }] }));
    expect(broke.conflicts.map((x) => x.kind)).toEqual(["breaking_change"]);
    await ev(acme, req("A", "stop"));
    await ev(acme, req("B", "prompt", {}, "codex")); // the notice is delivered
    const count = (table: string) => db.read(async (sql) => Number((await sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.n));
    const tables = ["sessions", "intents", "intent_paths", "session_files", "session_references", "notices", "conflicts", "symbol_changes", "dedupe"];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    expect(await pruneExpired(db, clock)).toBe(0);
    expect(await counts()).toEqual({ sessions: 2, intents: 1, intent_paths: 1, session_files: 2, session_references: 1, notices: 1, conflicts: 1, symbol_changes: 1, dedupe: 5 });
    clock += 25 * 60 * MIN;
    // A day on: the dedupe keys, the delivered notice, and the released intent with its path.
    expect(await pruneExpired(db, clock)).toBe(5 + 1 + 1 + 1);
    expect(await counts()).toEqual({ sessions: 2, intents: 0, intent_paths: 0, session_files: 2, session_references: 1, notices: 0, conflicts: 1, symbol_changes: 1, dedupe: 0 });
    // A key a day old is applied again: a retry never comes that late.
    expect((await ev(acme, r)).intent?.ref).toBe("INT-2");
    clock += 7 * 24 * 60 * MIN + MIN;
    await pruneExpired(db, clock);
    // Over a week of silence: each session goes with everything of its own.
    expect(await counts()).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
  });

  it("tells the sessions that use a symbol about its breaking change at their next prompt, once", async () => {
    // B newly calls add() from src/use.ts; A then breaks add in src/math.ts.
    await ev(acme, req("B", "post_edit", {
      paths: ["src/use.ts"],
      analysis: [{ path: "src/use.ts", symbols: [], changes: [], new_references: [{ kind: "call", name: "add", module: "./math" }] }],
    }, "claude_code", "feature/use"));
    clock += MIN;
    const a = await ev(acme, req("A", "post_edit", {
      paths: ["src/math.ts"],
      analysis: [{
        path: "src/math.ts",
        symbols: [{ name: "add", qualified_name: "add", kind: "function", exported: true }],
        changes: [{ qualified_name: "add", kind: "function", change: "modified", renamed_from: null, exported: true, compatibility: "breaking", reasons: [{ code: "parameter_added_required", message: "required parameter c added" }] }],
        new_references: [],
      }],
    }, "codex", "main"));
    expect(a.decision).toBe("warn");
    expect(a.conflicts).toEqual([{ number: 1, ref: "CF-1", kind: "breaking_change", severity: "warn" }]);
    expect(a.inject_context).toContain("`add` in `src/math.ts` (required parameter c added) is used by claude_code session B (branch `feature/use`) in `src/use.ts`");
    const p1 = await ev(acme, req("B", "prompt", {}, "claude_code", "feature/use"));
    expect(p1.inject_context).toContain("codex session A (branch `main`) changed `add` in `src/math.ts` incompatibly (required parameter c added); your work uses it in `src/use.ts`");
    expect((await ev(acme, req("B", "prompt", {}, "claude_code", "feature/use"))).inject_context).toBeNull();
    // A compatible change reaches nobody.
    const ok = await ev(acme, req("A", "post_edit", {
      analysis: [{ path: "src/math.ts", changes: [{ qualified_name: "sub", kind: "function", change: "added", compatibility: "compatible" }] }],
    }, "codex"));
    expect(ok.decision).toBe("allow");
    // A newcomer is briefed on both sessions and the breaking change.
    const brief = await ev(acme, req("N", "session_start"));
    expect(brief.inject_context).toContain("claude_code session B (branch `feature/use`), since 1 min ago; files `src/use.ts`");
    expect(brief.inject_context).toContain("codex session A (branch `main`), since just now; files `src/math.ts`; symbols `add`, `sub`");
    expect(brief.inject_context).toContain("Breaking changes in the last 12 hours:\n- `add` in `src/math.ts` (required parameter c added) by codex session A");
  });

  it("warns of symbol overlap: a file whose exported symbols another session changed or newly uses", async () => {
    await ev(acme, req("A", "post_edit", {
      analysis: [{ path: "src/math.ts", symbols: [{ name: "add", qualified_name: "add", kind: "function", exported: true }, { name: "sub", qualified_name: "sub", kind: "function", exported: true }], changes: [], new_references: [] }],
    }));
    await ev(acme, req("B", "post_edit", { analysis: [{ path: "src/use.ts", new_references: [{ kind: "call", name: "sub", module: "./math" }] }] }, "codex", "b"));
    await ev(acme, req("A", "stop")); // A's intents are released, but B still uses sub()
    const c = await ev(acme, req("C", "pre_edit", { paths: ["src/math.ts"] }, "copilot_cli", "c"));
    expect(c.decision).toBe("warn");
    expect(c.conflicts.map((x) => x.kind)).toEqual(["symbol_overlap"]);
    expect(c.inject_context).toContain("codex session B (branch `b`) is working with `sub` from `src/math.ts`");
  });

  it("applies concurrent events of one team one at a time: every intent gets its own number", async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => ev(acme, req(`S${i % 6}`, "pre_edit", { paths: [`src/f${i}.ts`] }))));
    expect(answers.map((a) => a.intent?.number).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(new Set(answers.map((a) => a.index_version)).size).toBe(24);
    expect((await sessions(acme)).reduce((n, s) => n + s.event_count, 0)).toBe(24);
  });
});

