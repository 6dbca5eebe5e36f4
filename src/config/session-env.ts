/**
 * The variables of a hook's environment that may differ from one agent session to another on the same machine: where
 * it coordinates (the team's server and token), whether it shares its status, its name, and the terminal pane it runs
 * in (which names it where no name is given). A front end that answers for a session from another process (the
 * daemon's HTTP hooks, an MCP server a host starts with an environment of its own) must be handed these.
 */
export const SESSION_ENV = ["COMITY_AGENT_NAME", "COMITY_API_URL", "COMITY_SHARE_STATUS", "COMITY_TOKEN", "KITTY_WINDOW_ID", "NO_COLOR", "TMUX_PANE", "WEZTERM_PANE", "ZELLIJ_PANE_ID"] as const;

/** The variables of {@link SESSION_ENV} that `env` sets (an empty value counts as unset), by name. */
export function sessionEnvOf(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SESSION_ENV) {
    const value = env[name];
    // (a value read back from a file is checked: only text counts)
    if (typeof value === "string" && value !== "") out[name] = value;
  }
  return out;
}

/**
 * `base` with the variables of {@link SESSION_ENV} as a session set them (`recorded`; none where it is not known):
 * never those of the process that answers for the session, which are another session's or its own.
 */
export function withSessionEnv<V extends string | undefined>(base: Readonly<Record<string, V>>, recorded: Readonly<Record<string, string>> | undefined): Record<string, V> {
  // (an environment of text stays text: every value set here is)
  const env = { ...base } as Record<string, string | undefined>;
  for (const name of SESSION_ENV) {
    const value = recorded?.[name];
    if (value === undefined || value === "") delete env[name];
    else env[name] = value;
  }
  return env as Record<string, V>;
}
