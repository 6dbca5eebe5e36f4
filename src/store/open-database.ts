import * as path from "node:path";
import { ComityError } from "../errors/comity-error.js";
import { redactUrl, type Database } from "./database.js";
import { migrate } from "./migrations.js";

/**
 * Opens the storage a `--db` value names and brings its schema up to date:
 * `postgres://…` / `postgresql://…` for PostgreSQL; `sqlite:PATH`, a plain
 * path, or nothing (then `<config dir>/serve.sqlite`) for SQLite. A `server` opens all its connections at once.
 */
export async function openDatabase(db: string | undefined, options: { configDir: string; cwd: string; server?: boolean }): Promise<Database> {
  const spec = db ?? "";
  let database: Database;
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    const { openPostgresDatabase } = await import("./postgres-database.js");
    database = await openPostgresDatabase(spec, { openAll: options.server === true }).catch((error: Error) => {
      throw new ComityError("INVALID_ARGUMENT", `cannot connect to PostgreSQL at ${redactUrl(spec)}: ${error.message}`, { cause: error });
    });
  } else {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw new ComityError("INVALID_ARGUMENT", `--db: unsupported URL '${redactUrl(spec)}' (postgres://… or a SQLite file path)`);
    const file = spec === "" ? path.join(options.configDir, "serve.sqlite") : spec === ":memory:" ? spec : path.resolve(options.cwd, spec.replace(/^sqlite:/i, ""));
    const { openSqliteDatabase } = await import("./sqlite-database.js");
    database = await openSqliteDatabase(file).catch((error: Error) => {
      throw new ComityError("INVALID_ARGUMENT", `cannot open the SQLite database ${file}: ${error.message}`, { cause: error });
    });
  }
  try {
    await migrate(database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw new ComityError("INTERNAL", `cannot migrate ${database.location}: ${(error as Error).message}`, { cause: error });
  }
  return database;
}
