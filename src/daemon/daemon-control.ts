import { fileURLToPath } from "node:url";
import daemonClient from "./daemon-client.cjs";
import type { DaemonStatus } from "./daemon-wire.js";

/** How long a command waits for a daemon it started to listen, and for one it stopped to let its socket go. */
const START_WAIT_MS = 5000;
const STOP_WAIT_MS = 3000;
const POLL_MS = 50;

/** The daemon's status, or null where none answers on `socket` (or one of another build, which then ends). */
export async function daemonStatusAt(socket: string): Promise<DaemonStatus | null> {
  const a = await daemonClient.callDaemon(socket, { kind: "status", build: daemonClient.installedBuild() }, { connectMs: 300, answerMs: 1000 });
  return "miss" in a || a.kind !== "status" ? null : a;
}

/**
 * Starts `comity daemon run` in the background for `env`'s config folder (`comity daemon start`, `comity init --http`)
 * and waits until it answers, and until its HTTP front (where it has one) listens or says why not: its status, or
 * null where it did not answer within 5 s (`comity daemon run` shows why). A front still starting at 5 s is reported
 * as the status says it (`httpStarting`).
 */
export async function startDaemonAndWait(socket: string, env: Readonly<Record<string, string | undefined>>): Promise<DaemonStatus | null> {
  daemonClient.startDaemonInBackground(fileURLToPath(new URL("../../bin/comity.cjs", import.meta.url)), env, { force: true });
  for (let waited = 0; waited < START_WAIT_MS; waited += POLL_MS) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const status = await daemonStatusAt(socket);
    if (status !== null && (status.httpStarting !== true || waited + POLL_MS >= START_WAIT_MS)) return status;
  }
  return null;
}

/** Stops the daemon on `socket` and waits (at most 3 s) until it has let its socket go; false where none ran. */
export async function stopDaemonAndWait(socket: string): Promise<boolean> {
  const a = await daemonClient.callDaemon(socket, { kind: "stop", build: daemonClient.installedBuild() }, { connectMs: 300, answerMs: 1000 });
  if ("miss" in a) return false;
  for (let waited = 0; waited < STOP_WAIT_MS && (await daemonStatusAt(socket)) !== null; waited += POLL_MS) await new Promise((r) => setTimeout(r, POLL_MS));
  return true;
}
