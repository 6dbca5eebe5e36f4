import type { Coordination } from "../coordination.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { first, marks, type Sql } from "../../store/database.js";

/** Rows per INSERT: well inside SQLite's 32,766 parameters and PostgreSQL's 65,535 for our widest table. */
export const ROWS_PER_INSERT = 500;

/** One multi-row `INSERT … VALUES (…), (…) [suffix]` per chunk of rows: one round trip instead of one a row. */
export async function insertRows(sql: Sql, head: string, rows: ReadonlyArray<readonly unknown[]>, suffix = ""): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    const values = chunk.map((r) => `(${marks(r)})`).join(", ");
    await sql.run(`${head} ${values}${suffix === "" ? "" : ` ${suffix}`}`, chunk.flat());
  }
}

/** Rows without repeats (PostgreSQL refuses an INSERT … ON CONFLICT that touches one row twice). */
export function uniqueRows(rows: readonly unknown[][]): unknown[][] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = JSON.stringify(r.slice(0, 4));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

/**
 * The first of `count` new numbers of the team's counter: intents (`INT-n`), conflicts (`CF-n`). Committed at once
 * where the storage can, so that no event's transaction holds the team's counter row, and every other event of the
 * team that numbers something, until it ends (a number taken by a transaction that then fails is not given again: a
 * gap, as with any database sequence). A dry run, which is rolled back, takes them inside its transaction, so that it
 * uses up no number; so does an event whose storage could not commit them apart (its connection for that lost):
 * slower under load, never wrong.
 */
export async function nextNumber(c: Coordination, counter: "next_intent" | "next_conflict", count = 1): Promise<number> {
  // (the counter is one of two column names, never input)
  const text = `UPDATE teams SET ${counter} = ${counter} + ? WHERE id = ? RETURNING ${counter} - ? AS n`;
  const params = [count, c.teamId, count];
  if (c.sql.committedAtOnce !== undefined && c.request.dry_run !== true) {
    const row = (await c.sql.committedAtOnce<{ n: number }>(text, params).catch(() => []))[0];
    if (row !== undefined) return Number(row.n);
  }
  const row = await first<{ n: number }>(c.sql, text, params);
  return Number(row?.n);
}
