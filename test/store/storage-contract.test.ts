import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../src/store/database.js";
import { evaluateEvent, evaluateInTransaction, evaluateLockKeys } from "../../src/coordination/evaluate-event.js";
import { listSessions } from "../../src/coordination/list-sessions.js";
import { migrate, MIGRATIONS } from "../../src/store/migrations.js";
import type { EvaluateAnswer, EvaluateRequest } from "../../src/coordination/wire.js";
import { pruneExpired } from "../../src/store/prune.js";
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

  it("denies the second editor of a file once with the whole warning, allows the retry, and tells the first session at its next prompt", async () => {
    const a1 = await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    expect(a1).toMatchObject({ decision: "allow", conflicts: [], intent: { number: 1, ref: "INT-1", status: "active" } });
    clock += 2 * MIN;
    const b = (paths: string[]) =>
      req("B-0192f0c4-long-id", "pre_edit", { paths, session: { external_id: "B-0192f0c4-long-id", tool: "codex", label: "bob-laptop" } } as Partial<EvaluateRequest>, "codex", "feature/x");
    const b1 = await ev(acme, b(["src/b.ts", "src/a.ts"]));
    expect(b1.decision).toBe("block");
    expect(b1.conflicts).toEqual([{ number: 1, ref: "CF-1", kind: "edit_conflict", severity: "block" }]);
    expect(b1.intent).toBeNull(); // a denied edit holds nothing
    expect(b1.inject_context).toBeNull();
    expect(b1.reason).toContain(
      "- CF-1 edit_conflict: `src/a.ts` is also being changed by Claude Code session A (branch `main`), which holds it since 2 min ago; where one of the two edits lands in the file is not known",
    );
    expect(b1.reason).toContain("retry the same change");
    const b2 = await ev(acme, b(["src/b.ts", "src/a.ts"]));
    expect(b2).toMatchObject({ decision: "allow", conflicts: [], intent: { ref: "INT-2" } });
    expect((await ev(acme, b(["src/a.ts"]))).decision).toBe("allow"); // told once
    // The first session hears, at its next prompt, that the second joined it: host, short id, label, branch.
    const a2 = await ev(acme, req("A", "prompt"));
    expect(a2.inject_context).toContain('- CF-2 edit_conflict: Codex session B-0192f0 ("bob-laptop", branch `feature/x`) started editing `src/a.ts`');
    expect((await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("allow");
    expect((await ev(acme, req("A", "prompt"))).inject_context).toBeNull();
  });

  it("does not set an agent against its own subagents, and tells one agent once whichever of its subagents meets a conflict", async () => {
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    const sub = (external: string, parent: string, tool = "claude_code"): EvaluateRequest => ({
      ...req(external, "pre_edit", { paths: ["src/a.ts"] }, tool),
      session: { external_id: external, tool, parent_external_id: parent },
    });
    expect((await ev(acme, sub("A:agent-1", "A"))).decision).toBe("allow");
    expect((await ev(acme, sub("A:agent-2", "A"))).decision).toBe("allow");
    const stranger = await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }, "codex"));
    expect(stranger.decision).toBe("block");
    expect(stranger.conflicts.map((x) => x.kind)).toEqual(["edit_conflict"]); // one agent, one conflict
    expect((await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }, "codex"))).decision).toBe("allow");
    const strangersChild = await ev(acme, sub("B:agent-1", "B", "codex"));
    expect(strangersChild.decision).toBe("allow"); // its parent was told already
  });

  it("applies the team's policy at the next request: advisory warns, block denies a held file every time", async () => {
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts", "src/b.ts"] }));
    await setTeamPolicy(db, "acme", "advisory");
    const advisory = await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }, "codex"));
    expect(advisory).toMatchObject({ decision: "warn", intent: { ref: "INT-2" } });
    expect(advisory.inject_context).toContain("CF-1 edit_conflict: `src/a.ts`");
    await setTeamPolicy(db, "acme", "block");
    for (let i = 0; i < 2; i++) {
      const b = await ev(acme, req("B", "pre_shell", { paths: ["src/b.ts"] }, "codex"));
      expect(b.decision).toBe("block");
      expect(b.conflicts[0]).toMatchObject({ kind: "edit_conflict", severity: "block" });
      expect(b.reason).toContain("policy (block)");
      expect(b.intent).toBeNull();
    }
    // A file a subagent holds is denied every time too, and each denial names it (its conflict stands for the
    // subagent's whole family).
    const sub: EvaluateRequest = { ...req("A:agent-1", "pre_edit", { paths: ["src/c.ts"] }), session: { external_id: "A:agent-1", tool: "claude_code", parent_external_id: "A" } };
    await ev(acme, sub);
    for (let i = 0; i < 2; i++) {
      const b = await ev(acme, req("B", "pre_edit", { paths: ["src/c.ts"] }, "codex"));
      expect(b.decision).toBe("block");
      expect(b.reason).toContain("edit_conflict: `src/c.ts` is also being changed by Claude Code session A:agent-1");
    }
    // The holder is never locked out of its own file.
    expect((await ev(acme, req("A", "pre_edit", { paths: ["src/b.ts"] }))).decision).not.toBe("block");
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
    await ev(acme, req("A", "stop", { status: { excerpt: "done with a", files: [] } }));
    expect((await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("allow");
    await ev(acme, req("A", "session_end"));
    expect((await sessions(acme)).map((s) => s.external_id)).toEqual(["B"]);

    // B's intent slides with its activity; C arrives after B has been silent for longer than the lease.
    clock += 8 * MIN;
    await ev(acme, req("B", "prompt", { prompt_excerpt: "go on" } as Partial<EvaluateRequest>));
    clock += 8 * MIN; // 16 min after the intent, 8 after B's last event: still held
    expect((await ev(acme, req("C", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("block");
    clock += 11 * MIN; // B silent 19 min: gone
    expect((await ev(acme, req("C", "pre_edit", { paths: ["src/a.ts"] }))).decision).toBe("allow");
    expect((await sessions(acme)).map((s) => s.external_id)).toEqual(["C"]);
    // When B comes back, the intent it held before falling silent does not hold again.
    await ev(acme, req("B", "prompt"));
    expect((await sessions(acme)).find((s) => s.external_id === "B")?.intents).toEqual([]);
    const d = await ev(acme, req("D", "pre_edit", { paths: ["src/a.ts"] }));
    expect(d.reason).toContain("Claude Code session C ");
    expect(d.reason).not.toContain("session B ");
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

  it("keeps a write left for the commit as it was given, and drops it with a transaction that fails", async () => {
    // (quotes, a backslash, a placeholder's character, a NUL-free line break and text beyond ASCII, as a response or a path may hold)
    const odd = `it's a \\ back'slash "quoted" ? $1 \n é 🙂`;
    const write = async (key: string, fail: boolean): Promise<void> => {
      await db
        .transaction(`test:${key}`, async (sql) => {
          const params = [acme.id, key, odd, clock];
          const text = "INSERT INTO dedupe (team_id, key, response, created_at) VALUES (?, ?, ?, ?)";
          if (sql.runAtCommit !== undefined) sql.runAtCommit(text, params);
          else await sql.run(text, params);
          if (fail) throw new Error("the transaction fails after the write was asked for");
        })
        .catch((error: Error) => {
          if (!fail) throw error;
        });
    };
    await write("kept", false);
    await write("dropped", true);
    const rows = await db.read((sql) =>
      sql.all<{ key: string; response: string; created_at: number }>("SELECT key, response, created_at FROM dedupe WHERE key IN (?, ?) ORDER BY key", ["kept", "dropped"]),
    );
    expect(rows).toEqual([{ key: "kept", response: odd, created_at: clock }]);
  });

  it("prunes what has outlived its use and keeps the rest", async () => {
    // B imports f from ./a; A holds src/a.ts, breaks f (a conflict for B, and one for A), and ends its turn.
    await ev(acme, req("B", "post_edit", { paths: ["src/b.ts"], analysis: [{ path: "src/b.ts", references: [{ kind: "import", name: "f", module: "./a" }] }] }, "codex"));
    const r = req("A", "pre_edit", { paths: ["src/a.ts"] });
    await ev(acme, r);
    const broke = await ev(acme, req("A", "post_edit", { analysis: [{ path: "src/a.ts", changes: [{ qualified_name: "f", kind: "function", change: "removed", compatibility: "breaking" }] }] }));
    expect(broke.conflicts.map((x) => x.kind)).toEqual(["breaking_change"]);
    await ev(acme, req("A", "stop"));
    await ev(acme, req("B", "prompt", {}, "codex")); // B is told
    const count = (table: string) => db.read(async (sql) => Number((await sql.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.n));
    const tables = ["sessions", "intents", "intent_paths", "session_files", "session_uses", "conflicts", "symbol_changes", "dedupe"];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
    expect(await pruneExpired(db, clock)).toBe(0);
    expect(await counts()).toEqual({ sessions: 2, intents: 1, intent_paths: 1, session_files: 2, session_uses: 1, conflicts: 2, symbol_changes: 1, dedupe: 5 });
    clock += 25 * 60 * MIN;
    // A day on: the dedupe keys, and the released intent with its path.
    expect(await pruneExpired(db, clock)).toBe(5 + 1 + 1);
    expect(await counts()).toEqual({ sessions: 2, intents: 0, intent_paths: 0, session_files: 2, session_uses: 1, conflicts: 2, symbol_changes: 1, dedupe: 0 });
    // A key a day old is applied again: a retry never comes that late.
    expect((await ev(acme, r)).intent?.ref).toBe("INT-2");
    clock += 7 * 24 * 60 * MIN + MIN;
    await pruneExpired(db, clock);
    // Over a week of silence: each session goes with everything of its own.
    expect(await counts()).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
  });

  it("prunes an intent released a day ago while its session still works, and only then", async () => {
    await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }));
    await ev(acme, req("A", "stop"));
    const intents = () => db.read(async (sql) => Number((await sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM intents"))[0]?.n));
    clock += 23 * 60 * MIN;
    await ev(acme, req("A", "prompt"));
    expect(await pruneExpired(db, clock)).toBeGreaterThanOrEqual(0);
    expect(await intents()).toBe(1);
    // No session is silent for a day (A worked an hour ago), but the intent was released over a day ago.
    clock += 2 * 60 * MIN;
    await pruneExpired(db, clock);
    expect(await intents()).toBe(0);
  });

  it("tells the sessions whose files import a symbol about its breaking change (both orders), once, and withdraws it when reverted", async () => {
    const math = (changes: unknown[]) =>
      ({
        paths: ["src/math.ts"],
        analysis: [{ path: "src/math.ts", symbols: [{ name: "add", qualified_name: "add", kind: "function", exported: true }], changes, references: [] }],
      }) as Partial<EvaluateRequest>;
    const breakAdd = {
      qualified_name: "add",
      kind: "function",
      change: "signature_changed",
      renamed_from: null,
      exported: true,
      compatibility: "breaking" as const,
      reasons: [{ code: "PARAMETER_ADDED_REQUIRED", message: "required parameter c added" }],
    };
    // B imports add from ./math in src/use.ts (every import of an edited file counts, not only new ones).
    await ev(
      acme,
      req(
        "B",
        "post_edit",
        {
          paths: ["src/use.ts"],
          analysis: [
            {
              path: "src/use.ts",
              symbols: [],
              changes: [],
              references: [
                { kind: "import", name: "add", module: "./math.js" },
                { kind: "call", name: "add", module: null },
              ],
            },
          ],
        },
        "claude_code",
        "feature/use",
      ),
    );
    clock += MIN;
    const a = await ev(acme, req("A", "post_edit", math([breakAdd]), "codex", "main"));
    expect(a.decision).toBe("warn");
    expect(a.inject_context).toContain(
      "your change to `add` (PARAMETER_ADDED_REQUIRED: required parameter c added) in `src/math.ts` breaks code of Claude Code session B (branch `feature/use`), which uses it in `src/use.ts`",
    );
    const p1 = await ev(acme, req("B", "prompt", {}, "claude_code", "feature/use"));
    expect(p1.inject_context).toContain(
      "breaking_change: `add` in `src/math.ts` was changed incompatibly by Codex session A (branch `main`): PARAMETER_ADDED_REQUIRED: required parameter c added (local, not committed). Your code uses it in `src/use.ts`.",
    );
    expect((await ev(acme, req("B", "prompt", {}, "claude_code", "feature/use"))).inject_context).toBeNull();
    // The other order: C, on Copilot CLI (which shows no context), is about to edit a file importing add: denied once.
    const c1 = await ev(acme, req("C", "pre_edit", { paths: ["src/c.ts"], uses: [{ path: "src/c.ts", name: "add", module: "./math" }] }, "copilot"));
    expect(c1.decision).toBe("block");
    expect(c1.reason).toContain("breaking_change: `add` in `src/math.ts`");
    expect((await ev(acme, req("C", "pre_edit", { paths: ["src/c.ts"] }, "copilot"))).decision).toBe("allow");
    // A file that merely has a local function of the same name, or imports it from elsewhere, is not a user.
    expect((await ev(acme, req("D", "pre_edit", { paths: ["src/d.ts"], uses: [{ path: "src/d.ts", name: "add", module: "lodash" }] }))).decision).toBe("allow");
    // E imports it too, but A reverts before E is told: the notice is withdrawn.
    await ev(acme, req("E", "post_edit", { paths: ["src/e.ts"], analysis: [{ path: "src/e.ts", references: [{ kind: "import", name: "*", module: "./math" }] }] }));
    await ev(acme, req("A", "post_edit", math([]), "codex", "main"));
    expect((await ev(acme, req("E", "prompt"))).inject_context).toBeNull();
    // A newcomer is briefed on who is active; the reverted change is no longer news.
    const brief = await ev(acme, req("N", "session_start"));
    expect(brief.inject_context).toContain("Claude Code session B (branch `feature/use`), since 1 min ago; files `src/use.ts`");
    expect(brief.inject_context).not.toContain("Breaking changes in the last");
  });

  it("says a file that stopped parsing once, and never counts its symbols as removed", async () => {
    await ev(acme, req("B", "post_edit", { paths: ["src/use.ts"], analysis: [{ path: "src/use.ts", references: [{ kind: "import", name: "add", module: "./math" }] }] }));
    const broken = { paths: ["src/math.ts"], analysis: [{ path: "src/math.ts", changes: [], parse_error: true }] } as Partial<EvaluateRequest>;
    const a1 = await ev(acme, req("A", "post_edit", broken));
    expect(a1.inject_context).toContain("`src/math.ts` does not parse now");
    expect((await ev(acme, req("A", "post_edit", broken))).inject_context).toBeNull();
    expect((await ev(acme, req("B", "prompt"))).inject_context).toBeNull();
  });

  it("tells a session that changes the same symbol another changed, when no intent warned it first", async () => {
    const change = { qualified_name: "add", kind: "function", change: "body_changed", compatibility: "internal" as const };
    await ev(acme, req("A", "post_edit", { paths: ["src/math.ts"], analysis: [{ path: "src/math.ts", changes: [change] }] }));
    const b = await ev(acme, req("B", "post_edit", { paths: ["src/math.ts"], analysis: [{ path: "src/math.ts", changes: [change] }] }, "codex", "b"));
    expect(b.conflicts.map((x) => x.kind)).toEqual(["symbol_overlap"]);
    expect(b.inject_context).toContain("you and Claude Code session A (branch `main`) both changed `add`");
  });

  it("applies concurrent events of one team one at a time: every intent gets its own number", async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => ev(acme, req(`S${i % 6}`, "pre_edit", { paths: [`src/f${i}.ts`] }))));
    expect(answers.map((a) => a.intent?.number).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(new Set(answers.map((a) => a.index_version)).size).toBe(24);
    expect((await sessions(acme)).reduce((n, s) => n + s.event_count, 0)).toBe(24);
  });

  it.runIf(storage.name === "postgres")("numbers on when the counters' own connection is lost, and takes it back", async () => {
    expect(await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }))).toMatchObject({ intent: { ref: "INT-1" } });
    // (this test's database only: other test files run on the same PostgreSQL at once, each with its counters)
    const ended = await db.read((sql) => sql.all("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'comity counters' AND datname = current_database()"));
    expect(ended).toHaveLength(1);
    expect(await ev(acme, req("A", "pre_edit", { paths: ["src/b.ts"] }))).toMatchObject({ intent: { ref: "INT-2" } });
    expect(await ev(acme, req("A", "pre_edit", { paths: ["src/c.ts"] }))).toMatchObject({ intent: { ref: "INT-3" } });
    const back = await db.read((sql) => sql.all("SELECT pid FROM pg_stat_activity WHERE application_name = 'comity counters' AND datname = current_database()"));
    expect(back).toHaveLength(1);
  });

  it("numbers what is recorded only: a dry run, rolled back, uses up no number", async () => {
    const dry = await evaluateInTransaction(db, acme, req("A", "pre_edit", { paths: ["src/a.ts"], dry_run: true }), { now: clock, leaseMs: LEASE });
    expect(dry.intent).toMatchObject({ ref: "INT-1" });
    expect(await ev(acme, req("A", "pre_edit", { paths: ["src/a.ts"] }))).toMatchObject({ intent: { ref: "INT-1" } });
    const dryConflict = await evaluateInTransaction(db, acme, req("B", "pre_edit", { paths: ["src/a.ts"], dry_run: true }), { now: clock, leaseMs: LEASE });
    expect(dryConflict.conflicts).toMatchObject([{ ref: "CF-1" }]);
    expect(await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }))).toMatchObject({ decision: "block", conflicts: [{ ref: "CF-1" }] });
    expect(await ev(acme, req("B", "pre_edit", { paths: ["src/a.ts"] }))).toMatchObject({ decision: "allow", intent: { ref: "INT-2" } });
  });
});
