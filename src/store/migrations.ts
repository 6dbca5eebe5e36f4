import type { Database } from "./database.js";

/**
 * The schema, one migration per version, in SQL that SQLite and PostgreSQL
 * both accept (no autoincrement: ids are UUIDs or per-team counters). A
 * released migration never changes; a new one is appended.
 *
 * Everything a team owns carries its `team_id`: the same repo fingerprint in
 * two teams is two repos, and no query crosses teams.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    policy TEXT NOT NULL DEFAULT 'advisory',
    next_intent BIGINT NOT NULL DEFAULT 1,
    next_conflict BIGINT NOT NULL DEFAULT 1,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams(id),
    created_at BIGINT NOT NULL
  );
  CREATE TABLE repos (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams(id),
    index_version BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE repo_fingerprints (
    team_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    repo_id TEXT NOT NULL REFERENCES repos(id),
    PRIMARY KEY (team_id, fingerprint)
  );
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams(id),
    repo_id TEXT NOT NULL REFERENCES repos(id),
    external_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    model TEXT,
    parent_external_id TEXT,
    branch TEXT,
    head_sha TEXT,
    status_excerpt TEXT,
    event_count BIGINT NOT NULL DEFAULT 0,
    started_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    turn_ended_at BIGINT,
    ended_at BIGINT,
    UNIQUE (team_id, repo_id, external_id)
  );
  CREATE INDEX sessions_by_repo ON sessions (team_id, repo_id);
  CREATE TABLE intents (
    team_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    repo_id TEXT NOT NULL,
    event TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    released_at BIGINT,
    PRIMARY KEY (team_id, number)
  );
  CREATE INDEX intents_by_session ON intents (session_id, released_at);
  CREATE TABLE intent_paths (
    team_id TEXT NOT NULL,
    intent_number BIGINT NOT NULL,
    repo_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (team_id, intent_number, path)
  );
  CREATE INDEX intent_paths_by_path ON intent_paths (team_id, repo_id, path);
  CREATE TABLE conflicts (
    team_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    session_id TEXT NOT NULL,
    other_session_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, number),
    UNIQUE (team_id, session_id, other_session_id, kind, subject)
  );
  CREATE TABLE session_files (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    path TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, path)
  );
  CREATE TABLE session_references (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    module TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, name, path)
  );
  CREATE INDEX session_references_by_name ON session_references (name);
  CREATE TABLE file_symbols (
    repo_id TEXT NOT NULL REFERENCES repos(id),
    path TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    exported BIGINT NOT NULL,
    PRIMARY KEY (repo_id, path, qualified_name)
  );
  CREATE TABLE symbol_changes (
    team_id TEXT NOT NULL,
    repo_id TEXT NOT NULL REFERENCES repos(id),
    session_id TEXT NOT NULL REFERENCES sessions(id),
    path TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    change TEXT NOT NULL,
    compatibility TEXT NOT NULL,
    summary TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX symbol_changes_by_repo ON symbol_changes (repo_id, created_at);
  CREATE INDEX symbol_changes_by_path ON symbol_changes (repo_id, path);
  CREATE INDEX symbol_changes_by_session ON symbol_changes (session_id);
  CREATE TABLE notices (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    text TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT
  );
  CREATE INDEX notices_by_session ON notices (session_id, delivered_at);
  CREATE INDEX notices_by_delivery ON notices (delivered_at);
  CREATE TABLE dedupe (
    team_id TEXT NOT NULL,
    key TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, key)
  );
  CREATE INDEX dedupe_by_age ON dedupe (created_at);
  CREATE INDEX symbol_changes_by_age ON symbol_changes (created_at);
  `,
  // 2: coordination that tells every affected session once (issue "Coordination that catches the collisions that
  // matter"). Conflicts carry who is told (`role`: the affected session, or the one informed that someone joined),
  // when they were told, and their text; symbol changes their state (local or committed; a reverted one is deleted); what each
  // session's files import is kept whole (session_uses), not only what is new. `first_contact` becomes the default
  // policy: it replaces `advisory`, the only default there was. Tokens get an id people can name in `token
  // revoke` (the first 12 hex digits of the hash for those that exist: the hash is not the secret), a name and
  // when they were last used.
  `
  ALTER TABLE sessions ADD COLUMN label TEXT;
  ALTER TABLE sessions ADD COLUMN cwd_path TEXT;
  ALTER TABLE conflicts ADD COLUMN role TEXT NOT NULL DEFAULT 'affected';
  ALTER TABLE conflicts ADD COLUMN told_at BIGINT;
  ALTER TABLE conflicts ADD COLUMN withdrawn_at BIGINT;
  ALTER TABLE conflicts ADD COLUMN body TEXT NOT NULL DEFAULT '';
  ALTER TABLE conflicts ADD COLUMN paths TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE conflicts ADD COLUMN change_at BIGINT NOT NULL DEFAULT 0;
  CREATE INDEX conflicts_untold ON conflicts (session_id, told_at);
  CREATE INDEX conflicts_by_other ON conflicts (other_session_id, kind);
  ALTER TABLE symbol_changes ADD COLUMN renamed_from TEXT;
  ALTER TABLE symbol_changes ADD COLUMN head_sha TEXT;
  ALTER TABLE symbol_changes ADD COLUMN state TEXT NOT NULL DEFAULT 'local';
  CREATE INDEX symbol_changes_by_session_path ON symbol_changes (session_id, path);
  CREATE TABLE session_uses (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    module TEXT NOT NULL,
    target TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, path, name, module)
  );
  CREATE INDEX session_uses_by_target ON session_uses (target, name);
  CREATE TABLE session_parse_errors (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    path TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, path)
  );
  CREATE INDEX session_files_by_path ON session_files (path);
  DROP INDEX sessions_by_repo;
  CREATE INDEX sessions_active ON sessions (team_id, repo_id, last_seen_at);
  UPDATE teams SET policy = 'first_contact' WHERE policy = 'advisory';
  ALTER TABLE tokens ADD COLUMN id TEXT;
  ALTER TABLE tokens ADD COLUMN name TEXT;
  ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
  UPDATE tokens SET id = substr(hash, 1, 12) WHERE id IS NULL;
  CREATE UNIQUE INDEX tokens_by_id ON tokens (id);
  CREATE INDEX tokens_by_team ON tokens (team_id)
  `,
  // 3: across repos (issue "Across repos"). A symbol change knows its package (`npm:@acme/lib`, `python:acme-lib`)
  // and the names it can be imported under from the package's entry; a use knows the package its module names.
  `
  ALTER TABLE symbol_changes ADD COLUMN package TEXT;
  ALTER TABLE symbol_changes ADD COLUMN public_names TEXT;
  CREATE INDEX symbol_changes_by_package ON symbol_changes (team_id, package, created_at);
  ALTER TABLE session_uses ADD COLUMN package TEXT;
  CREATE INDEX session_uses_by_package ON session_uses (package, name)
  `,
  // 4: the dashboard (issue "A live dashboard"). Each applied event is kept with what the session was told (a
  // session page shows them in order); a repo has a label people can read (its root package's name, when it has
  // one: the server never sees its folder or remote); a token may be read-only (the dashboard's, not the hooks').
  `
  CREATE TABLE session_events (
    team_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    event TEXT NOT NULL,
    decision TEXT NOT NULL,
    refs TEXT NOT NULL DEFAULT '[]',
    paths TEXT NOT NULL DEFAULT '[]'
  );
  CREATE INDEX session_events_by_session ON session_events (session_id, at);
  CREATE INDEX session_events_by_age ON session_events (at);
  ALTER TABLE repos ADD COLUMN label TEXT;
  ALTER TABLE tokens ADD COLUMN read_only BIGINT NOT NULL DEFAULT 0
  `,
  // 5: precise and actionable coordination. A change says whether it is its module's default export, and its
  // signature before and after; an intent's paths and a session's files carry the lines they touch against their
  // base blob (null: not known); a session names its working tree's folder; notices are messages between sessions.
  `
  ALTER TABLE symbol_changes ADD COLUMN default_export BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE symbol_changes ADD COLUMN signature_before TEXT;
  ALTER TABLE symbol_changes ADD COLUMN signature_after TEXT;
  ALTER TABLE intent_paths ADD COLUMN base TEXT;
  ALTER TABLE intent_paths ADD COLUMN ranges TEXT;
  ALTER TABLE session_files ADD COLUMN base TEXT;
  ALTER TABLE session_files ADD COLUMN ranges TEXT;
  ALTER TABLE sessions ADD COLUMN worktree TEXT;
  ALTER TABLE notices ADD COLUMN team_id TEXT;
  ALTER TABLE notices ADD COLUMN sender_session_id TEXT;
  ALTER TABLE notices ADD COLUMN sender TEXT
  `,
  // 6: reservations, a session's explicit claim on files (a file, a folder, a glob) until it expires, is released
  // or its session ends (the MCP server's reserve and release).
  `
  CREATE TABLE reservations (
    team_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    repo_id TEXT NOT NULL,
    pattern TEXT NOT NULL,
    exclusive BIGINT NOT NULL,
    reason TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    released_at BIGINT,
    PRIMARY KEY (team_id, number)
  );
  CREATE INDEX reservations_by_repo ON reservations (team_id, repo_id, released_at, expires_at);
  CREATE INDEX reservations_by_session ON reservations (session_id);
  ALTER TABLE teams ADD COLUMN next_reservation BIGINT NOT NULL DEFAULT 1
  `,
  // 7: replicas of one server on one database. The dashboard's sign-ins are rows (by their id's hash), so that a
  // cookie of one replica is good on the others; each replica says it is alive, for /v1/health's list of peers.
  // Like every migration since the first, it only adds: a replica of the release before still runs beside it.
  `
  CREATE TABLE dashboard_sign_ins (
    id_hash TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams(id),
    read_only BIGINT NOT NULL,
    csrf TEXT NOT NULL,
    token_hash TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX dashboard_sign_ins_by_token ON dashboard_sign_ins (token_hash);
  CREATE INDEX dashboard_sign_ins_by_expiry ON dashboard_sign_ins (expires_at);
  CREATE TABLE replicas (
    id TEXT PRIMARY KEY,
    address TEXT,
    version TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
  )
  `,
];

/**
 * Applies the migrations not yet applied, each in its own transaction; returns the schema version. A database already
 * at a later version than `migrations` knows (a newer replica migrated it during a rolling upgrade) is left as it is:
 * every migration only adds, so this release's statements still hold on it.
 */
export async function migrate(db: Database, now: () => number = Date.now, migrations: readonly string[] = MIGRATIONS): Promise<number> {
  return db.transaction("comity:migrations", async (sql) => {
    await sql.run("CREATE TABLE IF NOT EXISTS comity_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const rows = await sql.all<{ v: number | null }>("SELECT MAX(version) AS v FROM comity_migrations");
    let version = Number(rows[0]?.v ?? 0);
    for (; version < migrations.length; version++) {
      for (const statement of splitStatements(migrations[version] ?? "")) await sql.run(statement);
      await sql.run("INSERT INTO comity_migrations (version, applied_at) VALUES (?, ?)", [version + 1, now()]);
    }
    return version;
  });
}

function splitStatements(script: string): string[] {
  return script
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
