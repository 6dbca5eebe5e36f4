/**
 * The variables of a hook's environment that may differ from one agent session to another on the same machine: where
 * it coordinates (the team's server and token), whether it shares its status, its name, and the terminal pane it runs
 * in (which names it where no name is given). A front end that answers for a session from another process (the
 * daemon's HTTP hooks, an MCP server a host starts with an environment of its own) must be handed these.
 */
export const SESSION_ENV = ["COMITY_AGENT_NAME", "COMITY_API_URL", "COMITY_SHARE_STATUS", "COMITY_TOKEN", "KITTY_WINDOW_ID", "NO_COLOR", "TMUX_PANE", "WEZTERM_PANE", "ZELLIJ_PANE_ID"] as const;
