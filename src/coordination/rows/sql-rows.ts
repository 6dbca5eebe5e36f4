import type { Coordination } from "../coordination.js";
import { compareStrings } from "../../errors/diagnostic.js";
import { first, marks, type Sql, type TeamCounter } from "../../store/database.js";

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
 * The first of `count` new numbers of the team's counter. Taken outside the event's transaction where the storage
 * can; a dry run, which is rolled back, takes them inside it, so that it uses up no number; so does an event whose
 * storage could not take them outside (its counters' connection lost): slower under load, never wrong.
 */
export async function nextNumber(c: Coordination, counter: TeamCounter, count = 1): Promise<number> {
  if (c.sql.nextNumbers !== undefined && c.request.dry_run !== true) {
    const n = await c.sql.nextNumbers(counter, c.teamId, count).catch(() => null);
    if (n !== null) return n;
  }
  const row = await first<{ n: number }>(c.sql, `UPDATE teams SET ${counter} = ${counter} + ? WHERE id = ? RETURNING ${counter} - ? AS n`, [count, c.teamId, count]);
  return Number(row?.n);
}
