import { createHash, randomBytes } from "node:crypto";
import { DEFAULT_LEASE_MS, evaluateEvent } from "../coordination/evaluate-event.js";
import type { EvaluateRequest } from "../coordination/wire.js";
import type { Database } from "../store/database.js";

/** Thrown inside a warm-up's transaction to undo it. */
class Undone {}

/**
 * Runs two sessions' worth of every kind of event on each of a server's database connections before it takes
 * requests, for a team made for the purpose, each connection's in one transaction that is rolled back: nothing is
 * recorded, nobody is told, no number is used up. A replica that started cold (just deployed, or restarted after a
 * crash) met each kind of event for the first time under load, with its statements not yet prepared on that
 * connection and its code not yet compiled, and answered the first of each kind many times slower while a queue
 * built behind them. Whether it succeeds changes nothing but the first answers' speed: a failure is returned, for the
 * caller to log, never thrown.
 */
export async function warmUp(db: Pick<Database, "transaction">, connections: number, now: number): Promise<Error | null> {
  const nonce = randomBytes(6).toString("hex");
  const outcomes = await Promise.all(
    Array.from({ length: Math.max(1, connections) }, async (_, i) => {
      const team = { id: `comity-warm-up-${nonce}-${i}` };
      try {
        await db.transaction(`comity:warm-up:${team.id}`, async (sql) => {
          await sql.run("INSERT INTO teams (id, name, policy, created_at) VALUES (?, ?, 'first_contact', ?)", [team.id, team.id, now]);
          for (const request of warmUpEvents(team.id)) await evaluateEvent(sql, team, request, { now, leaseMs: DEFAULT_LEASE_MS });
          throw new Undone();
        });
        return null;
      } catch (error) {
        if (error instanceof Undone) return null;
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  return outcomes.find((o) => o !== null) ?? null;
}

/**
 * Two sessions in one repo meeting on a file and a function, through every kind of event (dry runs: the team's
 * counters are taken inside the transaction, so its rollback undoes them too).
 */
export function warmUpEvents(seed: string): EvaluateRequest[] {
  const repo = { remote_fingerprints: [createHash("sha256").update(`comity-warm-up:${seed}`).digest("hex")], branch: "main", head_sha: null };
  const session = (s: string) => ({ external_id: `${seed}-${s}`, tool: "claude_code" });
  const change = (compatibility: "breaking" | "compatible") => [
    {
      path: "src/lib.ts",
      symbols: [{ name: "parse", qualified_name: "parse", kind: "function", exported: true }],
      changes: [{ qualified_name: "parse", kind: "function", change: "modified", renamed_from: null, exported: true, compatibility, reasons: [] }],
    },
  ];
  const uses = [{ path: "src/main.ts", name: "parse", module: "./lib" }];
  type Event = Omit<EvaluateRequest, "dedupe_key" | "dry_run" | "repo">;
  const events: Event[] = [
    { event: "session_start", session: session("a") },
    { event: "session_start", session: session("b") },
    { event: "prompt", session: session("a"), prompt_excerpt: "go on" },
    { event: "plan", session: session("a"), plan_text: "change parse in src/lib.ts" },
    { event: "post_edit", session: session("b"), paths: ["src/main.ts"], analysis: [{ path: "src/main.ts", references: [{ kind: "import", name: "parse", module: "./lib" }] }] },
    { event: "pre_edit", session: session("a"), paths: ["src/lib.ts"] },
    { event: "post_edit", session: session("a"), paths: ["src/lib.ts"], analysis: change("breaking") },
    { event: "pre_edit", session: session("b"), paths: ["src/main.ts"], uses },
    { event: "pre_edit", session: session("b"), paths: ["src/lib.ts"], uses },
    { event: "pre_shell", session: session("b"), shell: { command: "sed -i s/a/b/ src/main.ts", paths: ["src/main.ts"], unresolved: 0 } },
    { event: "post_edit", session: session("b"), paths: ["src/lib.ts"], analysis: change("compatible") },
    { event: "prompt", session: session("a"), prompt_excerpt: "go on" },
    { event: "stop", session: session("a") },
    { event: "session_end", session: session("b") },
  ];
  return events.map((e, k) => ({ ...e, repo, dedupe_key: `${seed}-${k}`, dry_run: true }));
}
