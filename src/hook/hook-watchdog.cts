/**
 * How long a one-shot hook process may run before its watchdog ends it (failing open), by its host's event: inside
 * the timeout its host gives it, 5 s before a tool, at a prompt and at a session's start; 10 s after a tool and at a
 * turn's or session's end (the timeouts `comity init` writes). An event after a tool that waits its turn for the
 * store under load (many hooks at once on few cores) is then answered, not dropped at 4.8 s.
 *
 * CommonJS, loaded by `bin/comity.cjs` for every hook, which sets the watchdog, and read by the hook's pipeline,
 * which waits for the store until a little before it: it loads nothing.
 */
const AFTER_EVENTS: ReadonlySet<string> = new Set([
  "PostToolUse",
  "Stop",
  "postToolUse",
  "agentStop",
  "afterFileEdit",
  "afterShellExecution",
  "stop",
  "tool.post_call",
  "session.pre_stop",
  "session.post_stop",
]);

function hookWatchdogMs(event: string | undefined): number {
  return event !== undefined && AFTER_EVENTS.has(event) ? 9500 : 4800;
}

export = { hookWatchdogMs };
