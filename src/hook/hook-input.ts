/** What the `comity hook` process was given. */
export interface HookInput {
  readonly tool: string;
  readonly event: string;
  readonly stdin: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The process's folder, used when the payload has no `cwd`. */
  readonly cwd: string;
  readonly now?: () => Date;
}

/** What to print. The exit code is always 0: a hook never breaks the agent. */
export interface HookOutput {
  readonly stdout: string;
  readonly exitCode: 0;
  /** Why the hook failed open, when it did (one line was appended to hook.log). */
  readonly failedOpen: string | null;
}
