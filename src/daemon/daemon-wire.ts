import { createHash } from "node:crypto";
import * as path from "node:path";
import { CONFIG_LAYOUT } from "../config/config-layout.js";

/**
 * The wire between `comity hook` and the per-user daemon (`comity daemon`): one JSON line each way over a Unix socket
 * (a named pipe on Windows). Defined once; the thin client and the server both import it.
 */

/** A request larger than this is refused (a hook's stdin is bounded at 4 MiB; its environment rides along). */
export const MAX_DAEMON_REQUEST_BYTES = 6 * 1024 * 1024;

/** One hook event, as the command line got it: its arguments, folder, environment and stdin. */
export interface HookCall {
  readonly kind: "hook";
  /** The caller's build ({@link buildId}): a daemon of another build answers `stale` and ends. */
  readonly build: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
}

export interface StatusCall {
  readonly kind: "status" | "stop";
  readonly build: string;
}

export type DaemonCall = HookCall | StatusCall;

export interface DaemonStatus {
  readonly pid: number;
  readonly build: string;
  readonly startedAt: string;
  /** Hook events answered since it started. */
  readonly served: number;
  /** Hook events running or waiting now. */
  readonly waiting: number;
  /** It ends itself after this long without a request. */
  readonly idleMs: number;
}

export type DaemonAnswer =
  | { readonly kind: "hook"; readonly stdout: string }
  | ({ readonly kind: "status" } & DaemonStatus)
  | { readonly kind: "stopping" }
  /** Another build answers nothing and ends: the caller runs the event itself and starts the new build's daemon. */
  | { readonly kind: "stale"; readonly build: string }
  /** Too many events waiting: the caller runs this one itself. */
  | { readonly kind: "busy" }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Where the daemon of a config folder listens: `daemon.sock` in it, whose folder is the user's alone (0700). Null
 * where a Unix socket's path would be too long for the platform (about 100 bytes): the hook then runs in process.
 */
export function daemonSocket(configDir: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === "win32") return `\\\\.\\pipe\\comity-${createHash("sha256").update(configDir.toLowerCase()).digest("hex").slice(0, 32)}`;
  const socket = path.join(configDir, CONFIG_LAYOUT.daemon);
  return Buffer.byteLength(socket) <= 100 ? socket : null;
}

/** A build, as the daemon and its callers compare them: the version and when the installed CLI was written. */
export function buildId(version: string, mainMtimeMs: number): string {
  return `${version}+${Math.trunc(mainMtimeMs)}`;
}
