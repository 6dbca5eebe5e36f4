export interface LoadBody {
  readonly event: string;
  readonly dedupe_key: string;
  readonly session: { readonly external_id: string; readonly tool: string };
  readonly repo: { readonly remote_fingerprints: readonly string[]; readonly branch: string; readonly head_sha: null };
  readonly [field: string]: unknown;
}
export function fingerprint(seed: string | number): string;
export function planLoad(options?: { sessions?: number; events?: number; run?: string; repos?: number }): LoadBody[][];
export function post(baseUrl: string, token: string, body: unknown): Promise<{ status: number; text: string; ms: number; serverMs: number }>;
export function runLoad(options: { url: string; token: string; plan: LoadBody[][]; replayEvery?: number; onAnswer?: (answered: number) => void; thinkMs?: number }): Promise<{
  answers: Map<string, string>;
  latencies: number[];
  serverLatencies: number[];
  mismatches: string[];
  failures: string[];
}>;
/** Signs in to a server's dashboard as its form does; the `comity_dashboard=...` cookie. */
export function dashboardSignIn(base: string, token: string): Promise<string>;
export interface SpawnedServe {
  readonly url: string;
  /** What it printed as it started. */
  readonly banner: string;
  readonly child: import("node:child_process").ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, no goodbye. */
  kill(): Promise<void>;
}
/** The built `comity serve` with these arguments, once it says where it listens (rejected if it exits before). */
export function spawnServe(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<SpawnedServe>;
export function quantile(values: readonly number[], q: number): number;
