import type { Database } from "../store/database.js";

/** How often a replica says it is alive, and how long after its last word it still counts as a peer. */
export const REPLICA_BEAT_MS = 5_000;
export const REPLICA_GONE_MS = 15_000;

export interface ReplicaIdentity {
  /** Its name among the replicas (`comity serve --replica NAME`; default the host's name and the port). */
  readonly id: string;
  /** Where it listens, as its peers would reach it, for people reading `/v1/health`. */
  readonly address?: string;
}

export interface Peer {
  readonly id: string;
  readonly address: string | null;
  readonly version: string;
  readonly started_at: number;
  /** How long ago it last said it was alive. */
  readonly seen_ms_ago: number;
}

export interface Replica {
  readonly id: string;
  /** The replicas of this database that said they were alive within {@link REPLICA_GONE_MS}, this one included. */
  peers(): Promise<Peer[]>;
  /** Says it is gone (a graceful stop): its peers stop listing it at once. */
  stop(): Promise<void>;
}

/**
 * A replica's row in `replicas`, written now and every {@link REPLICA_BEAT_MS}: what lets each replica list its
 * peers. A replica killed without stopping stays listed until {@link REPLICA_GONE_MS} after its last beat. A beat
 * that fails (the database is down) is tried again at the next; the server goes on.
 */
export async function startReplica(db: Database, me: ReplicaIdentity, version: string, now: () => number, onError: (error: unknown) => void = () => undefined): Promise<Replica> {
  const started = now();
  const beat = (): Promise<void> =>
    db
      .transaction(`replica:${me.id}`, (sql) =>
        sql.run(
          "INSERT INTO replicas (id, address, version, started_at, seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET address = excluded.address, version = excluded.version, started_at = excluded.started_at, seen_at = excluded.seen_at",
          [me.id, me.address ?? null, version, started, now()],
        ),
      )
      .then(() => undefined);
  await beat().catch(onError);
  const timer = setInterval(() => void beat().catch(onError), REPLICA_BEAT_MS);
  timer.unref();
  return {
    id: me.id,
    async peers() {
      const t = now();
      const rows = await db.read((sql) =>
        sql.all<{ id: string; address: string | null; version: string; started_at: number; seen_at: number }>(
          "SELECT id, address, version, started_at, seen_at FROM replicas WHERE seen_at >= ? ORDER BY id",
          [t - REPLICA_GONE_MS],
        ),
      );
      return rows.map((r) => ({ id: r.id, address: r.address, version: r.version, started_at: Number(r.started_at), seen_ms_ago: Math.max(0, t - Number(r.seen_at)) }));
    },
    async stop() {
      clearInterval(timer);
      await db.transaction(`replica:${me.id}`, (sql) => sql.run("DELETE FROM replicas WHERE id = ?", [me.id])).catch(onError);
    },
  };
}
