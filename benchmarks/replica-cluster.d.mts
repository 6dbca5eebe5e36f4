export const HAPROXY: string | undefined;
export const CAN_START_POSTGRES: boolean;
export function freePort(): Promise<number>;
export function haproxyConfig(listenPort: number, replicas: ReadonlyArray<{ readonly name: string; readonly port: number }>): string;
export function waitFor(test: () => Promise<boolean> | boolean, limitMs: number, what: string): Promise<void>;
export interface ClusterReplica {
  readonly name: string;
  readonly port: number;
  readonly url: string;
}
export interface Cluster {
  /** The PostgreSQL of this cluster alone (stopping it touches no other test). */
  readonly pg: { readonly url: string; readonly dir: string; halt(): void; resume(): void };
  readonly replicas: readonly ClusterReplica[];
  /** The balancer's URL. */
  readonly url: string;
  /** SIGKILL a replica, no goodbye. */
  kill(i: number): Promise<void>;
  /** SIGTERM a replica (a graceful stop); its exit code. */
  drain(i: number): Promise<number | null>;
  /** Starts a replica again on its port. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}
/** A PostgreSQL of its own, `n` replicas of the built `comity serve` on it, HAProxy in front. */
export function startCluster(n: number, env: NodeJS.ProcessEnv): Promise<Cluster>;
