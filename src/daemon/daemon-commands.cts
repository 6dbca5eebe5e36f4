/**
 * The commands the daemon runs instead of a new process: they read (the coordination store, a few files) and print,
 * nothing more. `symbols` only on at most `DAEMON_SYMBOLS_MAX_FILES` files, without `--jobs`, and (checked by the
 * daemon) at most `DAEMON_SYMBOLS_MAX_BYTES` of them: a larger run would hold the daemon's one thread, and runs in its
 * own process with its worker threads.
 *
 * CommonJS and on its own: `bin/comity.cjs` reads it to know whether a command asks the daemon at all, before it loads
 * the daemon's client (which every other command would otherwise pay for).
 */
const DAEMON_COMMANDS: readonly string[] = ["status", "who", "symbols"];
const DAEMON_SYMBOLS_MAX_FILES = 64;
const DAEMON_SYMBOLS_MAX_BYTES = 512 * 1024;

export = { DAEMON_COMMANDS, DAEMON_SYMBOLS_MAX_BYTES, DAEMON_SYMBOLS_MAX_FILES };
