import path = require("node:path");

/**
 * Comity's config folder: `COMITY_CONFIG_DIR`, else `$XDG_CONFIG_HOME/comity`,
 * else `~/.config/comity`. It holds snapshots, caches and `hook.log`.
 *
 * CommonJS, as the hook's thin path ({@link ../daemon/daemon-client.cts}) loads it before anything else: a CommonJS
 * module loads in a fraction of the time of an ES module graph.
 */
function configDir(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  if (env["COMITY_CONFIG_DIR"]) return path.resolve(env["COMITY_CONFIG_DIR"]);
  const xdg = env["XDG_CONFIG_HOME"] || path.join(homeDir, ".config");
  return path.join(xdg, "comity");
}

export = { configDir };
